package org.searchlab.mutable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.ProductShape;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.agg.Aggregations;
import org.searchlab.core.agg.MatchSet;
import org.searchlab.core.agg.Sorting;
import org.searchlab.core.mapping.Mapping;

/**
 * The second half of the product store's searches that need every match (aggregations, sorts):
 * given every match in ranking order ({@link Searcher.Ranked}), reads each one's row of attribute
 * columns once, keeps those whose row passes the filter, and aggregates and sorts them through the
 * shared engine ({@link Aggregations#apply}) over a {@link ColumnAggregationSource}. Stateless.
 */
final class EveryMatchSearch {
  private EveryMatchSearch() {}

  /**
   * The request without its aggregations and sort, the shape the product store's plans read; it
   * must have the benchmark's shape.
   *
   * @throws InvalidRequestException when it has not
   */
  static SearchRequest withoutAggregationsAndSort(SearchRequest r) {
    SearchRequest plain = r.withoutAggregationsAndSort();
    if (ProductShape.of(plain).isEmpty()) {
      throw new InvalidRequestException(
          "the mutable store's index of the benchmark's product mapping aggregates and sorts the"
              + " matches of the benchmark's request shape only (best_fields over title and"
              + " description, knn on embedding, term on category and range on price filters);"
              + " this request has another");
    }
    return plain;
  }

  /**
   * Aggregates and sorts every match and returns the page.
   *
   * @param filter the request's filter, checked again on each match's row: a match that a
   *     concurrent in-place write moved out of it after the filter was first asked is left out, so
   *     membership and values come from the same row
   * @param category the filter's category ordinal, or {@link
   *     org.searchlab.mutable.attributes.AttributeStore#NO_CATEGORY}
   * @param limit the ids' limit at the search's start
   */
  static SearchResult finish(
      SearchRequest request,
      IndexParts parts,
      Mapping mapping,
      Filter filter,
      int category,
      int limit,
      Searcher.Ranked ranked,
      long start) {
    int n = ranked.docs().length;
    // By local id, keeping each match's rank: the rows are read in id order (the columns' order)
    // and the source looks them up by id.
    long[] byDoc = new long[n];
    for (int i = 0; i < n; i++) {
      byDoc[i] = ((long) ranked.docs()[i] << 32) | i;
    }
    Arrays.sort(byDoc);
    int[] docs = new int[n];
    int[] categories = new int[n];
    int[] prices = new int[n];
    float[] ratings = new float[n];
    boolean[] kept = new boolean[n];
    int count = 0;
    for (long key : byDoc) {
      int doc = (int) (key >>> 32);
      parts.attributes.readRow(doc, count, categories, prices, ratings);
      if (passes(filter, category, categories[count], prices[count])) {
        docs[count++] = doc;
        kept[(int) key] = true;
      }
    }
    MatchSet.Builder b = new MatchSet.Builder();
    for (int i = 0; i < n; i++) {
      if (kept[i]) {
        b.add(0, ranked.docs()[i], ranked.scores()[i]);
      }
    }
    ColumnAggregationSource source =
        new ColumnAggregationSource(
            parts, mapping, limit, docs, categories, prices, ratings, count);
    Aggregations.Outcome outcome;
    try {
      outcome = Aggregations.apply(request, mapping, source, b.build());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // reads of the heap only; never thrown
    }
    int from = request.offset();
    int to = request.offset() + request.hits();
    List<Hit> page = new ArrayList<>();
    if (outcome.sorted() != null) {
      List<Sorting.Sorted> sorted = outcome.sorted();
      for (int i = from; i < Math.min(to, sorted.size()); i++) {
        Sorting.Sorted x = sorted.get(i);
        page.add(hit(request, parts, x.doc(), x.score(), x.values()));
      }
    } else {
      for (int i = 0, rank = 0; i < n && rank < to; i++) {
        if (kept[i] && rank++ >= from) {
          page.add(hit(request, parts, ranked.docs()[i], ranked.scores()[i], null));
        }
      }
    }
    int track = request.trackTotalHitsUpTo();
    TotalHits total =
        request.query() != null && count > track
            ? TotalHits.atLeast(track)
            : TotalHits.exact(count);
    return new SearchResult(
        page,
        total,
        ranked.plan(),
        new Timings(System.nanoTime() - start, 0, 0, 0),
        outcome.aggregations());
  }

  private static boolean passes(Filter filter, int categoryOrdinal, int category, int price) {
    return (filter.category() == null || category == categoryOrdinal)
        && (filter.price() == null || filter.price().contains(price));
  }

  /** A hit, with its document when the request asks (read inside the search's guard). */
  private static Hit hit(
      SearchRequest r, IndexParts parts, int local, float score, List<Object> sortValues) {
    String id = parts.ids.external(local);
    assert id != null : "visible local id " + local + " has no external id";
    return new Hit(id, score, r.fetchDocuments() ? parts.document(local) : null, sortValues);
  }
}
