package org.searchlab.core;

/**
 * Per-query overrides of the mutable store's filtered-vector plan thresholds, as fractions of the
 * corpus that pass the filter (Vespa's {@code ranking.matching.approximateThreshold} and {@code
 * filterFirstThreshold}). {@code NaN} means "use the index's configured value". A store that does
 * not choose plans by hit ratio ignores them. Immutable.
 *
 * @param approximate below this hit ratio the vector part is an exact scan; in [0, 1]
 * @param filterFirst below this hit ratio (and at or above {@code approximate}) the graph is
 *     explored filter-first; in [0, 1]
 */
public record FilterThresholds(double approximate, double filterFirst) {
  public static final FilterThresholds INDEX_DEFAULT = new FilterThresholds(Double.NaN, Double.NaN);

  public FilterThresholds {
    check("approximate threshold", approximate);
    check("filter-first threshold", filterFirst);
  }

  private static void check(String what, double v) {
    if (!Double.isNaN(v) && (v < 0 || v > 1)) {
      throw new InvalidRequestException(what + " " + v + " is outside [0, 1]");
    }
  }

  /** This override if set, else {@code indexDefault}. */
  public double approximateOr(double indexDefault) {
    return Double.isNaN(approximate) ? indexDefault : approximate;
  }

  public double filterFirstOr(double indexDefault) {
    return Double.isNaN(filterFirst) ? indexDefault : filterFirst;
  }
}
