package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.opensearch.ProductIndex;

/**
 * The Elasticsearch-dialect admin calls the procedure needs: create the index with the benchmark's
 * mapping, refresh, flush, force-merge and read the segment count. A searchlab server answers them
 * for either store, and so do Elasticsearch and OpenSearch (OpenSearch gets its own mapping, {@link
 * ProductIndex}); a Vespa application has no such calls (its schema is deployed, its writes are
 * visible at once, and it cannot be force-merged), so there they do nothing, and {@link
 * #forceMerge} refuses. Thread-safe (stateless apart from the shared client).
 */
public final class ServerAdmin {
  private static final Duration MERGE_TIMEOUT = Duration.ofHours(2);

  /** Which mapping the engine is given and which calls it has. */
  enum Kind {
    /** searchlab's server, or Elasticsearch: the Elasticsearch mapping. */
    ELASTICSEARCH,
    /** OpenSearch with the k-NN plugin: {@link ProductIndex}. */
    OPENSEARCH,
    /** A Vespa application: no index calls. */
    VESPA
  }

  private final HttpClient http;
  private final URI base;
  private final Kind kind;
  private final int replicas;
  private final BenchMapping mapping;
  private final String store;

  /** The admin of a searchlab server (or an Elasticsearch cluster). */
  public ServerAdmin(HttpClient http, URI base) {
    this(http, base, Kind.ELASTICSEARCH, 0);
  }

  /**
   * @param replicas OpenSearch only: copies of the one shard (0 on one node, 1 on a cluster)
   */
  ServerAdmin(HttpClient http, URI base, Kind kind, int replicas) {
    this(http, base, kind, replicas, BenchMapping.PRODUCT, null);
  }

  /**
   * @param replicas OpenSearch only: copies of the one shard (0 on one node, 1 on a cluster)
   * @param mapping the index the calls are about, and the mapping it is created with
   * @param store the store of a searchlab server ({@code index.store} of a mapped index), null for
   *     another engine
   */
  ServerAdmin(
      HttpClient http, URI base, Kind kind, int replicas, BenchMapping mapping, String store) {
    this.http = http;
    this.base = base;
    this.kind = kind;
    this.replicas = replicas;
    this.mapping = mapping;
    this.store = store;
  }

  /** Whether {@link #forceMerge} can merge this engine's index. */
  public boolean canForceMerge() {
    return kind != Kind.VESPA;
  }

  /**
   * {@code PUT /product} with the benchmark's mapping (dims, dot_product, HNSW m and
   * ef_construction, the shared analyzer). Returns the status; an index that exists already answers
   * 400 and is not an error here.
   */
  public int createIndex(int dimension, int m, int efConstruction)
      throws IOException, InterruptedException {
    return createIndex(dimension, m, efConstruction, VectorQuantization.NONE);
  }

