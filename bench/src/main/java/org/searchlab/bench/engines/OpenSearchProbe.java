package org.searchlab.bench.engines;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.searchlab.bench.data.Dataset;
import org.searchlab.bench.data.DatasetQuery;
import org.searchlab.bench.data.GroundTruth;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.load.ProcessCpu;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.Operation;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.wal.SyncPolicy;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.opensearch.NodeClasspath;
import org.searchlab.opensearch.NodesCpu;
import org.searchlab.opensearch.OpenSearchCluster;
import org.searchlab.opensearch.OpenSearchConfig;
import org.searchlab.opensearch.OpenSearchDialect;
import org.searchlab.opensearch.OpenSearchHttp;
import org.searchlab.opensearch.ProductIndex;
import org.searchlab.segmented.LuceneSegmentedIndex;
import org.searchlab.segmented.SegmentedConfig;

/**
 * A first measurement of a local OpenSearch on a built dataset, before the experiment runner drives
 * it as a variant: starts N nodes, feeds every document with {@code _bulk} (the benchmark's 16
 * client threads and 6,000 documents per request), then measures each query type with and without
 * the category filter at the given client counts, recall@10 at {@code num_candidates} 100 against
 * the dataset's ground truth, and the same after a force-merge to one segment. CPU comes from
 * {@code /proc} (all nodes, JIT compiler threads left out) and, for comparison, from the engine's
 * own {@code _nodes/stats} (whole process). Prints one line per result.
 *
 * <p>{@code OpenSearchProbe <dataset dir> <work dir> [nodes] [heap per node] [clients,...] [seconds
 * per cell]}. Run it under the exclusive CPU lock. Not thread-safe; one run per JVM.
 */
public final class OpenSearchProbe {
  private static final int FEED_THREADS = 16;
  private static final int FEED_BATCH = 6_000;
  private static final int QUERIES = 1_000;
  private static final int RECALL_QUERIES = 500;
  private static final String INDEX = ProductIndex.DEFAULT_NAME;

  private final Dataset dataset;
  private final OpenSearchCluster cluster;
  private final OpenSearchHttp http = new OpenSearchHttp(Duration.ofMinutes(30));
  private final URI base;

