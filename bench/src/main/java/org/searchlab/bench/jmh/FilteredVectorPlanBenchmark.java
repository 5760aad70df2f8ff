package org.searchlab.bench.jmh;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.Hit;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Every filtered-vector plan of the mutable store, forced through the per-query thresholds, against
 * Lucene's filtered HNSW on one force-merged segment, per filter hit-ratio band (categories of
 * about 0.1%, 1% and 10% of the 100,000-document synthetic corpus of {@link
 * MutableVsSegmentedBenchmark}, whose indexes it reuses): the measurements the plan thresholds are
 * set from. The benchmark's shape: targetHits = num_candidates = 100, 10 hits. Each trial prints
 * the tie-aware recall@10 of its queries against an exact scan of the same store and the plans it
 * saw, so a faster plan is only read together with its recall.
 */
// Two 2-second warm-ups and three 2-second measurements per trial: a filtered query takes well
// under a few milliseconds, so the JIT settles in the first warm-up; one fork per trial keeps the
// stores' heaps and JIT profiles apart.
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx5g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Threads(1)
public class FilteredVectorPlanBenchmark {
  private static final int DOCS = 100_000;
  private static final int DIM = 384;
  private static final int QUERIES = 200;

  /** The store and, for the mutable one, the plan forced on every query. */
  @State(Scope.Benchmark)
  public static class Plans {
    @Param({"mutable:auto", "mutable:exact", "mutable:filter-first", "mutable:hnsw", "segmented-1"})
    public String variant;

    /** The filter hit ratio the queries' categories are near (within a factor of 3). */
    @Param({"0.001", "0.01", "0.1"})
    public double band;

    SearchIndex index;
    SearchRequest[] queries;
    int next;
    final Map<String, Integer> plans = new HashMap<>();
    boolean measuring;
    double cpu0;
    int next0;
    long measuredQueries;
    double measuredCpu;

    /**
     * Marks an iteration: the trial prints CPU milliseconds per query of the measured iterations,
     * which stays comparable when other processes share the cores (throughput does not).
     */
    @Setup(Level.Iteration)
    public void mark(IterationParams p) {
      measuring = p.getType() == IterationType.MEASUREMENT;
      cpu0 = MutableVsSegmentedBenchmark.cpuSeconds();
      next0 = next;
    }

    @TearDown(Level.Iteration)
    public void account() {
      if (measuring) {
        measuredQueries += next - next0;
        measuredCpu += MutableVsSegmentedBenchmark.cpuSeconds() - cpu0;
      }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
      String store = variant.startsWith("mutable") ? "mutable" : variant;
      index =
          MutableVsSegmentedBenchmark.open(
              store, MutableVsSegmentedBenchmark.build(store, DOCS, DIM), new Schema(DIM));
      SyntheticCorpus corpus = new SyntheticCorpus(MutableVsSegmentedBenchmark.SEED, DIM);
      Map<String, Integer> sizes = new HashMap<>();
      String[] categoryOf = new String[DOCS];
      for (int i = 0; i < DOCS; i++) {
        categoryOf[i] = corpus.document(i).category();
        if (categoryOf[i] != null) {
          sizes.merge(categoryOf[i], 1, Integer::sum);
        }
      }
      List<Integer> targets = new ArrayList<>();
      for (int i = 0; i < DOCS; i++) {
        Integer size = categoryOf[i] == null ? null : sizes.get(categoryOf[i]);
        double ratio = size == null ? 0 : (double) size / DOCS;
        if (ratio >= band / 3 && ratio <= band * 3) {
          targets.add(i);
        }
      }
      if (targets.isEmpty()) {
        throw new IllegalStateException("no category near hit ratio " + band);
      }
      FilterThresholds forced =
          switch (variant) {
            case "mutable:exact" -> new FilterThresholds(1, 1);
            case "mutable:filter-first" -> new FilterThresholds(0, 1);
            case "mutable:hnsw" -> new FilterThresholds(0, 0);
            default -> FilterThresholds.INDEX_DEFAULT;
          };
      SplittableRandom random = new SplittableRandom(MutableVsSegmentedBenchmark.SEED);
      queries = new SearchRequest[QUERIES];
      double recall = 0;
      for (int q = 0; q < QUERIES; q++) {
        int target = targets.get(random.nextInt(targets.size()));
        SearchRequest.Builder b = corpus.query(target, true).text(null).targetHits(100).hits(10);
        queries[q] = b.thresholds(forced).build();
        List<Hit> exact = index.search(b.approximate(false).build()).hits();
        SearchResult got = index.search(queries[q]);
        plans.merge(got.plan().vector(), 1, Integer::sum);
        recall += tieAwareRecall(exact, got.hits());
      }
      System.out.printf(
          "%n[plans] %s band=%s: %d candidate documents, recall@10 (tie-aware) %.4f, plans %s%n",
          variant, band, targets.size(), recall / QUERIES, plans);
    }

    /**
     * Hits whose score reaches the exact 10th score, over 10 (or over the exact count if fewer).
     */
    static double tieAwareRecall(List<Hit> exact, List<Hit> got) {
      if (exact.isEmpty()) {
        return 1;
      }
      float kth = exact.get(exact.size() - 1).score();
      int correct = 0;
      for (Hit h : got) {
        if (h.score() >= kth - 1e-6f) {
          correct++;
        }
      }
      return Math.min(1.0, (double) correct / exact.size());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      System.out.printf(
          "%n[cpu] %s band=%s: %.3f CPU ms per query over %d queries%n",
          variant, band, 1000 * measuredCpu / measuredQueries, measuredQueries);
      index.close();
    }
  }

  @Benchmark
  public SearchResult filteredVector(Plans s) throws IOException {
    return s.index.search(s.queries[s.next++ % QUERIES]);
  }
}
