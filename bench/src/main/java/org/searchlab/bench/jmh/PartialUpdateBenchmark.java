package org.searchlab.bench.jmh;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
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
import org.openjdk.jmh.annotations.Warmup;
import org.searchlab.core.Document;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.WriteResult;

/**
 * Partial update of one document's price (the benchmark's update phase): the mutable store assigns
 * the attribute in place; the segmented store re-indexes the whole document (Lucene has no in-place
 * update of an indexed document). Write-ahead log in async mode for both (see {@link BenchStores}).
 * The set-up reads one update back.
 *
 * <p>Thread-safety: one {@link Scope#Benchmark} index; the random generator is per thread.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
// 3 × 2 s: the segmented store's merges need a few seconds to reach a steady state.
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx2g"})
public class PartialUpdateBenchmark {
  @Param({"mutable", "segmented"})
  String store;

  @Param({"20000"})
  int docs;

  @Param({"64"})
  int dimension;

  private Path dir;
  private SearchIndex index;
  private List<Document> corpus;

  /** Per-thread seeded generator of which document to update. */
  @State(Scope.Thread)
  public static class Picker {
    final SplittableRandom random = new SplittableRandom(Thread.currentThread().threadId());
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    corpus = BenchStores.corpus(7, docs, dimension);
    dir = BenchStores.tempDir("update");
    index = BenchStores.open(store, dir, new Schema(dimension));
    BenchStores.load(index, corpus);
    Document d = corpus.get(0);
    index.update(PartialUpdate.of(d.id()).withPrice(d.price() + 100));
    index.refresh();
    int price = index.get(d.id()).orElseThrow().price();
    if (price != d.price() + 100) {
      throw new IllegalStateException(store + " did not apply the update: price " + price);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    index.close();
    BenchStores.delete(dir);
  }

  @Benchmark
  public WriteResult updatePrice(Picker p) throws IOException {
    Document d = corpus.get(p.random.nextInt(corpus.size()));
    return index.update(PartialUpdate.of(d.id()).withPrice(p.random.nextInt(100_000)));
  }
}