  private OpenSearchProbe(Dataset dataset, OpenSearchCluster cluster) {
    this.dataset = dataset;
    this.cluster = cluster;
    this.base = cluster.httpUri();
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println(
          "usage: OpenSearchProbe <dataset dir> <work dir> [nodes] [heap] [clients] [seconds]");
      System.exit(2);
    }
    int nodes = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    String heap = args.length > 3 ? args[3] : "3g";
    List<Integer> clients =
        Stream.of((args.length > 4 ? args[4] : "1,4,16").split(","))
            .map(Integer::parseInt)
            .toList();
    Duration window = Duration.ofSeconds(args.length > 5 ? Long.parseLong(args[5]) : 5);
    OpenSearchConfig config = OpenSearchConfig.DEFAULT.toBuilder().nodes(nodes).heap(heap).build();
    try (Dataset dataset = Dataset.open(Path.of(args[0]));
        OpenSearchCluster cluster =
            OpenSearchCluster.start(config, Path.of(args[1]), NodeClasspath.locate())) {
      print("cluster", Map.of("nodes", nodes, "heap", heap, "pids", cluster.pids()));
      new OpenSearchProbe(dataset, cluster).run(clients, window, nodes > 1 ? 1 : 0);
      segmentedRecall(dataset, Path.of(args[1]).resolve("segmented"));
    }
  }

  /**
   * The segmented store's recall on the same queries, in this JVM (no timings): as fed, then
   * force-merged to one segment.
   */
  private static void segmentedRecall(Dataset dataset, Path dir) throws Exception {
    try (LuceneSegmentedIndex store =
        LuceneSegmentedIndex.open(
            dir,
            new Schema(dataset.dimension()),
            SegmentedConfig.DEFAULT.toBuilder()
                .searchThreads(0)
                .wal(WalConfig.DEFAULT.toBuilder().syncPolicy(SyncPolicy.ASYNC).build())
                .build())) {
      List<Operation> ops = new ArrayList<>();
      try (Stream<Document> all = dataset.documents()) {
        for (Document d : (Iterable<Document>) all::iterator) {
          ops.add(Operation.put(d));
          if (ops.size() == 1_000) {
            store.bulk(ops);
            ops.clear();
          }
        }
      }
      if (!ops.isEmpty()) {
        store.bulk(ops);
      }
      store.refresh();
      for (String layout : List.of("default", "forcemerged")) {
        if (layout.equals("forcemerged")) {
          store.forceMerge(1);
          store.refresh();
        }
        for (boolean filtered : List.of(false, true)) {
          Map<String, Object> out = new LinkedHashMap<>();
          out.put("engine", "segmented");
          out.put("layout", layout);
          out.put("segments", store.stats().segmentCount());
          out.put("filtered", filtered);
          out.put("recall_at_10", recall(dataset, dataset.queries(), filtered, store::search));
          print("recall", out);
        }
      }
    }
  }

  private void run(List<Integer> clients, Duration window, int replicas) throws Exception {
    ProductIndex index = ProductIndex.DEFAULT.toBuilder().dimension(dataset.dimension()).build();
    http.expectOk(
        "PUT", base.resolve("/" + INDEX), index.toBuilder().replicas(replicas).build().body());
    feed();
    http.expectOk("POST", base.resolve("/" + INDEX + "/_refresh"), null);
    http.expectOk("POST", base.resolve("/" + INDEX + "/_flush"), null);
    print("segments", Map.of("count", segmentCount()));
    measureQueries("default", clients, window);
    long t0 = System.nanoTime();
    http.expectOk("POST", base.resolve("/" + INDEX + "/_forcemerge?max_num_segments=1"), null);
    http.expectOk("POST", base.resolve("/" + INDEX + "/_refresh"), null);
    print(
        "forcemerge",
        Map.of("seconds", (System.nanoTime() - t0) / 1e9, "segments", segmentCount()));
    measureQueries("forcemerged", clients, window);
  }

  private void feed() throws Exception {
    List<String> bodies = new ArrayList<>();
    List<Document> batch = new ArrayList<>();
    int docs = 0;
    try (Stream<Document> all = dataset.documents()) {
      for (Document d : (Iterable<Document>) all::iterator) {
        batch.add(d);
        docs++;
        if (batch.size() == FEED_BATCH) {
          bodies.add(OpenSearchDialect.bulkBody(INDEX, batch));
          batch.clear();
        }
      }
    }
    if (!batch.isEmpty()) {
      bodies.add(OpenSearchDialect.bulkBody(INDEX, batch));
    }
    ConcurrentLinkedQueue<String> queue = new ConcurrentLinkedQueue<>(bodies);
    AtomicReference<Exception> failure = new AtomicReference<>();
    AtomicInteger rejected = new AtomicInteger();
    long cpu0 = procCpuNanos();
    long engine0 = engineCpuMillis();
    long t0 = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < FEED_THREADS; t++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (String body = queue.poll(); body != null; body = queue.poll()) {
                      try {
                        OpenSearchHttp.Response r = http.bulk(base.resolve("/_bulk"), body);
                        // 429: OpenSearch's indexing pressure (10 % of the heap for requests in
                        // flight) is full; retry, as the experiment's feeder does.
                        while (r.status() == 429) {
                          rejected.incrementAndGet();
                          Thread.sleep(200);
                          r = http.bulk(base.resolve("/_bulk"), body);
                        }
                        if (!r.ok()) {
                          throw new IOException("_bulk answered " + r.status() + ": " + r.text());
                        }
                        OpenSearchDialect.checkBulk(r.json());
                      } catch (Exception e) {
                        failure.compareAndSet(null, e);
                        return;
                      }
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    long wall = System.nanoTime() - t0;
    long cpu = procCpuNanos() - cpu0;
    long engineMillis = engineCpuMillis() - engine0;
    if (failure.get() != null) {
      throw failure.get();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("docs", docs);
    out.put("bulk_requests", bodies.size());
    out.put("rejected_429", rejected.get());
    out.put("seconds", wall / 1e9);
    out.put("docs_per_s", docs / (wall / 1e9));
    out.put("cores_proc", cpu / (double) wall);
    out.put("docs_per_s_per_core_proc", docs / (cpu / 1e9));
    out.put("cores_nodes_stats", engineMillis * 1e6 / wall);
    print("feed", out);
  }

  private void measureQueries(String layout, List<Integer> clients, Duration window)
      throws Exception {
    List<DatasetQuery> queries = dataset.queries();
    for (boolean filtered : List.of(false, true)) {
      print(
          "recall",
          Map.of(
              "engine",
              "opensearch",
              "layout",
              layout,
              "filtered",
              filtered,
              "recall_at_10",
              recall(queries, filtered)));
    }
    try (LoadGenerator load = new LoadGenerator()) {
      for (RankProfile type :
          List.of(RankProfile.BM25, RankProfile.CLOSENESS, RankProfile.HYBRID)) {
        for (boolean filtered : List.of(false, true)) {
          List<HttpRequest> requests = new ArrayList<>();
          for (DatasetQuery q : queries.subList(0, Math.min(QUERIES, queries.size()))) {
            String body = OpenSearchDialect.searchBody(benchmarkRequest(q, type, filtered));
            requests.add(
                HttpRequest.newBuilder(base.resolve("/" + INDEX + "/_search"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                    .build());
          }
          for (int c : clients) {
            ProcessCpu node1 = new ProcessCpu(cluster.pids().get(0));
            load.run(requests, c, Duration.ZERO, Duration.ofSeconds(1), node1); // warm-up
            long cpu0 = procCpuNanos();
            long t0 = System.nanoTime();
            CellStats s = load.run(requests, c, Duration.ZERO, window, node1);
            double cores = (procCpuNanos() - cpu0) / (double) (System.nanoTime() - t0);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("layout", layout);
            out.put("type", type.name().toLowerCase(java.util.Locale.ROOT));
            out.put("filtered", filtered);
            out.put("clients", c);
            out.put("qps", s.qps());
            out.put("mean_ms", s.avgMs());
            out.put("p99_ms", s.p99Ms());
            out.put("cores", cores);
            out.put("qps_per_core", s.qps() / cores);
            out.put("errors", s.errors());
            print("query", out);
          }
        }
      }
    }
  }

  /** The benchmark's query: 10 hits, knn k = num_candidates = 100, the category as the filter. */
  private static SearchRequest benchmarkRequest(
      DatasetQuery q, RankProfile type, boolean filtered) {
    SearchRequest.Builder b =
        SearchRequest.builder().rankProfile(type).hits(10).targetHits(100).exploreAdditionalHits(0);
    if (type != RankProfile.CLOSENESS) {
      b.text(q.text());
    }
    if (type != RankProfile.BM25) {
      b.vector(q.vector());
    }
    if (filtered && q.category() != null) {
      b.filter(Filter.category(q.category()));
    }
    return b.build();
  }

  /**
   * Mean tie-aware recall@10 of vector queries with k 10 and num_candidates 100: a hit counts when
   * it is among the exact top 10 or its dot product reaches the exact 10th.
   */
  private double recall(List<DatasetQuery> queries, boolean filtered) throws Exception {
    return recall(dataset, queries, filtered, this::openSearch);
  }

  private SearchResult openSearch(SearchRequest req) throws Exception {
    JsonNode r =
        http.expectOk(
            "POST", base.resolve("/" + INDEX + "/_search"), OpenSearchDialect.searchBody(req));
    SearchResult raw = OpenSearchDialect.result(r);
    List<Hit> hits = new ArrayList<>();
    for (Hit h : raw.hits()) {
      hits.add(new Hit(h.id(), OpenSearchDialect.closeness(h.score())));
    }
    return new SearchResult(hits, raw.total(), raw.plan(), raw.timings());
  }

  /** A search engine under test: a vector-only request in, hits with closeness scores out. */
  interface VectorSearch {
    SearchResult search(SearchRequest request) throws Exception;
  }

  static double recall(
      Dataset dataset, List<DatasetQuery> queries, boolean filtered, VectorSearch engine)
      throws Exception {
    GroundTruth truth = dataset.groundTruth(filtered);
    double sum = 0;
    int n = 0;
    for (DatasetQuery q : queries.subList(0, Math.min(RECALL_QUERIES, queries.size()))) {
      if (filtered && q.category() == null) {
        continue;
      }
      SearchRequest.Builder b = SearchRequest.builder().vector(q.vector()).hits(10).targetHits(10);
      b.exploreAdditionalHits(90);
      if (filtered) {
        b.filter(Filter.category(q.category()));
      }
      SearchResult result = engine.search(b.build());
      int[] ords = truth.neighbors(q.index());
      float[] dots = truth.scores(q.index());
      int k = Math.min(10, ords.length);
      Set<String> top = new HashSet<>();
      for (int i = 0; i < k; i++) {
        top.add(dataset.id(ords[i]));
      }
      int correct = 0;
      for (Hit h : result.hits()) {
        float dot = 2 * h.score() - 1;
        if (top.contains(h.id()) || (k > 0 && dot >= dots[k - 1] - 1e-5f)) {
          correct++;
        }
      }
      sum += k == 0 ? 1 : Math.min(1.0, correct / (double) k);
      n++;
    }
    return sum / n;
  }

  private int segmentCount() throws Exception {
    JsonNode s = http.expectOk("GET", base.resolve("/" + INDEX + "/_stats/segments"), null);
    return s.path("indices").path(INDEX).path("primaries").path("segments").path("count").asInt();
  }

  private long procCpuNanos() {
    long sum = 0;
    for (long pid : cluster.pids()) {
      sum += new ProcessCpu(pid).cpuNanos();
    }
    return sum;
  }

  private long engineCpuMillis() throws Exception {
    return NodesCpu.parse(http.expectOk("GET", base.resolve("/_nodes/stats/process"), null))
        .totalCpuMillis();
  }

  private static void print(String what, Map<String, ?> values) throws IOException {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("result", what);
    line.putAll(values);
    System.out.println(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(line));
    System.out.flush();
  }
}
