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
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;

/**
 * Approximate top-k vector search: the mutable store's one HNSW graph against Lucene's graph in a
 * single segment (the segmented store force-merged to 1), same documents, same queries, same beam.
 * The set-up checks recall@k against exact search so that a fast, wrong graph cannot win.
 *
 * <p>Thread-safety: one {@link Scope#Benchmark} index shared by the benchmark threads (both stores
 * allow concurrent searches).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
// Graph search is memory-bound; 3 × 2 s warms the JIT and the page cache of the Lucene files.
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// One fork per store: building the index dominates the run, and forks agree within noise.
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx2g"})
public class HnswSearchBenchmark {
  @Param({"mutable", "segmented"})
  String store;

  @Param({"20000"})
  int docs;

  @Param({"384"})
  int dimension;

  @Param({"10"})
  int k;

  /** The beam: Elasticsearch {@code num_candidates}, Vespa targetHits + exploreAdditionalHits. */
  @Param({"100"})
  int ef;

  private Path dir;
  private SearchIndex index;
  private List<SearchRequest> requests;
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    List<Document> corpus = BenchStores.corpus(7, docs, dimension);
    List<BenchQuery> queries = Corpus.sampleQueries(corpus, 200, 11);
    dir = BenchStores.tempDir("hnsw");
    index = BenchStores.open(store, dir, new Schema(dimension));
    BenchStores.load(index, corpus);
    index.forceMerge(1);
    index.refresh();
    requests = new ArrayList<>();
    for (BenchQuery q : queries) {
      requests.add(
          SearchRequest.builder()
              .vector(q.vector())
              .rankProfile(RankProfile.CLOSENESS)
              .hits(k)
              .targetHits(k)
              .exploreAdditionalHits(ef - k)
              .build());
    }
    ExactSearch exact = new ExactSearch(corpus, queries);
    List<List<String>> truth = new ArrayList<>();
    List<List<String>> got = new ArrayList<>();
    for (int i = 0; i < queries.size(); i++) {
      truth.add(exact.vectorTopK(queries.get(i), k));
      got.add(index.search(requests.get(i)).hits().stream().map(Hit::id).toList());
    }
    double recall = Quality.recall(got, truth, k);
    System.out.printf("%s: recall@%d = %.3f at ef %d%n", store, k, recall, ef);
    if (recall < 0.8) {
      throw new IllegalStateException(store + " recall@" + k + " is " + recall + " < 0.8");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    index.close();
    BenchStores.delete(dir);
  }

  @Benchmark
  public SearchResult search() throws IOException {
    // A racy counter is fine with several threads: any query order measures the same thing.
    return index.search(requests.get(Math.floorMod(next++, requests.size())));
  }
}
