package org.searchlab.bench.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.MutableIndex;
import org.searchlab.segmented.LuceneSegmentedIndex;
import org.searchlab.segmented.MergePolicyType;
import org.searchlab.segmented.PartialUpdateMode;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The mutable store against the segmented store, side by side in one run on the same synthetic
 * 384-d corpus (seeded {@link SyntheticCorpus}, 100,000 documents):
 *
 * <ul>
 *   <li>single-client latency and throughput of lexical, vector and hybrid queries, each without
 *       and with a category filter (the benchmark's shape: text = 8 title words of a document,
 *       vector = its embedding, targetHits 100, 10 hits), on the mutable store and on the segmented
 *       store force-merged to 1 segment and at 30 segments ({@link Queries});
 *   <li>feed throughput from empty in bulks of 500, with the process's CPU cores used printed per
 *       iteration so docs/s per core can be derived ({@link Feed});
 *   <li>partial price updates in bulks of 100 on a 20,000-document index: in place on the mutable
 *       store, the segmented store's {@code reindex} mode ({@link Updates});
 *   <li>restart time of the mutable store from a 100,000-document snapshot ({@link Restart}).
 * </ul>
 *
 * <p>Indexes for queries and restart are built once under {@code -Dsearchlab.jmh.dir} (default
 * {@code target/jmh-indexes}) and reused; the build prints its docs/s and CPU seconds. Every query
 * state checks that its queries find something before measuring.
 */
// Throughput only: with one client thread the mean latency is its inverse. Each query trial also
// prints queries per CPU second of the whole process (so concurrent segment search threads count),
// which stays meaningful when other processes share the cores.
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
// One fork per trial: each store lives in its own JVM, so one store's garbage and JIT profile do
// not bias the other. Three 3-second warm-ups: a query takes a few milliseconds of CPU and the JIT
// settles within a few thousand calls, even when the cores are shared.
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx5g"})
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 3, time = 3)
@Threads(1)
public class MutableVsSegmentedBenchmark {
  static final long SEED = 42;
  static final int QUERIES = 500;

  static Path root() {
    return Path.of(System.getProperty("searchlab.jmh.dir", "target/jmh-indexes"));
  }

  /** Process CPU seconds so far (all threads). */
  static double cpuSeconds() {
    return org.searchlab.bench.load.ProcessCpu.thisJvmNanos() / 1e9;
  }

  static void check(List<BulkItemResult> results) {
    for (BulkItemResult r : results) {
      if (r.failed()) {
        throw new IllegalStateException(r.error());
      }
    }
  }

  static MutableConfig mutableConfig() {
    return MutableConfig.builder().snapshotInterval(Duration.ZERO).build();
  }

  /** The segmented store as queried: no merges, no scheduled refreshes, default search threads. */
  static SegmentedConfig segmentedQueryConfig() {
    return SegmentedConfig.builder()
        .mergePolicy(MergePolicyType.NONE)
        .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
        .build();
  }

  /**
   * Builds (once) the index a store name stands for: {@code mutable} (then a snapshot), {@code
   * segmented-30} (30 bulks, one segment each, no merges) or {@code segmented-1} (the same,
   * force-merged to one segment).
   */
  static Path build(String store, int docs, int dim) throws IOException {
    Path dir = root().resolve(store + "-n" + docs + "-d" + dim);
    Path done = dir.resolve("COMPLETE");
    if (Files.exists(done)) {
      return dir;
    }
    if (Files.exists(dir)) {
      throw new IllegalStateException(dir + " holds an incomplete build; delete it");
    }
    Schema schema = new Schema(dim);
    SyntheticCorpus corpus = new SyntheticCorpus(SEED, dim);
    long start = System.nanoTime();
    double cpu = cpuSeconds();
    int segments = 30;
    SearchIndex index =
        store.equals("mutable")
            ? MutableIndex.open(dir, schema, mutableConfig())
            : LuceneSegmentedIndex.open(
                dir,
                schema,
                SegmentedConfig.builder()
                    .segmentPerBatch(true)
                    .mergePolicy(MergePolicyType.NONE)
                    .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
                    .ramBufferMB(2047)
                    .build());
    try (index) {
      int batch = store.equals("mutable") ? 1000 : (docs + segments - 1) / segments;
      for (int from = 0; from < docs; from += batch) {
        List<Operation> ops = new ArrayList<>(batch);
        for (int i = from; i < Math.min(docs, from + batch); i++) {
          ops.add(Operation.put(corpus.document(i)));
        }
        check(index.bulk(ops));
      }
      index.refresh();
      double feedSeconds = (System.nanoTime() - start) / 1e9;
      double feedCpu = cpuSeconds() - cpu;
      if (store.equals("segmented-1")) {
        index.forceMerge(1);
      }
      index.flush();
      System.out.printf(
          "%n[build] %s: %d docs, feed %.1f s = %.0f docs/s, %.1f CPU s = %.0f docs per CPU s;"
              + " total with merge and flush %.1f s; %s%n",
          store,
          docs,
          feedSeconds,
          docs / feedSeconds,
          feedCpu,
          docs / feedCpu,
          (System.nanoTime() - start) / 1e9,
          index.stats().memoryBytes());
    }
    Files.writeString(done, "built\n");
    return dir;
  }

