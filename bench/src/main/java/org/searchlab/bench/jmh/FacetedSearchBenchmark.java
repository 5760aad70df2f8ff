package org.searchlab.bench.jmh;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.AggregationResult;

/**
 * A faceted search (issue 67): the benchmark's lexical query, with and without its category filter,
 * plus a {@code terms} aggregation on {@code category} and a {@code range} aggregation of price
 * buckets over every match, ten hits beside them. The mutable store aggregates from its attribute
 * columns, the segmented store from doc values with global ordinals, so this is where the two ways
 * of reading values meet; a profiler attached to it shows where each spends the time. The set-up
 * checks that every match falls in exactly one price bucket and at most one category.
 *
 * <p>Thread-safety: one {@link Scope#Benchmark} index shared by the benchmark threads.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
// 3 × 2 s: enough for the JIT to settle on the scoring and counting loops.
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// One fork per parameter set; the index build dominates.
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx2g"})
public class FacetedSearchBenchmark {
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

  /** The facets of the experiment's faceted query type: categories and price buckets. */
  static Map<String, Aggregation> facets() {
    Map<String, Aggregation> aggs = new LinkedHashMap<>();
    aggs.put("categories", Aggregation.Terms.of(Schema.CATEGORY));
    aggs.put(
        "prices",
        new Aggregation.Range(
            Schema.PRICE,
            List.of(
                new Aggregation.RangeSpec(null, null, 500.0),
                new Aggregation.RangeSpec(null, 500.0, 1000.0),
                new Aggregation.RangeSpec(null, 1000.0, 5000.0),
                new Aggregation.RangeSpec(null, 5000.0, null)),
            false,
            Map.of()));
    return aggs;
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    // Vectors do not matter here; a small dimension keeps the build short.
    List<Document> corpus = BenchStores.corpus(7, docs, 16);
    List<BenchQuery> queries = Corpus.sampleQueries(corpus, 500, 13);
    dir = BenchStores.tempDir("faceted");
    index = BenchStores.openMapped(store, dir, new Schema(16));
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
              .trackTotalHitsUpTo(Integer.MAX_VALUE) // exact, so that the check below holds
              .aggregations(facets())
              .build());
    }
    for (SearchRequest r : requests) {
      SearchResult result = index.search(r);
      long total = result.total().value();
      long inPrices = count(result.aggregations().get("prices"));
      long inCategories = count(result.aggregations().get("categories"));
      if (inPrices != total || inCategories > total) {
        throw new IllegalStateException(
            store + ": " + total + " matches, " + inPrices + " in price buckets, " + inCategories);
      }
    }
  }

  private static long count(AggregationResult r) {
    return ((AggregationResult.Buckets) r)
        .buckets().stream().mapToLong(AggregationResult.Bucket::docCount).sum();
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
