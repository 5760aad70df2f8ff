package org.searchlab.core;

/**
 * How many documents matched: an exact count, or a lower bound once counting stopped (Elasticsearch
 * {@code hits.total} with relation {@code eq} or {@code gte}).
 *
 * @param value the count or the lower bound
 * @param exact true for {@code eq}, false for {@code gte}
 */
public record TotalHits(long value, boolean exact) {
  public static TotalHits exact(long value) {
    return new TotalHits(value, true);
  }

  public static TotalHits atLeast(long value) {
    return new TotalHits(value, false);
  }

  /** Elasticsearch's relation name. */
  public String relation() {
    return exact ? "eq" : "gte";
  }
}
