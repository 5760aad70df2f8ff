package org.searchlab.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The merge-policy comparison's cells in paired rounds and the comparisons between variants the
 * report makes of them: per cell, each variant's per-round values, the median with its interval
 * ({@link Intervals}), and for the cheapest variant its per-round ratio to every other one, whose
 * interval decides whether the report names it. Vector and hybrid cells at rest are the estimates
 * at the recall target ({@code at_target}) where the run has them, else the cells at the calibrated
 * beam. Immutable and thread-safe.
 */
final class MergePolicyCells {
  static final String AT_REST = "after_flush";
  static final String DURING = "during_refeed";

  private final List<ResultRow> rows;
  private final Double target;

  MergePolicyCells(List<ResultRow> rows) {
    this.rows = List.copyOf(rows);
    this.target =
        rows.stream()
            .filter(r -> r.isQueryCell() && r.recallTarget() != null)
            .map(ResultRow::recallTarget)
            .findFirst()
            .orElse(null);
  }

  /** A query cell: its phase, query type, filter and clients. */
  record Cell(String phase, String type, boolean filtered, int clients) {
    String describe() {
      return String.format(
          Locale.ROOT,
          "%s%s at %d client%s %s",
          type,
          filtered ? " filtered" : "",
          clients,
          clients == 1 ? "" : "s",
          phase.equals(DURING) ? "while a refeed runs" : "at rest");
    }
  }

  /** Every query cell of a phase, in run order. */
  List<Cell> cells(String phase) {
    return rows.stream()
        .filter(r -> r.isQueryCell() && r.phase().equals(phase) && r.round() == null)
        .map(r -> new Cell(phase, r.queryType(), Boolean.TRUE.equals(r.filtered()), r.clients()))
        .distinct()
        .toList();
  }

  /** The variants of the query cells, in run order. */
  List<String> variants() {
    return rows.stream()
        .filter(r -> r.isQueryCell() && r.phase().equals(AT_REST))
        .map(ResultRow::variant)
        .distinct()
        .toList();
  }

  /** A cell's per-round rows of a variant, by round. */
  Map<Integer, ResultRow> rounds(String variant, Cell c) {
    Map<Integer, ResultRow> at = rounds(variant, c, "at_target");
    return c.phase().equals(AT_REST) && !at.isEmpty() ? at : rounds(variant, c, c.phase());
  }

  private Map<Integer, ResultRow> rounds(String variant, Cell c, String phase) {
    Map<Integer, ResultRow> out = new TreeMap<>();
    rows.stream()
        .filter(
            r ->
                r.isQueryCell()
                    && r.round() != null
                    && r.variant().equals(variant)
                    && r.phase().equals(phase)
                    && r.queryType().equals(c.type())
                    && Objects.equals(r.filtered(), c.filtered())
                    && r.clients() != null
                    && r.clients() == c.clients()
                    && (r.recallTarget() == null || r.recallTarget().equals(target)))
        .forEach(r -> out.put(r.round(), r));
    return out;
  }

  /** The median and interval over rounds of a variant's cell, empty without rounds. */
  Optional<Intervals.Interval> median(String variant, Cell c, Function<ResultRow, Double> metric) {
    double[] v =
        rounds(variant, c).values().stream()
            .map(metric)
            .filter(x -> x != null && !x.isNaN())
            .mapToDouble(Double::doubleValue)
            .toArray();
    return v.length == 0 ? Optional.empty() : Optional.of(Intervals.median(v));
  }

  /** The lowest recall@10 over the rounds of a variant's cell, null for a lexical cell. */
  Double recall(String variant, Cell c) {
    return rounds(variant, c).values().stream()
        .map(ResultRow::recallAt10)
        .filter(Objects::nonNull)
        .min(Double::compare)
        .orElse(null);
  }

  /**
   * The per-round ratios {@code metric(a) ÷ metric(b)} of two variants' cells over the rounds both
   * measured: their median and interval, empty when they share no round.
   */
  Optional<Intervals.Interval> ratio(
      String a, String b, Cell c, Function<ResultRow, Double> metric) {
    return ratio(rounds(a, c), rounds(b, c), metric);
  }

  /** The same over any two sets of round values. */
  static <T> Optional<Intervals.Interval> ratio(
      Map<Integer, T> a, Map<Integer, T> b, Function<T, Double> metric) {
    List<Double> ratios = new ArrayList<>();
    for (Map.Entry<Integer, T> e : a.entrySet()) {
      T other = b.get(e.getKey());
      if (other == null) {
        continue;
      }
      Double x = metric.apply(e.getValue());
      Double y = metric.apply(other);
      if (x != null && y != null && x > 0 && y > 0) {
        ratios.add(x / y);
      }
    }
    return ratios.isEmpty()
        ? Optional.empty()
        : Optional.of(Intervals.median(ratios.stream().mapToDouble(d -> d).toArray()));
  }

  /**
   * The cheapest of {@code candidates} by a metric where more is cheaper (QPS or documents per
   * core): the one with the highest median, and its per-round ratio to each of the others.
   *
   * @param rounds per candidate, its round values
   * @return the verdict, or empty with fewer than two candidates measured
   */
  static <T> Optional<Verdict> cheapest(
      Map<String, Map<Integer, T>> rounds, Function<T, Double> metric) {
    Map<String, Double> medians = new LinkedHashMap<>();
    for (Map.Entry<String, Map<Integer, T>> e : rounds.entrySet()) {
      double[] v =
          e.getValue().values().stream()
              .map(metric)
              .filter(x -> x != null && x > 0)
              .mapToDouble(Double::doubleValue)
              .toArray();
      if (v.length > 0) {
        medians.put(e.getKey(), Intervals.median(v).median());
      }
    }
    if (medians.size() < 2) {
      return Optional.empty();
    }
    String best =
        medians.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    Map<String, Intervals.Interval> against = new LinkedHashMap<>();
    for (String other : medians.keySet()) {
      if (!other.equals(best)) {
        ratio(rounds.get(best), rounds.get(other), metric).ifPresent(i -> against.put(other, i));
      }
    }
    boolean separated =
        !against.isEmpty()
            && against.size() == medians.size() - 1
            && against.values().stream().allMatch(i -> i.n() >= 2 && i.low() > 1.0);
    return Optional.of(new Verdict(best, against, separated));
  }

  /**
   * The variants whose recall lies more than {@code tolerance} above {@code best}'s, with their
   * recall; empty where {@code best} has none (a lexical cell) or the recalls are level. Cells at
   * rest run at calibrated beams and are level; while a refeed runs the index under them changes
   * and recall can drift apart, and a QPS ratio counts only at equal recall.
   */
  static Map<String, Double> recallAbove(
      Map<String, Double> recalls, String best, double tolerance) {
    Map<String, Double> out = new LinkedHashMap<>();
    Double own = recalls.get(best);
    if (own == null) {
      return out;
    }
    recalls.forEach(
        (v, r) -> {
          if (!v.equals(best) && r != null && r - own > tolerance) {
            out.put(v, r);
          }
        });
    return out;
  }

  /**
   * The cheapest variant of a comparison.
   *
   * @param best the variant with the highest median
   * @param against its per-round ratio to each other variant
   * @param separated whether every one of those ratios' intervals lies above 1
   */
  record Verdict(String best, Map<String, Intervals.Interval> against, boolean separated) {
    /** "a 1.23 [1.10–1.35], b 1.05 [0.97–1.12]". */
    String ratios() {
      List<String> out = new ArrayList<>();
      against.forEach((k, v) -> out.add(k + " " + Ratios.format(v)));
      return String.join(", ", out);
    }
  }
}
