package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.AggregationResult;
import org.searchlab.core.query.Query;
import org.searchlab.core.wal.SyncPolicy;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.mutable.memory.Race;
import org.searchlab.testing.TestSeeds;

/**
 * Aggregating over the product index's columns while a writer moves documents between categories
 * and prices in place, deletes them and puts them back: each search must see one state per
 * document. Every document has a category and a price, so in every result the category buckets and
 * the price buckets each sum to the total; a filter aggregation on one category holds that category
 * only; a search filtered on a category finds that category only.
 */
class ColumnAggregationConcurrencyTest {
  private static final int DOCS = 600;
  private static final int CATEGORIES = 4;
  @TempDir Path tmp;

  private static Document doc(int i, int category, int price) {
    return new Document("d" + i, "word" + (i % 7), "", "c" + category, price, 1f, null);
  }

  private static Map<String, Aggregation> aggs() {
    Map<String, Aggregation> a = new LinkedHashMap<>();
    a.put("cats", new Aggregation.Terms("category", 100, 0, List.of(), 1, null, Map.of()));
    a.put(
        "prices",
        new Aggregation.Range(
            "price",
            List.of(
                new Aggregation.RangeSpec(null, null, 500.0),
                new Aggregation.RangeSpec(null, 500.0, null)),
            false,
            Map.of()));
    a.put(
        "c0",
        new Aggregation.Filter(
            new Query.Term("category", "c0", 1f),
            Map.of(
                "inner", new Aggregation.Terms("category", 100, 0, List.of(), 1, null, Map.of()))));
    return a;
  }

  private static long sum(AggregationResult r) {
    return ((AggregationResult.Buckets) r)
        .buckets().stream().mapToLong(AggregationResult.Bucket::docCount).sum();
  }

  private static void check(SearchResult r, String filterCategory) {
    long total = r.total().value();
    assertTrue(r.total().exact(), "total " + r.total());
    assertEquals(total, sum(r.aggregations().get("cats")), "category buckets sum to the total");
    assertEquals(total, sum(r.aggregations().get("prices")), "price buckets sum to the total");
    AggregationResult.SingleBucket c0 = (AggregationResult.SingleBucket) r.aggregations().get("c0");
    AggregationResult.Buckets inner = (AggregationResult.Buckets) c0.subAggregations().get("inner");
    assertEquals(c0.docCount(), sum(inner), "the c0 filter's documents are all in c0");
    assertTrue(inner.buckets().stream().allMatch(b -> b.key().equals("c0")), inner.toString());
    if (filterCategory != null) {
      AggregationResult.Buckets cats = (AggregationResult.Buckets) r.aggregations().get("cats");
      assertTrue(
          cats.buckets().stream().allMatch(b -> b.key().equals(filterCategory)),
          "filtered on " + filterCategory + ": " + cats);
    }
  }

  @Test
  void eachSearchSeesOneStatePerDocument() throws Exception {
    long seed = TestSeeds.seed("ColumnAggregationConcurrencyTest.eachSearch");
    MutableConfig config =
        MutableConfig.builder()
            .snapshotInterval(Duration.ZERO)
            .wal(WalConfig.builder().syncPolicy(SyncPolicy.ASYNC).build())
            .build();
    try (MutableIndex index = MutableIndex.open(tmp.resolve("idx"), new Schema(8), config)) {
      SplittableRandom init = new SplittableRandom(seed);
      List<org.searchlab.core.Operation> ops = new ArrayList<>();
      for (int i = 0; i < DOCS; i++) {
        ops.add(
            org.searchlab.core.Operation.put(doc(i, init.nextInt(CATEGORIES), init.nextInt(1000))));
      }
      index.bulk(ops);
      SplittableRandom wr = new SplittableRandom(seed ^ 1);
      List<Runnable> readers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        SplittableRandom rr = new SplittableRandom(seed + 2 + t);
        readers.add(
            () -> {
              Filter f =
                  switch (rr.nextInt(3)) {
                    case 0 -> Filter.ALL;
                    case 1 -> Filter.category("c" + rr.nextInt(CATEGORIES));
                    default -> Filter.ALL.withPrice(new Filter.PriceRange(0, rr.nextInt(1000)));
                  };
              SearchRequest.Builder b = SearchRequest.builder().filter(f).hits(0);
              if (rr.nextBoolean()) {
                b.text("word" + rr.nextInt(7));
              }
              check(index.search(b.aggregations(aggs()).build()), f.category());
            });
      }
      long checks =
          Race.run(
              1500,
              10,
              step -> {
                int i = wr.nextInt(DOCS);
                int category = wr.nextInt(CATEGORIES);
                int price = wr.nextInt(1000);
                try {
                  switch (wr.nextInt(10)) {
                    case 0 -> index.delete("d" + i);
                    case 1 -> index.put(doc(i, category, price)); // back, or in place
                    default -> // not found when deleted before: then nothing changes
                        index.update(
                            PartialUpdate.of("d" + i)
                                .withCategory("c" + category)
                                .withPrice(price));
                  }
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              readers);
      assertTrue(checks > 0, "the readers ran");
      System.out.println("[race] " + checks + " aggregating searches during 1500 writes");
    }
  }
}
