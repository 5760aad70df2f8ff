package org.searchlab.mutable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
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
import org.searchlab.mutable.postings.TopHits;

/**
 * The second half of the product store's searches that need every match (aggregations, sorts):
 * given every match in id order ({@link Searcher.Matches}), reads each one's row of attribute
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
   * Aggregates and sorts every match and returns the page. The matches come in id order, the
   * columns' order, so each row is read once in order; without a sort only the page's {@code offset
   * + hits} best matches are ranked (a heap of that size, not a sort of every match).
   *
   * @param filter the request's filter, checked again on each match's row: a match that a
   *     concurrent in-place write moved out of it after the filter was first asked is left out, so
   *     membership and values come from the same row
   * @param category the filter's category ordinal, or {@link
   *     org.searchlab.mutable.attributes.AttributeStore#NO_CATEGORY}
   * @param limit the ids' limit at the search's start
   * @param matches every match, in increasing id order
   */
  static SearchResult finish(
      SearchRequest request,
      IndexParts parts,
      Mapping mapping,
      Filter filter,
      int category,
      int limit,
      Searcher.Matches matches,
      long start) {
    int n = matches.count();
    int[] docs = new int[n];
    float[] scores = new float[n];
    int[] categories = new int[n];
    int[] prices = new int[n];
    float[] ratings = new float[n];
    int count = 0;
    for (int i = 0; i < n; i++) {
      int doc = matches.docs()[i];
      parts.attributes.readRow(doc, count, categories, prices, ratings);
      if (passes(filter, category, categories[count], prices[count])) {
        docs[count] = doc;
        scores[count++] = matches.scores()[i];
      }
    }
    MatchSet set = MatchSet.ofLeaf(0, docs, scores, count);
    ColumnAggregationSource source =
        new ColumnAggregationSource(
            parts, mapping, limit, docs, categories, prices, ratings, count);
    Aggregations.Outcome outcome;
    try {
      outcome = Aggregations.apply(request, mapping, source, set);
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
    } else if (from < Math.min(to, count)) {
      // Best first, equal scores by lower id: the top-k path's order.
      TopHits top = new TopHits(Math.min(to, count));
      for (int i = 0; i < count; i++) {
        top.insert(docs[i], scores[i]);
      }
      TopHits.Sorted best = top.sorted();
      for (int i = from; i < best.size(); i++) {
        page.add(hit(request, parts, best.docs()[i], best.scores()[i], null));
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
        matches.plan(),
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
