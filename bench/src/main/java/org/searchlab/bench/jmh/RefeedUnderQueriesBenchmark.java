package org.searchlab.bench.jmh;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.FeedNiceness;
import org.searchlab.core.Operation;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.MutableIndex;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Writes and queries sharing the cores (the benchmark's "refeed while filtered queries run"): in
 * group {@code quiet} two threads run filtered hybrid queries alone; in group {@code mixed} the
 * same two run while a third refeeds the corpus in batches of {@link #BATCH}. Sample time: a query
 * row's percentiles are query latency, the refeed row's mean is one batch, so its documents per
 * second are {@code BATCH / mean}. {@code refeed = changed} alternates two corpora under the same
 * ids (every put changes text and vector: postings and graph work); {@code identical} puts the fed
 * documents again. {@code buildThreads} sets the mutable store's graph build threads (0 = its
 * default, the cores). {@code niceness} is the mutable store's feed niceness, given to the refeed
 * thread too (it analyses the text, as a server's write thread does); the segmented store ignores
 * it. Write-ahead log in async mode (see {@link BenchStores}).
 *
 * <p>Thread-safety: one {@link Scope#Benchmark} index shared by the group's threads; cursors are
 * per thread.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
// 2 × 3 s warm-up: the JIT settles on both paths; 3 × 5 s measured, each long enough for dozens of
// refeed batches. One fork: each trial builds its own index.
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx3g"})
public class RefeedUnderQueriesBenchmark {
  static final int BATCH = 200;
  private static final int QUERIES = 500;

  @Param({"mutable", "segmented"})
  String store;

  @Param({"20000"})
  int docs;

  @Param({"384"})
  int dimension;

  @Param({"changed"})
  String refeed;

  @Param({"0"})
  int buildThreads;

  @Param({"0.0"})
  double niceness;

  private Path dir;
  private SearchIndex index;
  private final List<List<List<Operation>>> passes = new ArrayList<>();
  private final List<SearchRequest> queries = new ArrayList<>();

  /** Which batch (of all passes, in turn) the refeed thread sends next. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    /** Runs on the refeed thread, which then writes at the store's feed niceness. */
    @Setup(Level.Trial)
    public void nice(RefeedUnderQueriesBenchmark b) {
      if (b.store.equals("mutable")) {
        FeedNiceness.applyToCurrentThread(b.niceness);
      }
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Schema schema = new Schema(dimension);
    dir = BenchStores.tempDir("refeed");
    if (store.equals("mutable")) {
      MutableConfig d = MutableConfig.DEFAULT;
      index =
          MutableIndex.open(
              dir,
              schema,
              d.toBuilder()
                  .wal(BenchStores.ASYNC_WAL)
                  .feedNiceness(niceness)
                  .hnsw(
                      d.hnsw().toBuilder()
                          .buildThreads(buildThreads == 0 ? d.hnsw().buildThreads() : buildThreads)
                          .build())
                  .build());
    } else {
      index = BenchStores.open(store, dir, schema);
    }
    List<Document> first = BenchStores.corpus(7, docs, dimension);
    BenchStores.load(index, first);
    passes.add(batches(first));
    if (refeed.equals("changed")) {
      passes.add(batches(BenchStores.corpus(8, docs, dimension)));
    } else if (!refeed.equals("identical")) {
      throw new IllegalArgumentException("refeed '" + refeed + "': expected changed or identical");
    }
    SyntheticCorpus corpus = new SyntheticCorpus(7, dimension);
    SplittableRandom random = new SplittableRandom(7);
    for (int q = 0; q < QUERIES; q++) {
      queries.add(
          corpus
              .query(random.nextInt(docs), true)
              .targetHits(100)
              .hits(10)
              .rankProfile(RankProfile.HYBRID)
              .build());
    }
    if (index.search(queries.get(0)).hits().isEmpty()) {
      throw new IllegalStateException(store + ": " + queries.get(0) + " finds nothing");
    }
  }

  private static List<List<Operation>> batches(List<Document> corpus) {
    List<List<Operation>> out = new ArrayList<>();
    for (int from = 0; from < corpus.size(); from += BATCH) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : corpus.subList(from, Math.min(corpus.size(), from + BATCH))) {
        ops.add(Operation.put(d));
      }
      out.add(ops);
    }
    return out;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    index.close();
    BenchStores.delete(dir);
  }

  /** The next filtered hybrid query of a per-thread sequence. */
  @State(Scope.Thread)
  public static class QueryCursor {
    final SplittableRandom random = new SplittableRandom(Thread.currentThread().threadId());
  }

  private SearchResult query(QueryCursor c) throws IOException {
    return index.search(queries.get(c.random.nextInt(queries.size())));
  }

  @Benchmark
  @Group("quiet")
  @GroupThreads(2)
  public SearchResult quietQuery(QueryCursor c) throws IOException {
    return query(c);
  }

  @Benchmark
  @Group("mixed")
  @GroupThreads(2)
  public SearchResult mixedQuery(QueryCursor c) throws IOException {
    return query(c);
  }

  @Benchmark
  @Group("mixed")
  @GroupThreads(1)
  public List<BulkItemResult> mixedRefeed(Cursor c) throws IOException {
    int perPass = passes.get(0).size();
    int i = c.next++;
    List<BulkItemResult> r = index.bulk(passes.get((i / perPass) % passes.size()).get(i % perPass));
    if (r.size() != BATCH || r.get(0).failed()) {
      throw new IllegalStateException(store + ": refeed batch answered " + r.get(0));
    }
    return r;
  }
}
