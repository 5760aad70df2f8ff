// Over 500 lines: the random generator of every aggregation and sort the contract has, and the
// comparison of their results, kept in one suite so that every store and mapping runs exactly the
// same; what differs per mapping is in the subclasses' hooks.
package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.Aggregation.BucketOrder;
import org.searchlab.core.agg.AggregationResult;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.SortKey;

/**
 * The conformance suite of aggregations and sorts, over one mapping and corpus that a subclass
 * names ({@link BaseAggregationTestCase}: the catalog mapping; {@link
 * BaseProductAggregationTestCase}: the benchmark's product mapping); every store subclasses those
 * and passes them unchanged. Random requests (a query, then one to three aggregations of every type
 * with random options, bucket aggregations with sub-aggregations) must give the {@link ExactIndex}
 * oracle's results: the same buckets in the same order (ties by key), counts, keys and min, max and
 * counts exactly, sums and averages within a relative {@value #RELATIVE}; random sorts must give
 * the oracle's sort values hit for hit, and paging by {@code search_after} must walk the same
 * sequence. Seeds are printed; {@code -Dtests.seed} reproduces one.
 */
public abstract class AggregationTestCase {
  /** Sums and averages: the stores compensate their sums, the oracle does not. */
  protected static final double RELATIVE = 1e-9;

  @TempDir protected Path tmp;
  protected long seed;
  protected SplittableRandom random;
  private final List<SearchIndex> opened = new ArrayList<>();

  /** Opens the store under test in {@code dir} with {@code mapping}. */
  protected abstract SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException;

  // ---------------------------------------------------------------------------------------------
  // What a mapping's suite says

  /** Makes the corpus of this test from {@link #seed} (called before each test). */
  protected abstract void makeCorpus(long seed);

  protected abstract Mapping mapping();

  protected abstract IndexSettings settings();

  /**
   * {@code n} documents whose {@link #uniqueField()} values differ: a sort ending with it then has
   * one order, and ids can be compared.
   */
  protected abstract List<Document> documents(int n);

  /** A document with another's fields under {@code id} and a unique value of its own. */
  protected abstract Document replacement(Document fields, String id, int i);

  /** A numeric field every document has a different value of. */
  protected abstract String uniqueField();

  /** Keyword fields to aggregate. */
  protected abstract String[] keywords();

  /** Numeric fields to aggregate. */
  protected abstract String[] numbers();

  /** Fields to sort by. */
  protected abstract String[] sortable();

  /** Non-keyword fields for {@code terms}. */
  protected abstract String[] otherTermsFields();

  /** A keyword field some documents lack, with a {@code missing} value for it. */
  protected abstract String[] missingKeyword();

  /** A text field: aggregations and sorts on it are refused. */
  protected abstract String textField();

  /** The date field for {@code date_histogram}, or null when the mapping has none. */
  protected abstract String dateField();

  /**
   * A random numeric field with a range of typical values: {@code [field, scale]}, bounds are drawn
   * from 0 to the scale.
   */
  protected abstract Object[] rangeField();

  /** A random query for a {@code filter} aggregation. */
  protected abstract Query randomFilter();

  /**
   * A random search (its query and kNN part, without aggregations or sort), and whether every match
   * scores the same (then {@code _score} sorts are compared; other scores may differ in the last
   * bits between engines).
   */
  protected record RandomSearch(Supplier<SearchRequest.Builder> start, boolean constant) {}

  /**
   * @param sorted whether the search will name a sort (reciprocal rank fusion cannot be sorted)
   */
  protected abstract RandomSearch randomSearch(boolean sorted);

  // ---------------------------------------------------------------------------------------------
  // Fixture

  @BeforeEach
  void seedTest(TestInfo info) {
    seed = TestSeeds.seed(getClass().getSimpleName() + "." + info.getDisplayName());
    random = new SplittableRandom(seed);
    makeCorpus(seed);
  }

  @AfterEach
  void closeAll() throws IOException {
    for (SearchIndex i : opened) {
      try {
        i.close();
      } catch (IllegalStateException alreadyClosed) {
        // closed by the test itself
      }
    }
  }