  /**
   * {@link #createIndex(int, int, int)} with the vectors' {@code index_options.type} named by
   * {@code quantization} ({@code hnsw} or {@code int8_hnsw}); searchlab's servers refuse a type
   * they were not started with. OpenSearch gets its float mapping whatever is asked.
   */
  public int createIndex(int dimension, int m, int efConstruction, VectorQuantization quantization)
      throws IOException, InterruptedException {
    if (kind == Kind.VESPA) {
      return 0; // the deployed application package holds the schema
    }
    if (!mapping.product()) {
      return createMapped(dimension, quantization);
    }
    String body =
        kind == Kind.OPENSEARCH
            ? ProductIndex.DEFAULT.toBuilder()
                .dimension(dimension)
                .replicas(replicas)
                .hnswM(m)
                .hnswEfConstruction(efConstruction)
                .build()
                .body()
            : elasticsearchMapping(dimension, m, efConstruction, quantization);
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/" + EsDialect.INDEX))
            .timeout(Json.REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body))
            .build();
    int status = http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
    if (kind == Kind.OPENSEARCH && status == 200) {
      awaitGreen();
    }
    return status;
  }

  /**
   * {@code PUT /{index}} with the mapping's body ({@link BenchMapping#indexBody}, or {@link
   * BenchMapping#openSearchBody}); an engine that refuses it stops the run with its answer.
   */
  private int createMapped(int dimension, VectorQuantization quantization)
      throws IOException, InterruptedException {
    String body =
        (kind == Kind.OPENSEARCH
                ? mapping.openSearchBody(dimension)
                : mapping.indexBody(dimension, quantization, store))
            .toString();
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/" + mapping.index()))
            .timeout(Json.REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    expectOk(r, "PUT /" + mapping.index() + " with the mapping");
    if (kind == Kind.OPENSEARCH) {
      awaitGreen();
    }
    return r.statusCode();
  }

  /**
   * Waits until the new index is green: its primary and, on a cluster, its replica allocated, so
   * that the feed writes to both from its first request.
   */
  private void awaitGreen() throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(
                base.resolve(
                    "/_cluster/health/" + mapping.index() + "?wait_for_status=green&timeout=120s"))
            .timeout(Json.REQUEST_TIMEOUT)
            .GET()
            .build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    JsonNode health = Json.MAPPER.readTree(r.body());
    if (r.statusCode() != 200 || !"green".equals(health.path("status").asText())) {
      throw new IOException("index " + mapping.index() + " not green after 120 s: " + health);
    }
  }

  private static String elasticsearchMapping(
      int dimension, int m, int efConstruction, VectorQuantization quantization) {
    ObjectNode body = Json.object();
    ObjectNode analysis = body.putObject("settings").putObject("analysis");
    ObjectNode an = analysis.putObject("analyzer").putObject(TextAnalysis.NAME);
    an.put("tokenizer", "standard");
    an.putArray("filter").add("lowercase").add("asciifolding").add("porter2_stemmer");
    analysis
        .putObject("filter")
        .putObject("porter2_stemmer")
        .put("type", "stemmer")
        .put("language", "porter2");
    ObjectNode props = body.putObject("mappings").putObject("properties");
    props.putObject("id").put("type", "keyword");
    props.putObject("title").put("type", "text").put("analyzer", TextAnalysis.NAME);
    props.putObject("description").put("type", "text").put("analyzer", TextAnalysis.NAME);
    props.putObject("category").put("type", "keyword");
    props.putObject("price").put("type", "integer").put("index", false);
    props.putObject("average_rating").put("type", "float").put("index", false);
    ObjectNode emb = props.putObject("embedding");
    emb.put("type", "dense_vector")
        .put("dims", dimension)
        .put("index", true)
        .put("similarity", "dot_product");
    emb.putObject("index_options")
        .put("type", quantization.esIndexType())
        .put("m", m)
        .put("ef_construction", efConstruction);
    return body.toString();
  }

  /** {@code POST /product/_refresh}. */
  public void refresh() throws IOException, InterruptedException {
    if (kind == Kind.VESPA) {
      return; // writes are visible when acknowledged
    }
    expectOk(post("/" + mapping.index() + "/_refresh", Json.REQUEST_TIMEOUT), "refresh");
  }

  /** {@code POST /product/_flush}. */
  public void flush() throws IOException, InterruptedException {
    if (kind == Kind.VESPA) {
      return; // the engine flushes on its own schedule
    }
    expectOk(post("/" + mapping.index() + "/_flush", Json.REQUEST_TIMEOUT), "flush");
  }

  /** {@code POST /product/_forcemerge?max_num_segments=n}; waits for the merge to finish. */
  public void forceMerge(int segments) throws IOException, InterruptedException {
    if (!canForceMerge()) {
      throw new UnsupportedOperationException("a Vespa application cannot be force-merged");
    }
    expectOk(
        post("/" + mapping.index() + "/_forcemerge?max_num_segments=" + segments, MERGE_TIMEOUT),
        "force-merge to " + segments);
  }

  /**
   * Waits until the index has no merge running, pending or held, polling every {@code POLL}:
   * searchlab's {@code merges_running}, {@code merges_pending} and {@code merges_held} counters of
   * {@code GET /_admin/stats}, else {@code merges.current} of {@code GET /product/_stats/merge}
   * (Elasticsearch, OpenSearch). Two idle polls in a row count as settled, since a finished merge
   * can make the policy choose the next one. Returns at once for an engine that reports neither.
   *
   * @param max how long to wait at most
   * @return the seconds waited, or -1 when the engine does not report its merges
   * @throws IOException when merges still run after {@code max}
   */
  public double awaitMerges(Duration max) throws IOException, InterruptedException {
    if (kind == Kind.VESPA) {
      return -1;
    }
    long t0 = System.nanoTime();
    int idle = 0;
    while (true) {
      Long busy = mergesInFlight();
      if (busy == null) {
        return -1;
      }
      idle = busy == 0 ? idle + 1 : 0;
      double waited = (System.nanoTime() - t0) / 1e9;
      if (idle == 2) {
        return waited;
      }
      if (waited > max.toSeconds()) {
        throw new IOException(
            String.format(
                "merges still running after %.0f s (%d in flight)", waited, busy.longValue()));
      }
      Thread.sleep(MERGE_POLL.toMillis());
    }
  }

  private static final Duration MERGE_POLL = Duration.ofMillis(500);

  /** Merges running or pending, or null when the engine does not say. */
  private Long mergesInFlight() throws IOException, InterruptedException {
    JsonNode counters = adminStats().path("counters");
    if (counters.path("merges_running").isNumber()) {
      // merges_held: a segmented store that replayed its log holds merges for a moment after it
      // opens, when none is running or pending yet.
      return counters.path("merges_running").asLong()
          + counters.path("merges_pending").asLong()
          + counters.path("merges_held").asLong();
    }
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/" + mapping.index() + "/_stats/merge"))
            .timeout(Json.REQUEST_TIMEOUT)
            .GET()
            .build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      return null;
    }
    JsonNode current =
        Json.MAPPER.readTree(r.body()).path("_all").path("total").path("merges").path("current");
    return current.isNumber() ? current.asLong() : null;
  }

  /**
   * The searchable segment count, {@code indices.product.shards.0[0].num_search_segments} of {@code
   * GET /product/_segments}, or {@code null} when the server does not report it.
   */
  public Integer segments() throws IOException, InterruptedException {
    if (kind == Kind.VESPA) {
      return null;
    }
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/" + mapping.index() + "/_segments"))
            .timeout(Json.REQUEST_TIMEOUT)
            .GET()
            .build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      return null;
    }
    JsonNode n =
        Json.MAPPER
            .readTree(r.body())
            .path("indices")
            .path(mapping.index())
            .path("shards")
            .path("0")
            .path(0)
            .path("num_search_segments");
    return n.isNumber() ? n.asInt() : null;
  }

  /**
   * One of the store's counters or settings, {@code counters.<name>} of {@code GET /_admin/stats}
   * (the mutable store's {@code build_threads}, say), or {@code null} when the server does not
   * report it.
   */
  public Long storeCounter(String name) throws IOException, InterruptedException {
    JsonNode n = adminStats().path("counters").path(name);
    return n.isNumber() ? n.asLong() : null;
  }

  /**
   * The store's bytes per vector by representation ({@code float}, {@code int8}, {@code graph})
   * from {@code /_admin/stats}; empty when the engine does not report them.
   */
  public java.util.Map<String, Long> vectorBytesPerVector()
      throws IOException, InterruptedException {
    java.util.Map<String, Long> m = new java.util.LinkedHashMap<>();
    adminStats()
        .path("vector_bytes_per_vector")
        .fields()
        .forEachRemaining(e -> m.put(e.getKey(), e.getValue().asLong()));
    return m;
  }

  /**
   * The whole {@code GET /_admin/stats} answer (its {@code memory_bytes}, {@code wal_bytes} and
   * {@code counters}), or a missing node when the engine has no such route: a scale run's memory
   * accounting ({@link StoreMemory}).
   */
  JsonNode stats() throws IOException, InterruptedException {
    return adminStats();
  }

  /**
   * The numeric fields of one section of {@code GET /_admin/stats} ({@code counters}, {@code
   * memory_bytes}), by name; empty when the engine does not report it.
   */
  public java.util.Map<String, Long> adminSection(String section)
      throws IOException, InterruptedException {
    java.util.Map<String, Long> m = new java.util.TreeMap<>();
    adminStats()
        .path(section)
        .fields()
        .forEachRemaining(
            e -> {
              if (e.getValue().isNumber()) {
                m.put(e.getKey(), e.getValue().asLong());
              }
            });
    return m;
  }

  /** {@code GET /_admin/stats}, or a missing node when the engine has no such route. */
  private JsonNode adminStats() throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve("/_admin/stats"))
            .timeout(Json.REQUEST_TIMEOUT)
            .GET()
            .build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }
    return Json.MAPPER.readTree(r.body());
  }

  private HttpResponse<byte[]> post(String path, Duration timeout)
      throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(timeout)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    return http.send(req, HttpResponse.BodyHandlers.ofByteArray());
  }

  /**
   * {@code PUT /{index}} with {@code body} (settings and mappings), for the harnesses that create
   * their own indexes (crashtest's several stores, the histories' small mapping): anything but 200,
   * an existing index included, is an error, since those runs always start on a fresh directory.
   */
  public static void putIndex(HttpClient http, URI base, String index, String body)
      throws IOException, InterruptedException {
    HttpResponse<byte[]> r =
        http.send(
            HttpRequest.newBuilder(base.resolve("/" + index))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .PUT(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      throw new IOException(
          "PUT /"
              + index
              + " answered "
              + r.statusCode()
              + ": "
              + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  private static void expectOk(HttpResponse<byte[]> r, String what) throws IOException {
    if (r.statusCode() / 100 != 2) {
      throw new IOException(
          what
              + " answered "
              + r.statusCode()
              + ": "
              + new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
    }
  }
}
