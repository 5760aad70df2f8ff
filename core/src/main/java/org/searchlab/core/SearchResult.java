package org.searchlab.core;

import java.util.List;

/**
 * The answer to a {@link SearchRequest}. Immutable.
 *
 * @param hits the hits after offset, best first; ties in any order
 * @param total how many documents matched (the union of both parts for hybrid)
 * @param plan the plan used per part
 * @param timings where the time went
 */
public record SearchResult(List<Hit> hits, TotalHits total, QueryPlan plan, Timings timings) {
  public SearchResult {
    hits = List.copyOf(hits);
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
