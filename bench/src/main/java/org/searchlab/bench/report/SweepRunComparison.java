package org.searchlab.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Two runs of the segment sweep side by side, cell by cell: each cell's CPU milliseconds per query
 * as its run's report states it (the median over the rounds with its order-statistic interval; a
 * vector or hybrid cell at the goal recall where the run has an estimate there), and whether the
 * two agree: the larger median within a tolerance of the smaller, and the intervals overlapping. A
 * cell one run has and the other lacks does not agree. Also the same comparison with every round's
 * cost scaled to one machine speed by the machine reference the run timed after that round's cells
 * of that count ({@link #compareScaled}), which tells a machine that ran slower apart from a sweep
 * that measured differently. Stateless.
 */
public final class SweepRunComparison {
  private SweepRunComparison() {}

  /**
   * The machine reference's median CPU ns per operation over a run ({@code sweep.json}'s {@code
   * machine_reference}), NaN where the run has none.
   */
  public static double machineMedian(JsonNode json) {
    JsonNode m = json == null ? null : json.path("machine_reference");
    if (m == null || !m.isArray() || m.isEmpty()) {
      return Double.NaN;
    }
    double[] ns = new double[m.size()];
    for (int i = 0; i < ns.length; i++) {
      ns[i] = m.get(i).path("ns_per_op").asDouble();
    }
    return Intervals.median(ns).median();
  }

  /**
   * One cell in both runs; an interval is empty where that run lacks the cell or measured it
   * without rounds.
   */
  public record Cell(
      String type,
      int segments,
      String setting,
      int clients,
      Optional<Intervals.Interval> first,
      Optional<Intervals.Interval> second) {
    /** The second run's median ÷ the first's; NaN where a run lacks the cell. */
    public double ratio() {
      return first.isEmpty() || second.isEmpty()
          ? Double.NaN
          : second.get().median() / first.get().median();
    }

    /** Whether the larger median is at most {@code 1 + tolerance} times the smaller. */
    public boolean within(double tolerance) {
      double r = ratio();
      return !Double.isNaN(r) && Math.max(r, 1 / r) <= 1 + tolerance;
    }

    /** Whether both runs have the cell and their intervals share a value. */
    public boolean overlap() {
      return first.isPresent()
          && second.isPresent()
          && first.get().low() <= second.get().high()
          && second.get().low() <= first.get().high();
    }

    public boolean agrees(double tolerance) {
      return within(tolerance) && overlap();
    }
  }

  /**
   * Every cell of either run at the given client counts (every client count the runs measured where
   * {@code clients} is empty), in the report's order.
   */
  public static List<Cell> compare(
      List<ResultRow> firstRows, List<ResultRow> secondRows, List<Integer> clients) {
    return compare(
        firstRows, secondRows, clients, SweepRunComparison::cost, SweepRunComparison::cost);
  }

  /** A round and a segment count of a run: where its machine reference was timed. */
  public record RoundCount(int round, int segments) {}

  /**
   * A run's machine reference in CPU ns per operation by round and segment count ({@code
   * sweep.json}'s {@code machine_reference}); empty where the run has none.
   */
  public static Map<RoundCount, Double> machineByRound(JsonNode json) {
    Map<RoundCount, Double> out = new HashMap<>();
    if (json != null) {
      for (JsonNode n : json.path("machine_reference")) {
        double ns = n.path("ns_per_op").asDouble();
        if (n.has("round") && n.has("segments") && ns > 0) {
          out.put(new RoundCount(n.path("round").asInt(), n.path("segments").asInt()), ns);
        }
      }
    }
    return out;
  }

  /**
   * Like {@link #compare}, with each round's cost scaled to one machine speed: its QPS per core
   * multiplied by the reference its run timed after that count's cells in that round ÷ the median
   * of both runs' references, so a machine that ran slower in one run (or in some of its rounds)
   * does not count as a difference between the runs. A cell with a round its run has no reference
   * for has no scaled cost; empty where either run has no reference at all.
   */
  public static List<Cell> compareScaled(
      List<ResultRow> firstRows,
      JsonNode firstJson,
      List<ResultRow> secondRows,
      JsonNode secondJson,
      List<Integer> clients) {
    Map<RoundCount, Double> refA = machineByRound(firstJson);
    Map<RoundCount, Double> refB = machineByRound(secondJson);
    if (refA.isEmpty() || refB.isEmpty()) {
      return List.of();
    }
    List<Double> pooled = new ArrayList<>(refA.values());
    pooled.addAll(refB.values());
    double common = Intervals.median(pooled.stream().mapToDouble(d -> d).toArray()).median();
    return compare(firstRows, secondRows, clients, scaled(refA, common), scaled(refB, common));
  }

  /** A cell's cost in one run: its median over the rounds with its interval. */
  private interface CellCost {
    Optional<Intervals.Interval> of(
        SweepRows rows, String type, int segments, SweepRows.Setting s, int clients);
  }

  private static List<Cell> compare(
      List<ResultRow> firstRows,
      List<ResultRow> secondRows,
      List<Integer> clients,
      CellCost costA,
      CellCost costB) {
    SweepRows a = new SweepRows(new RowIndex(firstRows));
    SweepRows b = new SweepRows(new RowIndex(secondRows));
    List<Cell> out = new ArrayList<>();
    for (String t : union(a.types(), b.types())) {
      for (int n : union(a.segments(), b.segments())) {
        for (SweepRows.Setting s : union(a.settings(), b.settings())) {
          for (int c : union(a.clients(), b.clients())) {
            if (!clients.isEmpty() && !clients.contains(c)) {
              continue;
            }
            Optional<Intervals.Interval> x = costA.of(a, t, n, s, c);
            Optional<Intervals.Interval> y = costB.of(b, t, n, s, c);
            if (x.isPresent() || y.isPresent()) {
              out.add(new Cell(t, n, s.label(), c, x, y));
            }
          }
        }
      }
    }
    return out;
  }

  /** A Markdown table of the cells, then how many agree. */
  public static String markdown(List<Cell> cells, double tolerance, String first, String second) {
    StringBuilder md = new StringBuilder();
    md.append(
            String.format(
                Locale.ROOT,
                "CPU ms per query, median [interval]; agree: the larger median within %.0f%% of the"
                    + " smaller and the intervals overlapping.%n%n",
                tolerance * 100))
        .append("| type | segments | setting | clients | ")
        .append(first)
        .append(" | ")
        .append(second)
        .append(" | second ÷ first | agree |\n")
        .append("|---|---:|---|---:|---|---|---:|---|\n");
    long agree = 0;
    for (Cell c : cells) {
      boolean ok = c.agrees(tolerance);
      agree += ok ? 1 : 0;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %s | %d | %s | %s | %s | %s |%n",
              c.type(),
              c.segments(),
              c.setting(),
              c.clients(),
              format(c.first()),
              format(c.second()),
              Double.isNaN(c.ratio()) ? "–" : String.format(Locale.ROOT, "%.3f", c.ratio()),
              ok ? "yes" : why(c, tolerance)));
    }
    md.append(String.format(Locale.ROOT, "%n%d of %d cells agree.%n", agree, (long) cells.size()));
    return md.toString();
  }

  private static String why(Cell c, double tolerance) {
    if (c.first().isEmpty() || c.second().isEmpty()) {
      return "no: missing in one run";
    }
    List<String> out = new ArrayList<>();
    if (!c.within(tolerance)) {
      out.add("medians apart");
    }
    if (!c.overlap()) {
      out.add("intervals apart");
    }
    return "no: " + String.join(", ", out);
  }

  private static String format(Optional<Intervals.Interval> i) {
    return i.map(v -> String.format(Locale.ROOT, "%.3f [%.3f–%.3f]", v.median(), v.low(), v.high()))
        .orElse("–");
  }

  /** The cell's cost as its run's report gives it: only a cell measured in rounds has one. */
  private static Optional<Intervals.Interval> cost(
      SweepRows rows, String type, int segments, SweepRows.Setting s, int clients) {
    return rows.summary(rows.costPhase(type), type, segments, s, clients)
        .flatMap(SweepRows::cpuInterval)
        .filter(i -> i.n() >= 2);
  }

  /**
   * A cell's cost with each round scaled by that round's machine reference ÷ {@code common}: the
   * median over the rounds with its interval, taken on QPS per core and inverted, as the report
   * takes the unscaled cost ({@link SweepRows#cpuInterval}).
   */
  private static CellCost scaled(Map<RoundCount, Double> reference, double common) {
    return (rows, type, segments, s, clients) -> {
      List<Double> qpsPerCore = new ArrayList<>();
      for (Map.Entry<Integer, ResultRow> e :
          rows.rounds(rows.costPhase(type), type, segments, s, clients).entrySet()) {
        Double ref = reference.get(new RoundCount(e.getKey(), segments));
        if (ref == null) {
          return Optional.empty();
        }
        Double q = e.getValue().qpsPerCore();
        if (q != null && q > 0) {
          // a round on a machine slower by ref ÷ common would have done that much more per core
          qpsPerCore.add(q * ref / common);
        }
      }
      if (qpsPerCore.size() < 2) {
        return Optional.empty();
      }
      return Optional.of(
          SweepRows.cpuMsPerQuery(
              Intervals.median(qpsPerCore.stream().mapToDouble(d -> d).toArray())));
    };
  }

  private static <T> List<T> union(List<T> a, List<T> b) {
    List<T> out = new ArrayList<>(a);
    b.stream().filter(x -> !out.contains(x)).forEach(out::add);
    return out;
  }
}