  /** The store under test and the oracle, both fed {@code n} documents in batches of 200. */
  protected SearchIndex[] storeAndOracle(int n) throws IOException {
    List<Document> docs = documents(n);
    SearchIndex store = openIndex(tmp.resolve("idx"), settings(), mapping());
    opened.add(store);
    ExactIndex oracle = ExactIndex.open(tmp.resolve("oracle"), settings(), mapping());
    opened.add(oracle);
    for (SearchIndex index : List.of(store, oracle)) {
      for (int from = 0; from < docs.size(); from += 200) {
        List<Operation> ops = new ArrayList<>();
        for (Document d : docs.subList(from, Math.min(docs.size(), from + 200))) {
          ops.add(Operation.put(d));
        }
        for (BulkItemResult r : index.bulk(ops)) {
          assertFalse(r.failed(), () -> "bulk item failed: " + r.error());
        }
        index.refresh(); // several segments in a segmented store
      }
    }
    return new SearchIndex[] {store, oracle};
  }

  // ---------------------------------------------------------------------------------------------
  // Random requests

  protected String pick(String[] a) {
    return a[random.nextInt(a.length)];
  }

  protected Map<String, Aggregation> randomAggs(int depth) {
    Map<String, Aggregation> out = new LinkedHashMap<>();
    int n = 1 + random.nextInt(depth == 0 ? 3 : 2);
    for (int i = 0; i < n; i++) {
      out.put(
          "a" + depth + "_" + i,
          depth == 0 || random.nextInt(3) > 0 ? randomAgg(depth) : randomMetric());
    }
    return out;
  }

  private Map<String, Aggregation> subs(int depth) {
    if (depth >= 1 || random.nextInt(2) == 0) {
      return Map.of();
    }
    Map<String, Aggregation> out = new LinkedHashMap<>();
    out.put("m", randomMetric());
    if (random.nextInt(3) == 0) {
      out.put("inner", randomAgg(depth + 1));
    }
    return out;
  }

