package org.searchlab.server.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Filter;
import org.searchlab.core.ProductShape;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Query.Bool;
import org.searchlab.core.query.Query.Range;
import org.searchlab.core.query.Query.Term;
import org.searchlab.core.query.SortKey;

/**
 * The rewrites that let the product-shaped stores run equivalent general requests: each gives a
 * request of the benchmark's shape with the same matches, and the constant score the original gives
 * every match; requests with no equivalent are left alone.
 */
class ProductShapeBridgeTest {
  private static final Mapping PRODUCT = Mapping.product(2);
  private static final float[] V = {0.6f, 0.8f};
  private static final Query TEXT =
      Query.MultiMatch.bestFields("red", List.of("title", "description"));

  private static SearchRequest req(Query q, Knn... knn) {
    return SearchRequest.builder().query(q).knn(List.of(knn)).build();
  }

  private static Knn knn(Query filter) {
    return new Knn("embedding", V, 5, 10, filter, null, 1f, 0);
  }

  private static ProductShapeBridge.Rewrite rewrite(SearchRequest r) {
    Optional<ProductShapeBridge.Rewrite> w = ProductShapeBridge.rewrite(r, PRODUCT);
    assertTrue(w.isPresent(), "expected a rewrite of " + r);
    assertTrue(ProductShape.of(w.get().request()).isPresent());
    return w.get();
  }

  private static Filter filter(ProductShapeBridge.Rewrite w) {
    return ProductShape.of(w.request()).orElseThrow().filter();
  }

  @Test
  void rangesOfAnyFormBecomeTheInclusiveIntegerRange() {
    ProductShapeBridge.Rewrite w =
        rewrite(req(new Range("price", 9.5, null, "20.5", null, null, 1f)));
    assertEquals(Filter.ALL.withPrice(new Filter.PriceRange(10, 20)), filter(w));
    assertEquals(1f, w.score(), "a range scores its boost");
    assertEquals(RankProfile.UNRANKED, ProductShape.of(w.request()).orElseThrow().profile());
    assertEquals(
        Filter.ALL.withPrice(Filter.PriceRange.EMPTY),
        filter(rewrite(req(new Range("price", null, "9223372036854775808", null, null, null, 1f)))),
        "a bound beyond every integer selects nothing");
    assertEquals(
        Filter.ALL.withPrice(new Filter.PriceRange(Integer.MIN_VALUE, -1)),
        filter(rewrite(req(new Range("price", null, null, 0L, null, null, 3f)))));
  }

  @Test
  void aBoolOfFiltersScoresZero() {
    Query q =
        new Bool(
            List.of(),
            List.of(
                Term.of("category", "shoes"),
                new Range("price", null, 10L, null, null, null, 1f),
                new Range("price", null, null, null, 99L, null, 1f)),
            List.of(),
            List.of(),
            null,
            2f);
    ProductShapeBridge.Rewrite w = rewrite(req(q));
    assertEquals(Filter.category("shoes").withPrice(new Filter.PriceRange(10, 99)), filter(w));
    assertEquals(0f, w.score(), "Lucene: a bool of filter clauses only scores 0");
  }

  @Test
  void contradictoryFiltersSelectNothing() {
    Query q =
        new Bool(
            List.of(),
            List.of(Term.of("category", "shoes"), Term.of("category", "games")),
            List.of(),
            List.of(),
            null,
            1f);
    assertTrue(filter(rewrite(req(q))).price().isEmpty());
  }

  @Test
  void knnFiltersAndTheLexicalShape() {
    Query list =
        new Bool(List.of(), List.of(Term.of("category", "shoes")), List.of(), List.of(), null, 1f);
    ProductShapeBridge.Rewrite vector = rewrite(req(null, knn(list)));
    assertEquals(Filter.category("shoes"), filter(vector));
    assertNull(vector.score(), "kNN scores are the store's");
    Query filtered =
        new Bool(
            List.of(TEXT),
            List.of(new Range("price", 5L, null, null, null, null, 1f)),
            List.of(),
            List.of(),
            null,
            1f);
    ProductShapeBridge.Rewrite hybrid =
        rewrite(req(filtered, knn(new Range("price", null, 6L, null, null, null, 1f))));
    assertEquals(RankProfile.HYBRID, ProductShape.of(hybrid.request()).orElseThrow().profile());
    assertEquals(Filter.ALL.withPrice(new Filter.PriceRange(6, Integer.MAX_VALUE)), filter(hybrid));
  }

  @Test
  void requestsWithoutAnEquivalentAreLeftAlone() {
    for (SearchRequest r :
        List.of(
            req(Query.Match.of("title", "red")),
            req(Term.of("category", "shoes")), // scored by BM25, not constant
            req(
                new Bool(
                    List.of(),
                    List.of(Term.of("category", "a")),
                    List.of(),
                    List.of(Term.of("category", "b")),
                    null,
                    1f)),
            req(TEXT, knn(Term.of("category", "a"))), // the two parts' filters differ
            req(new Range("price", null, 1L, null, null, null, 1f), knn(Query.MatchAll.INSTANCE)),
            req(null, new Knn("embedding", V, 5, 10, Query.MatchAll.INSTANCE, 0.5f, 1f, 0)),
            req(new Query.Exists("price", 1f)))) {
      assertTrue(ProductShapeBridge.rewrite(r, PRODUCT).isEmpty(), r.toString());
    }
  }

  @Test
  void requestsThatNeedEveryMatchKeepTheirAggregationsAndSortThroughARewrite() {
    Map<String, Aggregation> aggs = Map.of("c", Aggregation.Terms.of("category"));
    List<SortKey> sort = List.of(new SortKey("price", true, false, null));
    SearchRequest r =
        SearchRequest.builder()
            .query(new Range("price", null, 10L, null, null, null, 1f))
            .aggregations(aggs)
            .sort(sort)
            .searchAfter(List.of(12L))
            .build();
    SearchRequest w = ProductShapeBridge.everyMatch(r, PRODUCT);
    assertEquals(aggs, w.aggregations());
    assertEquals(sort, w.sort());
    assertEquals(List.of(12L), w.searchAfter());
    ProductShape shape = ProductShape.of(w.withoutAggregationsAndSort()).orElseThrow();
    assertEquals(
        Filter.ALL.withPrice(new Filter.PriceRange(10, Integer.MAX_VALUE)), shape.filter());
    assertEquals(RankProfile.UNRANKED, shape.profile(), "a range scores 1, as the store's filter");
    // A bool of filters scores 0, not the store's 1: a _score sort or top_hits would differ.
    SearchRequest zero =
        SearchRequest.builder()
            .query(
                new Bool(
                    List.of(), List.of(Term.of("category", "a")), List.of(), List.of(), null, 1f))
            .aggregations(aggs)
            .build();
    assertSame(zero, ProductShapeBridge.everyMatch(zero, PRODUCT));
    // The benchmark's own shape is left as it is.
    SearchRequest text = SearchRequest.builder().text("red").aggregations(aggs).build();
    assertSame(text, ProductShapeBridge.everyMatch(text, PRODUCT));
  }
}