  static SearchIndex open(String store, Path dir, Schema schema) throws IOException {
    return store.equals("mutable")
        ? MutableIndex.open(dir, schema, mutableConfig())
        : LuceneSegmentedIndex.open(dir, schema, segmentedQueryConfig());
  }

  /** A query-only index of one store and the query sets. */
  @State(Scope.Benchmark)
  public static class Queries {
    @Param({"mutable", "segmented-1", "segmented-30"})
    public String store;

    @Param({"100000"})
    public int docs;

    @Param({"384"})
    public int dimension;

    static final String[] SET_NAMES = {
      "lexical", "lexical+filter", "vector", "vector+filter", "hybrid", "hybrid+filter"
    };

    SearchIndex index;
    final SearchRequest[][] sets = new SearchRequest[6][QUERIES];
    int next;
    int lastSet;
    boolean measuring;
    long wall0;
    double cpu0;
    int next0;
    long measuredQueries;
    double measuredWall;
    double measuredCpu;

    @Setup(Level.Iteration)
    public void mark(IterationParams p) {
      measuring = p.getType() == IterationType.MEASUREMENT;
      wall0 = System.nanoTime();
      cpu0 = cpuSeconds();
      next0 = next;
    }

    @TearDown(Level.Iteration)
    public void account() {
      if (measuring) {
        measuredQueries += next - next0;
        measuredWall += (System.nanoTime() - wall0) / 1e9;
        measuredCpu += cpuSeconds() - cpu0;
      }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      Schema schema = new Schema(dimension);
      index = open(store, build(store, docs, dimension), schema);
      System.out.printf("%n[index] %s segments=%d%n", store, index.stats().segmentCount());
      SyntheticCorpus corpus = new SyntheticCorpus(SEED, dimension);
      SplittableRandom random = new SplittableRandom(SEED);
      for (int q = 0; q < QUERIES; q++) {
        int target = random.nextInt(docs);
        for (int f = 0; f < 2; f++) {
          SearchRequest.Builder b = corpus.query(target, f == 1).targetHits(100).hits(10);
          sets[0 + f][q] = b.rankProfile(RankProfile.BM25).build();
          sets[2 + f][q] = b.rankProfile(RankProfile.CLOSENESS).build();
          sets[4 + f][q] = b.rankProfile(RankProfile.HYBRID).build();
        }
      }
      for (SearchRequest[] set : sets) {
        if (index.search(set[0]).hits().isEmpty()) {
          throw new IllegalStateException(store + ": " + set[0] + " finds nothing");
        }
      }
    }

    SearchResult run(int set) throws IOException {
      lastSet = set;
      return index.search(sets[set][next++ % QUERIES]);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      System.out.printf(
          "%n[queries] store=%s query=%s: %d queries, %.1f q/s wall = %.2f ms mean latency;"
              + " %.1f queries per CPU s = %.2f CPU ms per query; %.2f cores used%n",
          store,
          SET_NAMES[lastSet],
          measuredQueries,
          measuredQueries / measuredWall,
          1000 * measuredWall / measuredQueries,
          measuredQueries / measuredCpu,
          1000 * measuredCpu / measuredQueries,
          measuredCpu / measuredWall);
      index.close();
    }
  }

  @Benchmark
  public SearchResult lexical(Queries s) throws IOException {
    return s.run(0);
  }

  @Benchmark
  public SearchResult lexicalFiltered(Queries s) throws IOException {
    return s.run(1);
  }

  @Benchmark
  public SearchResult vector(Queries s) throws IOException {
    return s.run(2);
  }

  @Benchmark
  public SearchResult vectorFiltered(Queries s) throws IOException {
    return s.run(3);
  }

  @Benchmark
  public SearchResult hybrid(Queries s) throws IOException {
    return s.run(4);
  }

  @Benchmark
  public SearchResult hybridFiltered(Queries s) throws IOException {
    return s.run(5);
  }

  /** A fresh index per trial, fed in bulks of 500; prints the CPU cores used per iteration. */
  @State(Scope.Benchmark)
  public static class Feed {
    static final int BULK = 500;

    @Param({"mutable", "segmented"})
    public String store;

    @Param({"384"})
    public int dimension;