  private Aggregation randomAgg(int depth) {
    return switch (random.nextInt(depth == 0 ? 7 : 4)) {
      case 0 -> terms(depth);
      case 1 -> {
        Object[] f = rangeField();
        int scale = (Integer) f[1];
        List<Aggregation.RangeSpec> ranges = new ArrayList<>();
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
          Double from = random.nextInt(3) == 0 ? null : (double) random.nextInt(scale);
          Double to =
              random.nextInt(3) == 0 ? null : (from == null ? 0 : from) + random.nextInt(scale);
          ranges.add(new Aggregation.RangeSpec(random.nextInt(4) == 0 ? "k" + i : null, from, to));
        }
        yield new Aggregation.Range((String) f[0], ranges, random.nextInt(4) == 0, subs(depth));
      }
      case 2 -> {
        Object[] f = rangeField();
        int scale = (Integer) f[1];
        yield new Aggregation.Histogram(
            (String) f[0],
            random.nextBoolean() ? scale / 6.0 : scale / 24.0,
            random.nextInt(3) == 0 ? 1 : 0,
            random.nextInt(2),
            random.nextInt(4) == 0 ? -scale / 3.0 : null,
            random.nextInt(4) == 0 ? scale * 10.0 : null,
            false,
            subs(depth));
      }
      case 3 -> {
        if (dateField() == null) {
          yield terms(depth);
        }
        String cal =
            random.nextInt(3) == 0
                ? null
                : pick(new String[] {"month", "1w", "quarter", "year", "day"});
        yield new Aggregation.DateHistogram(
            dateField(),
            cal,
            cal == null ? 30L * 86_400_000 : 0,
            random.nextBoolean() ? "UTC" : "Europe/Berlin",
            null,
            random.nextInt(2),
            null,
            null,
            false,
            subs(depth));
      }
      case 4 -> new Aggregation.Filter(randomFilter(), subs(depth));
      case 5 -> {
        Map<String, Query> f = new LinkedHashMap<>();
        f.put("z", randomFilter());
        f.put("b", randomFilter());
        yield new Aggregation.Filters(
            f, random.nextBoolean(), random.nextBoolean() ? "_other_" : null, subs(depth));
      }
      default -> terms(depth);
    };
  }

  private Aggregation terms(int depth) {
    String field = random.nextInt(3) == 0 ? pick(otherTermsFields()) : pick(keywords());
    Map<String, Aggregation> subs = subs(depth);
    List<BucketOrder> order = new ArrayList<>();
    switch (random.nextInt(5)) {
      case 0 -> order.add(BucketOrder.KEY_ASC);
      case 1 -> order.add(new BucketOrder("_key", false));
      case 2 -> order.add(new BucketOrder("_count", true));
      case 3 -> {
        if (subs.get("m") instanceof Aggregation.Metric m
            && m.kind() != Aggregation.MetricKind.STATS) {
          order.add(new BucketOrder("m", random.nextBoolean()));
        }
      }
      default -> {}
    }
    String[] missing = missingKeyword();
    Object missingValue = random.nextInt(4) == 0 && field.equals(missing[0]) ? missing[1] : null;
    return new Aggregation.Terms(
        field, 1 + random.nextInt(8), 0, order, 1 + random.nextInt(2), missingValue, subs);
  }

  private Aggregation randomMetric() {
    return switch (random.nextInt(5)) {
      case 0 ->
          new Aggregation.Cardinality(
              random.nextBoolean() ? pick(keywords()) : pick(numbers()), 3000, null);
      case 1 -> new Aggregation.Metric(Aggregation.MetricKind.VALUE_COUNT, pick(keywords()), null);
      case 2 ->
          new Aggregation.TopHits(
              0,
              1 + random.nextInt(3),
              List.of(new SortKey(uniqueField(), false, false, null)),
              true);
      case 3 ->
          new Aggregation.Metric(
              Aggregation.MetricKind.STATS,
              random.nextBoolean() && dateField() != null ? dateField() : pick(numbers()),
              null);
      default ->
          new Aggregation.Metric(
              Aggregation.MetricKind.values()[random.nextInt(4)],
              pick(numbers()),
              random.nextInt(5) == 0 ? 7 : null);
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Comparison

  protected void assertAggs(
      Map<String, AggregationResult> want, Map<String, AggregationResult> got, String path) {
    assertEquals(want.keySet(), got.keySet(), path + ": names, seed " + seed);
    for (String name : want.keySet()) {
      assertAgg(want.get(name), got.get(name), path + ">" + name);
    }
  }

  private void assertAgg(AggregationResult want, AggregationResult got, String path) {
    String where = path + ", seed " + seed;
    assertNotNull(got, where);
    assertEquals(want.getClass(), got.getClass(), where);
    switch (want) {
      case AggregationResult.Buckets w -> {
        AggregationResult.Buckets g = (AggregationResult.Buckets) got;
        assertEquals(
            w.buckets().stream().map(b -> b.key() + "=" + b.docCount()).toList(),
            g.buckets().stream().map(b -> b.key() + "=" + b.docCount()).toList(),
            where);
        assertEquals(w.sumOtherDocCount(), g.sumOtherDocCount(), where + ": sum_other_doc_count");
        assertEquals(w.keyed(), g.keyed(), where);
        for (int i = 0; i < w.buckets().size(); i++) {
          var wb = w.buckets().get(i);
          var gb = g.buckets().get(i);
          assertEquals(wb.keyAsString(), gb.keyAsString(), where + "[" + i + "] key_as_string");
          assertEquals(wb.from(), gb.from(), where);
          assertEquals(wb.to(), gb.to(), where);
          assertAggs(wb.subAggregations(), gb.subAggregations(), path + "[" + wb.key() + "]");
        }
      }
      case AggregationResult.SingleBucket w -> {
        AggregationResult.SingleBucket g = (AggregationResult.SingleBucket) got;
        assertEquals(w.docCount(), g.docCount(), where);
        assertAggs(w.subAggregations(), g.subAggregations(), path);
      }
      case AggregationResult.Value w -> {
        AggregationResult.Value g = (AggregationResult.Value) got;
        assertEquals(w.type(), g.type(), where);
        if (w.value() == null || w.type().equals("min") || w.type().equals("max")) {
          assertEquals(w.value(), g.value(), where);
          assertEquals(w.valueAsString(), g.valueAsString(), where);
        } else {
          assertClose(w.value(), g.value(), where);
        }
      }
      case AggregationResult.Count w ->
          assertEquals(w.value(), ((AggregationResult.Count) got).value(), where);
      case AggregationResult.Stats w -> {
        AggregationResult.Stats g = (AggregationResult.Stats) got;
        assertEquals(w.count(), g.count(), where);
        assertEquals(w.min(), g.min(), where);
        assertEquals(w.max(), g.max(), where);
        assertClose(w.sum(), g.sum(), where);
      }
      case AggregationResult.TopHitsResult w -> {
        AggregationResult.TopHitsResult g = (AggregationResult.TopHitsResult) got;
        assertEquals(w.total(), g.total(), where);
        assertEquals(
            w.hits().stream().map(Hit::id).toList(),
            g.hits().stream().map(Hit::id).toList(),
            where);
        for (Hit h : g.hits()) {
          assertNotNull(h.document(), where + ": top_hits carry their documents");
        }
      }
    }
  }

  private static void assertClose(double want, double got, String where) {
    assertTrue(
        Math.abs(want - got) <= RELATIVE * Math.max(1, Math.abs(want)),
        where + ": " + got + ", expected " + want);
  }

  // ---------------------------------------------------------------------------------------------
  // Tests

  @Test
  public void randomAggregationsEqualTheOracle() throws IOException {
    SearchIndex[] both = storeAndOracle(500);
    for (int round = 0; round < 60; round++) {
      SearchRequest r =
          randomSearch(false)
              .start()
              .get()
              .hits(random.nextInt(3))
              .aggregations(randomAggs(0))
              .fetchDocuments(true)
              .build();
      String where = "round " + round + " " + r;
      SearchResult[] wantGot = searchBoth(both, r, where);
      if (wantGot == null) {
        continue;
      }
      assertEquals(wantGot[0].total(), wantGot[1].total(), where + ", seed " + seed);
      assertAggs(wantGot[0].aggregations(), wantGot[1].aggregations(), where);
    }
  }

  /**
   * The oracle's and the store's answers to {@code r}, or null when the oracle refuses it and the
   * store refuses it the same way. A random request can ask for more buckets than Elasticsearch's
   * {@code search.max_buckets} (a day histogram over years, each with an extended-bounds histogram
   * inside): the limit is part of the contract, so the store must refuse exactly those.
   */
  protected SearchResult[] searchBoth(SearchIndex[] both, SearchRequest r, String where)
      throws IOException {
    SearchResult want;
    try {
      want = both[1].search(r);
    } catch (InvalidRequestException refused) {
      InvalidRequestException got =
          assertThrows(
              InvalidRequestException.class,
              () -> both[0].search(r),
              where + ": the oracle refused it (" + refused.getMessage() + "), seed " + seed);
      assertEquals(refused.type(), got.type(), where + ", seed " + seed);
      return null;
    }
    return new SearchResult[] {want, both[0].search(r)};
  }

  @Test
  public void aggregationsSkipDeletedAndReplacedDocuments() throws IOException {
    SearchIndex[] both = storeAndOracle(300);
    List<Document> again = documents(300);
    for (SearchIndex index : both) {
      for (int i = 0; i < 300; i += 3) {
        index.delete(again.get(i).id());
      }
      for (int i = 1; i < 300; i += 7) {
        // Another document's fields under this id, with a unique value of its own: unique values
        // stay unique, so top_hits sorted by them has one order.
        index.put(replacement(again.get((i * 13) % 300), again.get(i).id(), i));
      }
      index.refresh();
    }
    for (int round = 0; round < 20; round++) {
      SearchRequest r =
          randomSearch(false).start().get().hits(0).aggregations(randomAggs(0)).build();
      String where = "round " + round + " " + r;
      SearchResult[] wantGot = searchBoth(both, r, where);
      if (wantGot != null) {
        assertAggs(wantGot[0].aggregations(), wantGot[1].aggregations(), where);
      }
    }
  }

  @Test
  public void sortsAndSearchAfterPagesEqualTheOracle() throws IOException {
    SearchIndex[] both = storeAndOracle(400);
    for (int round = 0; round < 25; round++) {
      RandomSearch q = randomSearch(true);
      // _score only over constant-score queries, whose scores the stores give bit for bit.
      List<SortKey> keys = new ArrayList<>();
      for (int i = 0, n = 1 + random.nextInt(2); i < n; i++) {
        String field = q.constant() && random.nextInt(5) == 0 ? SortKey.SCORE : pick(sortable());
        keys.add(
            new SortKey(
                field,
                random.nextBoolean(),
                random.nextInt(3) == 0,
                random.nextInt(3) == 0 ? "max" : null));
      }
      // A unique last key: the order is then total and ids must match too.
      boolean total = random.nextBoolean();
      if (total) {
        keys.add(new SortKey(uniqueField(), random.nextBoolean(), false, null));
      }
      SearchRequest all = q.start().get().hits(400).sort(keys).build();
      List<Hit> want = both[1].search(all).hits();
      List<Hit> got = both[0].search(all).hits();
      String where = "round " + round + " sort " + keys + ", seed " + seed;
      assertSameSort(want, got, total, where);
      // Walk the same sequence a page at a time through search_after.
      List<Hit> paged = new ArrayList<>();
      List<Object> after = List.of();
      for (int page = 0; page < 100; page++) {
        SearchResult p =
            both[0].search(q.start().get().hits(37).sort(keys).searchAfter(after).build());
        if (p.hits().isEmpty()) {
          break;
        }
        paged.addAll(p.hits());
        after = p.hits().get(p.hits().size() - 1).sortValues();
      }
      if (total) {
        assertSameSort(want, paged, true, where + " paged");
      } else {
        // Ties at a page boundary are skipped by search_after, as in Elasticsearch.
        assertTrue(
            paged.size() <= want.size(),
            where
                + ": paged "
                + paged.size()
                + " of "
                + want.size()
                + " "
                + paged.stream().map(Hit::sortValues).toList());
      }
    }
  }

  private static void assertSameSort(List<Hit> want, List<Hit> got, boolean ids, String where) {
    assertEquals(want.size(), got.size(), where + ": hits");
    for (int i = 0; i < want.size(); i++) {
      List<Object> w = want.get(i).sortValues();
      List<Object> g = got.get(i).sortValues();
      assertEquals(w.size(), g.size(), where);
      for (int k = 0; k < w.size(); k++) {
        if (w.get(k) instanceof Float x && g.get(k) instanceof Float y) {
          assertEquals(
              x,
              y,
              SearchAssertions.SCORE_TOLERANCE * Math.max(1, Math.abs(x)),
              where + " [" + i + "]");
        } else {
          assertEquals(w.get(k), g.get(k), where + " [" + i + "] key " + k);
        }
      }
      if (ids) {
        assertEquals(want.get(i).id(), got.get(i).id(), where + " [" + i + "]");
      }
    }
  }

  @Test
  public void badAggregationsAndSortsAreRefusedAsElasticsearchRefusesThem() throws IOException {
    SearchIndex[] both = storeAndOracle(20);
    SearchIndex store = both[0];
    String text = textField();
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class,
            () ->
                store.search(
                    SearchRequest.builder()
                        .aggregations(Map.of("t", Aggregation.Terms.of(text)))
                        .build()));
    assertTrue(
        e.getMessage().startsWith("Fielddata is disabled on [" + text + "]"), e.getMessage());
    String number = (String) rangeField()[0];
    e =
        assertThrows(
            InvalidRequestException.class,
            () ->
                store.search(
                    SearchRequest.builder()
                        .aggregations(
                            Map.of(
                                "h",
                                new Aggregation.Histogram(
                                    number, 1e-6, 0, 0, null, null, false, Map.of())))
                        .build()));
    assertEquals("too_many_buckets_exception", e.type());
    e =
        assertThrows(
            InvalidRequestException.class,
            () ->
                store.search(
                    SearchRequest.builder()
                        .sort(List.of(new SortKey(text, true, false, null)))
                        .build()));
    assertTrue(
        e.getMessage().startsWith("Fielddata is disabled on [" + text + "]"), e.getMessage());
  }
}
