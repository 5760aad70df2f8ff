package org.searchlab.core.agg;

import java.util.Map;

/**
 * Reads the value a terms bucket is ordered by when its {@code order} names a sub-aggregation:
 * {@code "avg_price"} (a single-value metric), {@code "price_stats.max"} (one value of {@code
 * stats}), {@code "ids.value"}. An empty bucket's {@code min} is +∞, its {@code max} −∞ and its
 * {@code avg} NaN, as Elasticsearch's internal values are, so empty buckets sort where its do.
 * Stateless.
 */
final class SubOrder {
  private SubOrder() {}

  /** The sub-aggregation a path names: the part before its first dot. */
  static String name(String path) {
    int dot = path.indexOf('.');
    return dot < 0 ? path : path.substring(0, dot);
  }

  /** The metric of the path after its dot, or null for the aggregation's one value. */
  static String metric(String path) {
    int dot = path.indexOf('.');
    return dot < 0 ? null : path.substring(dot + 1);
  }

  static double value(String path, Map<String, AggregationResult> subs) {
    AggregationResult r = subs.get(name(path));
    String metric = metric(path);
    return switch (r) {
      case AggregationResult.Value v ->
          v.value() != null
              ? v.value()
              : switch (v.type()) {
                case "min" -> Double.POSITIVE_INFINITY;
                case "max" -> Double.NEGATIVE_INFINITY;
                case "sum" -> 0;
                default -> Double.NaN;
              };
      case AggregationResult.Count c -> c.value();
      case AggregationResult.Stats s ->
          switch (metric == null ? "" : metric) {
            case "count" -> s.count();
            case "min" -> s.min();
            case "max" -> s.max();
            case "sum" -> s.sum();
            case "avg" -> s.avg();
            default -> throw new IllegalStateException("unchecked stats path " + path);
          };
      case AggregationResult.SingleBucket b -> b.docCount();
      default -> throw new IllegalStateException("unchecked order path " + path);
    };
  }
}
