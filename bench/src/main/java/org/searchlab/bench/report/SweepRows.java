package org.searchlab.bench.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The segment sweep's rows, looked up by segment count, setting, query type and client count: the
 * summary rows (median over the sweep's rounds with intervals) and the round rows, from which
 * ratios between counts or settings are taken round by round. A vector or hybrid cell's cost is its
 * estimate at the goal recall ({@code sweep_at_target}) where the run has one, else its cell as
 * measured. Immutable; thread-safe.
 */
final class SweepRows {
  static final String SWEEP = "sweep";
  static final String BELOW = "sweep_below_beam";
  static final String AT_TARGET = "sweep_at_target";

  /** Sequential (searchThreads 0) or concurrent with a slicing (null: not recorded). */
  record Setting(String threads, String slicing) {
    boolean sequential() {
      return "0".equals(threads);
    }

    /** {@code seq}, {@code conc}, or {@code conc segment-per-slice}. */
    String label() {
      if (sequential()) {
        return "seq";
      }
      return slicing == null ? "conc" : "conc " + slicing;
    }
  }

  private final List<ResultRow> rows;

  SweepRows(RowIndex idx) {
    this.rows =
        idx.all().stream()
            .filter(
                r ->
                    r.isQueryCell()
                        && (r.phase().equals(SWEEP)
                            || r.phase().equals(BELOW)
                            || r.phase().equals(AT_TARGET)))
            .toList();
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  /** Segment counts, descending. */
  List<Integer> segments() {
    return rows.stream()
        .map(ResultRow::segments)
        .filter(Objects::nonNull)
        .distinct()
        .sorted(Comparator.reverseOrder())
        .toList();
  }

  List<Integer> clients() {
    return rows.stream().map(ResultRow::clients).distinct().sorted().toList();
  }

  /** The settings measured: sequential first, then the concurrent ones by slicing. */
  List<Setting> settings() {
    return rows.stream()
        .map(r -> new Setting(r.searchThreads(), r.slicing()))
        .distinct()
        .sorted(
            Comparator.comparing((Setting s) -> !s.sequential())
                .thenComparing(s -> String.valueOf(s.slicing())))
        .toList();
  }

  /** Query types in the report's order: vector, lexical, hybrid, then any other (faceted). */
  List<String> types() {
    return Stream.concat(
            Stream.of("vector", "lexical", "hybrid"), rows.stream().map(ResultRow::queryType))
        .distinct()
        .filter(t -> rows.stream().anyMatch(r -> r.queryType().equals(t)))
        .toList();
  }

  /** Whether the run has per-round rows (the sweep in rounds) rather than single cells. */
  boolean inRounds() {
    return rows.stream().anyMatch(r -> r.round() != null);
  }

  /**
   * The phase whose rows state a type's cost: the estimate at the goal recall where there is one.
   */
  String costPhase(String type) {
    return rows.stream().anyMatch(r -> r.phase().equals(AT_TARGET) && r.queryType().equals(type))
        ? AT_TARGET
        : SWEEP;
  }

  /** The summary row of a cell (a run without rounds: its only row). */
  Optional<ResultRow> summary(String phase, String type, int segments, Setting s, int clients) {
    return cell(phase, type, segments, s, clients).filter(r -> r.round() == null).findFirst();
  }

  /** The round rows of a cell, by round. */
  Map<Integer, ResultRow> rounds(String phase, String type, int segments, Setting s, int clients) {
    Map<Integer, ResultRow> out = new TreeMap<>();
    cell(phase, type, segments, s, clients)
        .filter(r -> r.round() != null)
        .forEach(r -> out.put(r.round(), r));
    return out;
  }

  /**
   * {@code metric(a) ÷ metric(b)}, the median of the per-round ratios with its interval; without
   * rounds, the ratio of the summary rows and no interval; empty where a side is missing or a value
   * is not positive.
   */
  Optional<Intervals.Interval> ratio(
      String phase,
      String type,
      int segA,
      Setting a,
      int segB,
      Setting b,
      int clients,
      Function<ResultRow, Double> metric) {
    Map<Integer, ResultRow> ra = rounds(phase, type, segA, a, clients);
    Map<Integer, ResultRow> rb = rounds(phase, type, segB, b, clients);
    List<Double> ratios = new ArrayList<>();
    for (Map.Entry<Integer, ResultRow> e : ra.entrySet()) {
      ResultRow other = rb.get(e.getKey());
      Double x = metric.apply(e.getValue());
      Double y = other == null ? null : metric.apply(other);
      if (x != null && y != null && x > 0 && y > 0) {
        ratios.add(x / y);
      }
    }
    if (!ratios.isEmpty()) {
      return Optional.of(Intervals.median(ratios.stream().mapToDouble(d -> d).toArray()));
    }
    Optional<ResultRow> sa = summary(phase, type, segA, a, clients);
    Optional<ResultRow> sb = summary(phase, type, segB, b, clients);
    if (sa.isEmpty() || sb.isEmpty()) {
      return Optional.empty();
    }
    Double x = metric.apply(sa.get());
    Double y = metric.apply(sb.get());
    if (x == null || y == null || x <= 0 || y <= 0) {
      return Optional.empty();
    }
    return Optional.of(new Intervals.Interval(x / y, x / y, x / y, 0, 1));
  }

  /** Server CPU milliseconds per query, null where the row measured no CPU or no query. */
  static Double cpuMsPerQuery(ResultRow r) {
    return r.qpsPerCore() == null || r.qpsPerCore() <= 0 ? null : 1000 / r.qpsPerCore();
  }

  /**
   * The interval of a summary row's CPU ms per query: the inverse of its QPS-per-core interval;
   * empty without one.
   */
  static Optional<Intervals.Interval> cpuInterval(ResultRow r) {
    if (r.qpsPerCoreLow() == null || r.qpsPerCoreHigh() == null || r.qpsPerCoreLow() <= 0) {
      return Optional.empty();
    }
    return Optional.of(
        cpuMsPerQuery(
            new Intervals.Interval(
                r.qpsPerCore(),
                r.qpsPerCoreLow(),
                r.qpsPerCoreHigh(),
                r.intervalCoverage() == null ? 0 : r.intervalCoverage(),
                r.rounds() == null ? 1 : r.rounds())));
  }

  /** CPU ms per query from QPS per core: 1000 ÷ each figure, so the interval's ends swap. */
  static Intervals.Interval cpuMsPerQuery(Intervals.Interval qpsPerCore) {
    return new Intervals.Interval(
        1000 / qpsPerCore.median(),
        1000 / qpsPerCore.high(),
        1000 / qpsPerCore.low(),
        qpsPerCore.coverage(),
        qpsPerCore.n());
  }

  private Stream<ResultRow> cell(String phase, String type, int segments, Setting s, int clients) {
    return rows.stream()
        .filter(
            r ->
                r.phase().equals(phase)
                    && r.queryType().equals(type)
                    && Objects.equals(r.segments(), segments)
                    && Objects.equals(r.searchThreads(), s.threads())
                    && Objects.equals(r.slicing(), s.slicing())
                    && Objects.equals(r.clients(), clients));
  }
}
