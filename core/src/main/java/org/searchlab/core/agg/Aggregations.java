package org.searchlab.core.agg;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.mapping.Mapping;

/**
 * Computes a search's aggregations over the documents it matched: the one implementation of the
 * aggregations' semantics both stores run, each reading its own values through an {@link
 * AggregationSource} (per-segment doc values with global ordinals, or columns over the whole
 * index). Bucket aggregations count in one pass over the matches; sub-aggregations then run on each
 * returned bucket's documents, as Elasticsearch's {@code breadth_first} collection does, so only
 * the buckets that are returned (or ordered by a sub-aggregation) hold documents. Stateless and
 * thread-safe; one call per search.
 */
public final class Aggregations {
  private Aggregations() {}

  /**
   * The results of {@code aggs} over {@code matches}, by name in request order.
   *
   * @param mapping the mapping the search ran against (field types decide how values read)
   * @throws InvalidRequestException {@code too_many_buckets_exception} when the response would hold
   *     more than {@link Aggregation#MAX_BUCKETS} buckets
   */
  public static Map<String, AggregationResult> compute(
      Map<String, Aggregation> aggs, Mapping mapping, AggregationSource source, MatchSet matches)
      throws IOException {
    if (aggs.isEmpty()) {
      return Map.of();
    }
    return new AggregationEngine(mapping, source).all(aggs, matches);
  }

  /**
   * What a search that needs every match reports from them: its aggregations, and its hits in the
   * request's sort order when it names a sort.
   *
   * @param aggregations by name in request order
   * @param sorted the first {@code offset + hits} matches in sort order after {@code search_after},
   *     or null when the request names no sort (the store's ranking by score stands)
   */
  public record Outcome(Map<String, AggregationResult> aggregations, List<Sorting.Sorted> sorted) {}

  /**
   * The aggregations of {@code request} over {@code matches} ({@link #compute}) and, when it is
   * sorted, its first {@code offset + hits} matches in sort order ({@link Sorting#top}): what a
   * store without collectors of its own (the mutable store) runs once it has every match.
   */
  public static Outcome apply(
      SearchRequest request, Mapping mapping, AggregationSource source, MatchSet matches)
      throws IOException {
    Map<String, AggregationResult> aggs = compute(request.aggregations(), mapping, source, matches);
    List<Sorting.Sorted> sorted =
        request.sorted()
            ? Sorting.top(
                request.sort(),
                request.searchAfter(),
                mapping,
                source,
                matches,
                request.offset() + request.hits())
            : null;
    return new Outcome(aggs, sorted);
  }

  /** Elasticsearch's error for a response with too many buckets. */
  static InvalidRequestException tooManyBuckets(long count) {
    return new InvalidRequestException(
        "too_many_buckets_exception",
        "Trying to create too many buckets. Must be less than or equal to: ["
            + Aggregation.MAX_BUCKETS
            + "] but was ["
            + count
            + "]. This limit can be set by changing the [search.max_buckets] cluster level"
            + " setting.");
  }

  /** A copy of a result map keeping its order, for callers that build one by hand. */
  static Map<String, AggregationResult> ordered(Map<String, AggregationResult> m) {
    return java.util.Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }
}
