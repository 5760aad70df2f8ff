package org.searchlab.core.agg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.agg.AggregationResult.Bucket;
import org.searchlab.core.agg.AggregationResult.Buckets;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.DocumentParser;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.NumberType;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.query.Query;

/**
 * The shared aggregation code on cases worked out by hand from Elasticsearch's documentation, over
 * a source of two leaves whose keyword ordinals are numbered in first-seen order (as the mutable
 * store's are, not sorted), so that key order is checked to come from the values. The stores are
 * checked against the exact oracle by the conformance suites.
 */
class AggregationsTest {
  private static final Mapping MAPPING =
      Mapping.of(
          Map.of(
              "color", FieldType.Keyword.PLAIN,
              "price", new FieldType.Numeric(NumberType.LONG, true, true),
              "weight", new FieldType.Numeric(NumberType.DOUBLE, true, true),
              "when", new FieldType.Date("strict_date_optional_time||epoch_millis", true, true),
              "ok", new FieldType.Bool(true, true)));

  private final List<ParsedDocument> docs = new ArrayList<>();

  private void add(String id, Object... kv) {
    Map<String, Object> source = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      source.put((String) kv[i], kv[i + 1]);
    }
    docs.add(DocumentParser.parse(MAPPING, TextAnalysis.NAME, new Document(id, source)));
  }

  private void catalogue() {
    add(
        "a",
        "color",
        "red",
        "price",
        10L,
        "weight",
        1.5,
        "when",
        "2024-01-15T10:00:00Z",
        "ok",
        true);
    add("b", "color", List.of("red", "blue"), "price", 25L, "when", "2024-03-02T00:00:00Z");
    add("c", "color", "blue", "price", 120L, "weight", 2.5, "ok", false);
    add("d", "color", "green", "price", List.of(5L, 300L, 5L), "when", "2024-01-31T23:59:59Z");
    add("e", "price", 99L, "weight", -0.5);
    add("f", "color", "Zebra");
  }

  /** Two leaves: the first three documents and the rest; keyword ordinals by first appearance. */
  private final class TwoLeaves implements AggregationSource {
    private final List<String> terms = new ArrayList<>();
    private final List<Leaf> leaves = new ArrayList<>();

    TwoLeaves() {
      int split = Math.min(3, docs.size());
      leaves.add(new ListLeaf(docs.subList(0, split)));
      leaves.add(new ListLeaf(docs.subList(split, docs.size())));
      for (ParsedDocument d : docs) {
        String[] s = d.strings("color");
        for (String t : s == null ? new String[0] : s) {
          if (!terms.contains(t)) {
            terms.add(t);
          }
        }
      }
    }

    @Override
    public List<? extends Leaf> leaves() {
      return leaves;
    }

    @Override
    public KeywordDictionary dictionary(String field) {
      return new KeywordDictionary() {
        @Override
        public long size() {
          return terms.size();
        }

        @Override
        public String term(long ord) {
          return terms.get((int) ord);
        }
      };
    }

    private final class ListLeaf implements Leaf {
      private final List<ParsedDocument> docs;

      ListLeaf(List<ParsedDocument> docs) {
        this.docs = docs;
      }

      @Override
      public int maxDoc() {
        return docs.size();
      }

      @Override
      public OrdinalValues ordinals(String field) {
        return new OrdinalValues() {
          long[] ords;

          @Override
          public boolean advanceExact(int doc) {
            String[] s = docs.get(doc).strings(field);
            ords =
                s == null
                    ? new long[0]
                    : Arrays.stream(s).distinct().mapToLong(terms::indexOf).toArray();
            return ords.length > 0;
          }

          @Override
          public int count() {
            return ords.length;
          }

          @Override
          public long ord(int i) {
            return ords[i];
          }
        };
      }

      @Override
      public NumericValues numbers(String field) {
        return new NumericValues() {
          double[] d;
          long[] l;

          @Override
          public boolean advanceExact(int doc) {
            l = docs.get(doc).longs(field);
            d = docs.get(doc).doubles(field);
            if (l != null) {
              l = l.clone();
              Arrays.sort(l);
            }
            if (d != null) {
              d = d.clone();
              Arrays.sort(d);
            }
            return l != null || d != null;
          }

          @Override
          public int count() {
            return l != null ? l.length : d.length;
          }

          @Override
          public long longValue(int i) {
            return l[i];
          }

          @Override
          public double doubleValue(int i) {
            return l != null ? l[i] : d[i];
          }
        };
      }

      @Override
      public DocMatcher matcher(Query query) {
        Query.Term t = (Query.Term) query; // the tests filter on one keyword value
        return doc -> {
          String[] s = docs.get(doc).strings(t.field());
          return s != null && Arrays.asList(s).contains(t.value());
        };
      }

      @Override
      public Hit hit(int doc, float score) {
        return new Hit(docs.get(doc).id(), score, docs.get(doc).document());
      }
    }
  }

  private MatchSet all() {
    MatchSet.Builder b = new MatchSet.Builder();
    // Added out of order on purpose: the builder sorts.
    for (int i = docs.size() - 1; i >= 0; i--) {
      int leaf = i < 3 ? 0 : 1;
      b.add(leaf, leaf == 0 ? i : i - 3, 1f + i);
    }
    return b.build();
  }

  private Map<String, AggregationResult> run(String name, Aggregation a) throws IOException {
    Map<String, Aggregation> aggs = Map.of(name, a);
    AggregationChecks.check(aggs, MAPPING, new int[1], 1024);
    return Aggregations.compute(aggs, MAPPING, new TwoLeaves(), all());
  }

  private static List<String> keysAndCounts(AggregationResult r) {
    List<String> out = new ArrayList<>();
    for (Bucket b : ((Buckets) r).buckets()) {
      out.add(b.key() + "=" + b.docCount());
    }
    return out;
  }

  @Test
  void termsCountsDocumentsOncePerValueAndBreaksTiesByKey() throws IOException {
    catalogue();
    AggregationResult r = run("colors", Aggregation.Terms.of("color")).get("colors");
    // red 2, blue 2 (tie: "blue" < "red"), then green, Zebra 1 each ("Zebra" < "green" in UTF-8).
    assertEquals(List.of("blue=2", "red=2", "Zebra=1", "green=1"), keysAndCounts(r));
    assertEquals(0, ((Buckets) r).sumOtherDocCount());

    Aggregation.Terms two = new Aggregation.Terms("color", 2, 0, List.of(), 1, "none", Map.of());
    r = run("colors", two).get("colors");
    assertEquals(List.of("blue=2", "red=2"), keysAndCounts(r));
    assertEquals(3, ((Buckets) r).sumOtherDocCount()); // Zebra, green, and "none" for e

    Aggregation.Terms byKey =
        new Aggregation.Terms(
            "color", 10, 0, List.of(new Aggregation.BucketOrder("_key", false)), 1, null, Map.of());
    assertEquals(
        List.of("red=2", "green=1", "blue=2", "Zebra=1"),
        keysAndCounts(run("colors", byKey).get("colors")));
  }

  @Test
  void numericTermsCountRepeatedValuesOnceAndOrderBySubAggregation() throws IOException {
    catalogue();
    AggregationResult r = run("p", Aggregation.Terms.of("price")).get("p");
    // d has 5 twice: one document.
    assertEquals(List.of("5=1", "10=1", "25=1", "99=1", "120=1", "300=1"), keysAndCounts(r));
    Aggregation.Terms byAvg =
        new Aggregation.Terms(
            "color",
            10,
            0,
            List.of(new Aggregation.BucketOrder("avg_price", false)),
            1,
            null,
            Map.of("avg_price", new Aggregation.Metric(Aggregation.MetricKind.AVG, "price", null)));
    r = run("c", byAvg).get("c");
    // green: (5+300+5)/3 = 103.3; blue: (25+120)/2 = 72.5; red: 17.5; Zebra: no price, NaN,
    // which Elasticsearch sorts last in either direction.
    assertEquals(List.of("green=1", "blue=2", "red=2", "Zebra=1"), keysAndCounts(r).subList(0, 4));
    AggregationResult.Value avg =
        (AggregationResult.Value) ((Buckets) r).buckets().get(1).subAggregations().get("avg_price");
    assertEquals(72.5, avg.value());
  }

  @Test
  void rangesAreSortedKeyedAsElasticsearchAndCountEachDocumentOnce() throws IOException {
    catalogue();
    Aggregation.Range range =
        new Aggregation.Range(
            "price",
            List.of(
                new Aggregation.RangeSpec(null, 100.0, null),
                new Aggregation.RangeSpec(null, null, 100.0),
                new Aggregation.RangeSpec("mid", 20.0, 200.0)),
            false,
            Map.of());
    AggregationResult r = run("r", range).get("r");
    // d has 5 and 300: it counts once below 100 and once at or above 100.
    assertEquals(List.of("*-100.0=4", "mid=3", "100.0-*=2"), keysAndCounts(r));
  }

  @Test
  void histogramFillsGapsWithEmptyBucketsToTheExtendedBounds() throws IOException {
    catalogue();
    Aggregation.Histogram h =
        new Aggregation.Histogram("weight", 1.0, 0, 0, null, 4.0, false, Map.of());
    AggregationResult r = run("h", h).get("h");
    assertEquals(List.of("-1.0=1", "0.0=0", "1.0=1", "2.0=1", "3.0=0", "4.0=0"), keysAndCounts(r));
  }

  @Test
  void histogramGapsStepByWholeIntervalsWhenTheIntervalIsInexact() throws IOException {
    catalogue();
    // 5/3 is not exact in binary: rounding 10.0 + 5/3 gives 10.0 back. Every filled key must be
    // a real bucket key, one interval after the last: indexes 3 (5) to 180 (300), 178 buckets.
    double interval = 5.0 / 3;
    Aggregation.Histogram h =
        new Aggregation.Histogram("price", interval, 0, 0, null, null, false, Map.of());
    List<Bucket> buckets = ((Buckets) run("h", h).get("h")).buckets();
    assertEquals(178, buckets.size(), keysAndCounts(run("h", h).get("h")).toString());
    double last = Double.NEGATIVE_INFINITY;
    for (Bucket b : buckets) {
      double k = ((Number) b.key()).doubleValue();
      assertEquals(Math.floor(k / interval) * interval, k, 0.0, "a bucket key: " + k);
      assertTrue(k - last > interval / 2, last + " then " + k);
      last = k;
    }
  }

  @Test
  void dateHistogramRoundsByCalendarAndWritesKeysAsElasticsearch() throws IOException {
    catalogue();
    Aggregation.DateHistogram month =
        new Aggregation.DateHistogram(
            "when", "month", 0, null, null, 0, null, null, false, Map.of());
    Buckets r = (Buckets) run("m", month).get("m");
    assertEquals(
        List.of(
            "2024-01-01T00:00:00.000Z=2",
            "2024-02-01T00:00:00.000Z=0",
            "2024-03-01T00:00:00.000Z=1"),
        r.buckets().stream().map(b -> b.keyAsString() + "=" + b.docCount()).toList());
    Aggregation.DateHistogram berlin =
        new Aggregation.DateHistogram(
            "when", "day", 0, "Europe/Berlin", null, 1, null, null, false, Map.of());
    r = (Buckets) run("d", berlin).get("d");
    // 2024-01-31T23:59:59Z is already February 1st in Berlin.
    assertEquals(
        List.of(
            "2024-01-15T00:00:00.000+01:00",
            "2024-02-01T00:00:00.000+01:00",
            "2024-03-02T00:00:00.000+01:00"),
        r.buckets().stream().map(Bucket::keyAsString).toList());
  }

  @Test
  void metricsReadEveryValueAndDatesAndEmptySets() throws IOException {
    catalogue();
    AggregationResult.Stats s =
        (AggregationResult.Stats)
            run("s", new Aggregation.Metric(Aggregation.MetricKind.STATS, "price", null)).get("s");
    assertEquals(7, s.count()); // d's three values all count
    assertEquals(5.0, s.min());
    assertEquals(564.0, s.sum());
    AggregationResult.Value min =
        (AggregationResult.Value)
            run("w", new Aggregation.Metric(Aggregation.MetricKind.MIN, "when", null)).get("w");
    assertEquals("2024-01-15T10:00:00.000Z", min.valueAsString());
    AggregationResult.Count n =
        (AggregationResult.Count)
            run("n", new Aggregation.Metric(Aggregation.MetricKind.VALUE_COUNT, "color", null))
                .get("n");
    assertEquals(6, n.value()); // b has two distinct values
    docs.clear();
    add("x", "color", "red");
    AggregationResult.Value none =
        (AggregationResult.Value)
            run("m", new Aggregation.Metric(Aggregation.MetricKind.MAX, "price", null)).get("m");
    assertNull(none.value());
  }

  @Test
  void subAggregationsRunPerBucketAndFiltersSortByName() throws IOException {
    catalogue();
    Map<String, Query> named = new LinkedHashMap<>();
    named.put("reds", new Query.Term("color", "red", 1f));
    named.put("blues", new Query.Term("color", "blue", 1f));
    Aggregation.Filters f =
        new Aggregation.Filters(
            named, true, "_other_", Map.of("top", new Aggregation.TopHits(0, 1, List.of(), true)));
    Buckets r = (Buckets) run("f", f).get("f");
    assertEquals(List.of("blues=2", "reds=2", "_other_=3"), keysAndCounts(r));
    AggregationResult.TopHitsResult top =
        (AggregationResult.TopHitsResult) r.buckets().get(0).subAggregations().get("top");
    assertEquals("c", top.hits().get(0).id()); // the best-scoring blue document (score 3)
  }

  @Test
  void cardinalityIsExactUpToTheThresholdThenWithinItsError() throws IOException {
    for (int i = 0; i < 5000; i++) {
      add("d" + i, "color", "v" + (i % 4000), "price", (long) (i % 2500));
    }
    assertEquals(
        4000,
        ((AggregationResult.Count)
                run("c", new Aggregation.Cardinality("color", 4000, null)).get("c"))
            .value());
    long estimate =
        ((AggregationResult.Count)
                run("c", new Aggregation.Cardinality("color", 100, null)).get("c"))
            .value();
    double error = Cardinalities.relativeError(100);
    assertTrue(
        Math.abs(estimate - 4000) <= 4 * error * 4000,
        "estimate " + estimate + " of 4000 beyond 4 standard errors of " + error);
    assertEquals(
        2500,
        ((AggregationResult.Count)
                run("p", new Aggregation.Cardinality("price", 3000, null)).get("p"))
            .value());
  }

  @Test
  void bucketsBeyondTheLimitAreRefusedAsElasticsearchRefusesThem() {
    catalogue();
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class,
            () ->
                run(
                    "h",
                    new Aggregation.Histogram("price", 0.001, 0, 0, null, null, false, Map.of())));
    assertEquals("too_many_buckets_exception", e.type());
    e =
        assertThrows(
            InvalidRequestException.class,
            () ->
                run("t", new Aggregation.Terms("color", 70_000, 0, List.of(), 1, null, Map.of())));
    assertEquals("too_many_buckets_exception", e.type());
    e =
        assertThrows(
            InvalidRequestException.class,
            () ->
                run(
                    "t",
                    new Aggregation.Terms(
                        "color",
                        10,
                        0,
                        List.of(),
                        1,
                        null,
                        Map.of(
                            "x",
                            new Aggregation.Metric(Aggregation.MetricKind.MIN, "color", null)))));
    assertTrue(
        e.getMessage().contains("[keyword] is not supported for aggregation [min]"),
        e.getMessage());
  }
}
