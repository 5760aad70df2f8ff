package org.searchlab.core.agg;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;
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
