package org.searchlab.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Ratios between two variants' cells with their intervals: the ratio of each paired round (both
 * variants measured back to back in that round), then the median of those ratios and its
 * order-statistic interval ({@link Intervals}). A run without rounds gives the ratio of the summary
 * rows and no interval. Stateless apart from the index it reads; thread-safe.
 */
final class Ratios {
  private final RowIndex idx;

  Ratios(RowIndex idx) {
    this.idx = idx;
  }

  /**
   * {@code metric(a) ÷ metric(b)} for a main-phase cell at a recall target, or empty when either
   * side is missing or a value is 0.
   */
  Optional<Intervals.Interval> ratio(
      String a,
      String b,
      String type,
      boolean filtered,
      int clients,
      Double target,
      Function<ResultRow, Double> metric) {
    Optional<Intervals.Interval> rounds =
        perRound(
            idx.rounds(a, type, filtered, clients, target),
            idx.rounds(b, type, filtered, clients, target),
            metric);
    if (rounds.isPresent()) {
      return rounds;
    }
    Optional<ResultRow> sa = summary(a, type, filtered, clients, target);
    Optional<ResultRow> sb = summary(b, type, filtered, clients, target);
    if (sa.isEmpty() || sb.isEmpty()) {
      return Optional.empty();
    }
    Double x = metric.apply(sa.get());
    Double y = metric.apply(sb.get());
    if (x == null || y == null || x <= 0 || y <= 0) {
      return Optional.empty();
    }
    double r = x / y;
    return Optional.of(new Intervals.Interval(r, r, r, 0, 1));
  }

  /**
   * {@code metric(a) ÷ metric(b)} of the per-round estimates at exactly the recall target (phase
   * {@code at_target}), or empty where the run has none for either side.
   */
  Optional<Intervals.Interval> atTarget(
      String a,
      String b,
      String type,
      boolean filtered,
      int clients,
      Double target,
      Function<ResultRow, Double> metric) {
    return perRound(
        idx.rounds(a, RowIndex.AT_TARGET, type, filtered, clients, target),
        idx.rounds(b, RowIndex.AT_TARGET, type, filtered, clients, target),
        metric);
  }

  /**
   * The ratio at equal recall where the run has it: for a vector or hybrid cell with estimates at
   * exactly the target, those; else the ratio of the cells as measured.
   */
  Optional<Intervals.Interval> equalRecall(
      String a,
      String b,
      String type,
      boolean filtered,
      int clients,
      Double target,
      Function<ResultRow, Double> metric) {
    Optional<Intervals.Interval> at = atTarget(a, b, type, filtered, clients, target, metric);
    return at.isPresent() ? at : ratio(a, b, type, filtered, clients, target, metric);
  }

  /**
   * The median and interval of the ratios of the rounds both sides measured; empty if none. Where
   * some of those rounds reached the recall target on both sides and others did not (a feed of one
   * variant whose index stayed below the target at the grid's largest beam), only the rounds that
   * reached it count: a ratio at a recall target compares cells at that recall.
   */
  private static Optional<Intervals.Interval> perRound(
      Map<Integer, ResultRow> ra, Map<Integer, ResultRow> rb, Function<ResultRow, Double> metric) {
    boolean anyReached =
        ra.entrySet().stream()
            .anyMatch(
                e ->
                    rb.containsKey(e.getKey())
                        && reached(e.getValue())
                        && reached(rb.get(e.getKey())));
    List<Double> ratios = new ArrayList<>();
    for (Map.Entry<Integer, ResultRow> e : ra.entrySet()) {
      ResultRow other = rb.get(e.getKey());
      if (other != null && (!anyReached || (reached(e.getValue()) && reached(other)))) {
        Double x = metric.apply(e.getValue());
        Double y = metric.apply(other);
        if (x != null && y != null && x > 0 && y > 0) {
          ratios.add(x / y);
        }
      }
    }
    if (ratios.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(Intervals.median(ratios.stream().mapToDouble(d -> d).toArray()));
  }

  /**
   * Whether a round row reached its recall target: true without a target or a measured recall
   * (lexical cells, fixed candidates, runs before per-round recall was recorded).
   */
  static boolean reached(ResultRow r) {
    return r.recallTarget() == null
        || r.recallAt10() == null
        || r.recallAt10() >= r.recallTarget() - 1e-6;
  }

  private Optional<ResultRow> summary(
      String v, String type, boolean filtered, int clients, Double target) {
    return idx.queries(v, RowIndex.mainPhase(v), type, filtered, target)
        .filter(r -> r.round() == null && r.clients() != null && r.clients() == clients)
        .findFirst();
  }

  /** "1.23 [1.10–1.35]", or "1.23" without an interval. */
  static String format(Intervals.Interval i) {
    if (i.n() < 2) {
      return String.format(Locale.ROOT, "%.2f", i.median());
    }
    return String.format(Locale.ROOT, "%.2f [%.2f–%.2f]", i.median(), i.low(), i.high());
  }

  /**
   * The direction an interval supports: "{@code above}" when it lies above 1, "{@code below}" when
   * below, else "not distinguishable" (also without an interval).
   */
  static String direction(Intervals.Interval i, String above, String below) {
    if (i.n() < 2 || !i.excludes(1.0)) {
      return "not distinguishable";
    }
    return i.low() > 1 ? above : below;
  }
}
