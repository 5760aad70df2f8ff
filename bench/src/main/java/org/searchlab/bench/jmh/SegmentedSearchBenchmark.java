package org.searchlab.bench.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Hit;
import org.searchlab.core.Operation;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.segmented.LuceneSegmentedIndex;
import org.searchlab.segmented.MergePolicyType;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Single-client query throughput of the segmented store against its segment count, with the
 * segments searched one after another ({@code searchThreads = 0}) or concurrently on
 * Elasticsearch's default search pool ({@code cores × 3 / 2 + 1}), for vector and lexical queries
 * of the benchmark's shape (text = the first 8 title words of a document, vector = its embedding, k
 * = 100 candidates, 10 hits). Each trial also prints the vector recall@10 against an exact scan.
 *
 * <p>The indexes are built once (segment per batch, merges off, so {@code segments} bulks make
 * exactly that many segments) under {@code -Dsearchlab.jmh.dir} (default {@code
 * target/jmh-indexes}) and reused by later runs.
 *
 * <p>State is per benchmark ({@code Scope.Benchmark}); one client thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// One fork: the index is opened once per trial and each query is short; JIT warm-up is the main
// source of drift, so two warm-up iterations precede three measured ones.
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx6g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Threads(1)
public class SegmentedSearchBenchmark {
  private static final long SEED = 42;
  private static final int QUERIES = 500;
  private static final int RECALL_QUERIES = 100;

  @Param({"100000"})
  public int docs;

  @Param({"384"})
  public int dimension;

  @Param({"1", "8", "32", "64"})
  public int segments;

  /** 0: sequential; 4 = Elasticsearch's default search pool on 2 cores (2 × 3 / 2 + 1). */
  @Param({"0", "4"})
  public int searchThreads;

  private LuceneSegmentedIndex index;
  private SearchRequest[] vectorQueries;
  private SearchRequest[] lexicalQueries;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Schema schema = new Schema(dimension);
    SyntheticCorpus corpus = new SyntheticCorpus(SEED, dimension);
    Path dir =
        Path.of(System.getProperty("searchlab.jmh.dir", "target/jmh-indexes"))
            .resolve("segmented-n" + docs + "-d" + dimension + "-s" + segments);
    build(dir, schema, corpus);
    index =
        LuceneSegmentedIndex.open(
            dir,
            schema,
            SegmentedConfig.builder()
                .mergePolicy(MergePolicyType.NONE)
                .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
                .searchThreads(searchThreads)
                .build());
    int actual = index.stats().segmentCount();
    if (actual != segments) {
      throw new IllegalStateException("index has " + actual + " segments, wanted " + segments);
    }
    SplittableRandom random = new SplittableRandom(SEED);
    vectorQueries = new SearchRequest[QUERIES];
    lexicalQueries = new SearchRequest[QUERIES];
    for (int q = 0; q < QUERIES; q++) {
      SearchRequest.Builder b = corpus.query(random.nextInt(docs), false).targetHits(100).hits(10);
      vectorQueries[q] = b.rankProfile(RankProfile.CLOSENESS).build();
      lexicalQueries[q] = b.rankProfile(RankProfile.BM25).build();
    }
    double recall = 0;
    for (int q = 0; q < RECALL_QUERIES; q++) {
      SearchRequest approx = vectorQueries[q];
      List<Hit> exact = index.search(approx.toBuilder().approximate(false).build()).hits();
      recall += recallAt10(exact, index.search(approx).hits());
    }
    recall /= RECALL_QUERIES;
    System.out.printf(
        "%n[recall] segments=%d searchThreads=%d recall@10=%.4f (%d queries, k=100)%n",
        segments, searchThreads, recall, RECALL_QUERIES);
    if (lexicalQueries[0] != null && index.search(lexicalQueries[0]).hits().isEmpty()) {
      throw new IllegalStateException("a document's own title finds nothing");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    index.close();
  }

  @Benchmark
  public SearchResult vector() throws IOException {
    return index.search(vectorQueries[next++ % QUERIES]);
  }

  @Benchmark
  public SearchResult lexical() throws IOException {
    return index.search(lexicalQueries[next++ % QUERIES]);
  }

  /** Builds {@code segments} segments of equal size, once; a marker file says it is complete. */
  private void build(Path dir, Schema schema, SyntheticCorpus corpus) throws IOException {
    Path done = dir.resolve("COMPLETE");
    if (Files.exists(done)) {
      return;
    }
    if (Files.exists(dir)) {
      throw new IllegalStateException(dir + " holds an incomplete build; delete it");
    }
    long start = System.nanoTime();
    SegmentedConfig building =
        SegmentedConfig.builder()
            .segmentPerBatch(true)
            .mergePolicy(MergePolicyType.NONE)
            .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
            .ramBufferMB(2047)
            .build();
    try (LuceneSegmentedIndex build = LuceneSegmentedIndex.open(dir, schema, building)) {
      int perBatch = docs / segments;
      for (int s = 0; s < segments; s++) {
        int from = s * perBatch;
        int to = s == segments - 1 ? docs : from + perBatch;
        List<Operation> ops = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
          ops.add(Operation.put(corpus.document(i)));
        }
        for (BulkItemResult r : build.bulk(ops)) {
          if (r.failed()) {
            throw new IllegalStateException(r.error());
          }
        }
      }
      build.flush();
    }
    Files.writeString(done, "built in " + (System.nanoTime() - start) / 1_000_000 + " ms\n");
    System.out.printf(
        "%n[build] %s: %d docs in %d segments, %d s%n",
        dir, docs, segments, (System.nanoTime() - start) / 1_000_000_000);
  }

  private static double recallAt10(List<Hit> exact, List<Hit> approx) {
    int n = Math.min(10, exact.size());
    if (n == 0) {
      return 1;
    }
    Set<String> truth = new HashSet<>();
    for (Hit h : exact.subList(0, n)) {
      truth.add(h.id());
    }
    float kth = exact.get(n - 1).score();
    int correct = 0;
    for (Hit h : approx.subList(0, Math.min(n, approx.size()))) {
      if (truth.contains(h.id()) || h.score() >= kth) {
        correct++;
      }
    }
    return correct / (double) n;
  }
}
