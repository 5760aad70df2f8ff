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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;

/**
 * Bulk put of whole documents with vectors (the feed phase): batches of {@link #BATCH} puts cycling
 * over a fixed corpus, so after the first pass every put replaces a document (the refeed case).
 * With {@code refeed = identical} the replacements are the same documents (a refeed; the mutable
 * store applies them in place); with {@code changed} the passes alternate between two corpora under
 * the same ids, so every put brings new text and a new vector (the cost of a feed: analysis,
 * postings, a graph insert, plus the old version's retirement). Reported per document. Write-ahead
 * log in async mode for both stores (see {@link BenchStores}). The set-up checks that one batch is
 * acknowledged in full.
 *
 * <p>Thread-safety: one {@link Scope#Benchmark} index; the batch cursor is per thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
// HNSW insertion cost grows with the graph; 3 × 3 s lets the graph reach the corpus size.
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx2g"})
public class BulkPutBenchmark {
  static final int BATCH = 500;

  @Param({"mutable", "segmented"})
  String store;

  @Param({"10000"})
  int docs;

  @Param({"384"})
  int dimension;

  @Param({"identical", "changed"})
  String refeed;

  private Path dir;
  private SearchIndex index;
  private List<List<Operation>> batches;

  /** Which batch a thread sends next. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    batches = new ArrayList<>();
    addBatches(BenchStores.corpus(7, docs, dimension));
    switch (refeed) {
      case "identical" -> {}
      case "changed" -> addBatches(BenchStores.corpus(8, docs, dimension));
      default ->
          throw new IllegalArgumentException(
              "refeed '" + refeed + "': expected identical or changed");
    }
    dir = BenchStores.tempDir("bulk");
    index = BenchStores.open(store, dir, new Schema(dimension));
    List<BulkItemResult> first = index.bulk(batches.get(0));
    if (first.size() != BATCH) {
      throw new IllegalStateException(store + " answered " + first.size() + " items for " + BATCH);
    }
  }

  private void addBatches(List<Document> corpus) {
    for (int from = 0; from < corpus.size(); from += BATCH) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : corpus.subList(from, Math.min(corpus.size(), from + BATCH))) {
        ops.add(Operation.put(d));
      }
      batches.add(ops);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    index.close();
    BenchStores.delete(dir);
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public List<BulkItemResult> bulkPut(Cursor c) throws IOException {
    return index.bulk(batches.get(c.next++ % batches.size()));
  }
}
