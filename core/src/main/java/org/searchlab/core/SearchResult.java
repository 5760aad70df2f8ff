package org.searchlab.core;

import java.util.List;
import java.util.Map;
import org.searchlab.core.agg.AggregationResult;

/**
 * The answer to a {@link SearchRequest}. Immutable.
 *
 * @param hits the hits after offset, best first; ties in any order
 * @param total how many documents matched (the union of both parts for hybrid)
 * @param plan the plan used per part
 * @param timings where the time went
 * @param aggregations the request's aggregations' results, by name in request order
 */
public record SearchResult(
    List<Hit> hits,
    TotalHits total,
    QueryPlan plan,
    Timings timings,
    Map<String, AggregationResult> aggregations) {
  /** A result without aggregations. */
  public SearchResult(List<Hit> hits, TotalHits total, QueryPlan plan, Timings timings) {
    this(hits, total, plan, timings, Map.of());
  }

  public SearchResult {
    hits = List.copyOf(hits);
    aggregations =
        aggregations == null || aggregations.isEmpty()
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(aggregations));
  }

  /** This result with aggregations' results. */
  public SearchResult withAggregations(Map<String, AggregationResult> aggs) {
    return new SearchResult(hits, total, plan, timings, aggs);
  }

  /** The best score, or NaN when there are no hits. */
  public float maxScore() {
    return hits.isEmpty() ? Float.NaN : hits.get(0).score();
  }

  /** The ids of the hits, in order. */
  public List<String> ids() {
    return hits.stream().map(Hit::id).toList();
  }
}