    SearchIndex index;
    SyntheticCorpus corpus;
    int next;
    Path dir;
    long wall;
    double cpu;
    int docsAtStart;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      dir = Files.createTempDirectory(root().toAbsolutePath().getParent(), "feed-" + store);
      Schema schema = new Schema(dimension);
      corpus = new SyntheticCorpus(SEED + 1, dimension);
      index =
          store.equals("mutable")
              ? MutableIndex.open(dir, schema, mutableConfig())
              : LuceneSegmentedIndex.open(dir, schema, SegmentedConfig.DEFAULT);
    }

    @Setup(Level.Iteration)
    public void mark() {
      wall = System.nanoTime();
      cpu = cpuSeconds();
      docsAtStart = next;
    }

    @TearDown(Level.Iteration)
    public void report() {
      double seconds = (System.nanoTime() - wall) / 1e9;
      double cores = (cpuSeconds() - cpu) / seconds;
      int fed = next - docsAtStart;
      System.out.printf(
          "%n[feed] %s: %d docs in %.1f s = %.0f docs/s using %.2f cores = %.0f docs/s per core"
              + " (index now %d docs)%n",
          store, fed, seconds, fed / seconds, cores, fed / seconds / cores, next);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      index.close();
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(Feed.BULK)
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Warmup(iterations = 1, time = 10)
  @Measurement(iterations = 2, time = 10)
  public List<BulkItemResult> feed(Feed s) throws IOException {
    List<Operation> ops = new ArrayList<>(Feed.BULK);
    for (int i = 0; i < Feed.BULK; i++) {
      ops.add(Operation.put(s.corpus.document(s.next++)));
    }
    return s.index.bulk(ops);
  }

  /** A 20,000-document index per trial; price updates in bulks of 100 on random documents. */
  @State(Scope.Benchmark)
  public static class Updates {
    static final int BULK = 100;
    static final int DOCS = 20_000;

    @Param({"mutable", "segmented-reindex"})
    public String store;

    @Param({"384"})
    public int dimension;

    SearchIndex index;
    SplittableRandom random = new SplittableRandom(SEED);
    Path dir;
    long wall;
    double cpu;
    long updates;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      dir = Files.createTempDirectory(root().toAbsolutePath().getParent(), "updates-" + store);
      Schema schema = new Schema(dimension);
      SyntheticCorpus corpus = new SyntheticCorpus(SEED + 2, dimension);
      index =
          store.equals("mutable")
              ? MutableIndex.open(dir, schema, mutableConfig())
              : LuceneSegmentedIndex.open(
                  dir,
                  schema,
                  SegmentedConfig.builder().partialUpdateMode(PartialUpdateMode.REINDEX).build());
      for (int from = 0; from < DOCS; from += 1000) {
        List<Operation> ops = new ArrayList<>();
        for (int i = from; i < from + 1000; i++) {
          ops.add(Operation.put(corpus.document(i)));
        }
        check(index.bulk(ops));
      }
      index.refresh();
    }

    @Setup(Level.Iteration)
    public void mark() {
      wall = System.nanoTime();
      cpu = cpuSeconds();
      updates = 0;
    }

    @TearDown(Level.Iteration)
    public void report() throws IOException {
      double seconds = (System.nanoTime() - wall) / 1e9;
      double cores = (cpuSeconds() - cpu) / seconds;
      System.out.printf(
          "%n[updates] %s: %d in %.1f s = %.0f ops/s using %.2f cores = %.0f ops/s per core;"
              + " counters %s%n",
          store,
          updates,
          seconds,
          updates / seconds,
          cores,
          updates / seconds / cores,
          index.stats().counters());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      index.close();
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(Updates.BULK)
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Warmup(iterations = 1, time = 5)
  @Measurement(iterations = 2, time = 5)
  public List<BulkItemResult> partialUpdate(Updates s) throws IOException {
    List<Operation> ops = new ArrayList<>(Updates.BULK);
    for (int i = 0; i < Updates.BULK; i++) {
      String id = docId(s.random.nextInt(Updates.DOCS));
      ops.add(Operation.update(PartialUpdate.of(id).withPrice(s.random.nextInt(100_000))));
    }
    s.updates += Updates.BULK;
    return s.index.bulk(ops);
  }

  static String docId(int i) {
    return "doc-" + i;
  }

  /** The mutable store's 100,000-document snapshot, reopened. */
  @State(Scope.Benchmark)
  public static class Restart {
    @Param({"100000"})
    public int docs;

    @Param({"384"})
    public int dimension;

    Path dir;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      dir = build("mutable", docs, dimension);
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SingleShotTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 1)
  @Measurement(iterations = 3)
  public long restart(Restart s) throws IOException {
    try (MutableIndex index = MutableIndex.open(s.dir, new Schema(s.dimension), mutableConfig())) {
      long n = index.stats().docCount();
      if (n != s.docs) {
        throw new IllegalStateException("reopened with " + n + " documents, wanted " + s.docs);
      }
      return n;
    }
  }
}
