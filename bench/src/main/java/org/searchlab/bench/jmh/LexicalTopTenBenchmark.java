package org.searchlab.bench.jmh;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
import org.openjdk.jmh.annotations.Warmup;
import org.searchlab.bench.experiment.BenchQuery;
import org.searchlab.bench.experiment.Corpus;
import org.searchlab.bench.experiment.ExactSearch;
import org.searchlab.bench.experiment.Quality;
import org.searchlab.bench.experiment.QueryType;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;

/**
 * Lexical top-10 (the benchmark's 8-word title queries, max of BM25 over title and description):
 * the mutable store's posting lists against Lucene in one segment, with and without the category
 * filter. The set-up checks the top-10 against exact BM25, since both stores promise exact top-k.
 *
 * <p>Thread-safety: one {@link Scope#Benchmark} index shared by the benchmark threads.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
// 3 × 2 s: enough for the JIT to settle on the scoring loops.
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// One fork per parameter set; the index build dominates.
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx2g"})
public class LexicalTopTenBenchmark {
  @Param({"mutable", "segmented"})
  String store;

  @Param({"50000"})
  int docs;

  @Param({"false", "true"})
  boolean filtered;

  private Path dir;
  private SearchIndex index;
  private List<SearchRequest> requests;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    // Vectors do not matter here; a small dimension keeps the build short.
    List<Document> corpus = BenchStores.corpus(7, docs, 16);
    List<BenchQuery> queries = Corpus.sampleQueries(corpus, 500, 13);
    dir = BenchStores.tempDir("lexical");
    index = BenchStores.open(store, dir, new Schema(16));
    BenchStores.load(index, corpus);
    index.forceMerge(1);
    index.refresh();
    requests = new ArrayList<>();
    for (BenchQuery q : queries) {
      requests.add(
          SearchRequest.builder()
              .text(q.text())
              .rankProfile(RankProfile.BM25)
              .filter(filtered ? Filter.category(q.category()) : Filter.ALL)
              .hits(10)
              .build());
    }
    ExactSearch exact = new ExactSearch(corpus, queries);
    List<List<String>> truth = new ArrayList<>();
    List<List<String>> got = new ArrayList<>();
    for (int i = 0; i < queries.size(); i++) {
      truth.add(exact.topK(queries.get(i), QueryType.LEXICAL, filtered, 10));
      got.add(index.search(requests.get(i)).hits().stream().map(Hit::id).toList());
    }
    double recall = Quality.recall(got, truth, 10);
    if (recall < 0.99) {
      throw new IllegalStateException(store + " lexical top-10 recall " + recall + " < 0.99");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    index.close();
    BenchStores.delete(dir);
  }

  @Benchmark
  public SearchResult search() throws IOException {
    int i = Math.floorMod(next++, requests.size());
    return index.search(requests.get(i));
  }
}
