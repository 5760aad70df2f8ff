package org.searchlab.bench.report;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The scale report's tables: per query type, one line per document count with each store's median
 * CPU per query (1 ÷ QPS per core, in ms, with its interval over paired rounds), the ratios mutable
 * ÷ force-merged and mutable ÷ default of QPS per core with their intervals ({@link Ratios}), and
 * below the table each store's log-log slope of CPU per query against the document count ({@link
 * Slopes}). It reads the {@code at_target} round rows at one client count and recall target; each
 * row's {@code docs} says the size it was measured at; lexical cells, which have no beam and so no
 * estimate at a target, are read from their main-phase rounds where the run has no {@code
 * at_target} rows of them. A store whose round counts differ between sizes, or which misses a size,
 * gets no slope rather than one fitted on a subset. The vector and hybrid tables also give each
 * store's vectors scored per vector search at its calibrated beam ({@code visited_per_query} of the
 * main-phase summary row; the segmented store's sums its segments' graph walks and any exact scan).
 * {@link ScaleReport} writes it into a scale run's report. Immutable; thread-safe.
 */
final class ScaleSection {
  /** The stores compared (variant names), in column order. */
  static final List<String> ORDER = List.of("mutable", "segmented-forcemerged", "segmented");

  private final TreeMap<Integer, RowIndex> bySize = new TreeMap<>();
  private final Map<String, Double> visited = new java.util.HashMap<>();
  private final List<String> cells;
  private final int clients;
  private final Double target;

  /**
   * @param rows the run's rows, of every size
   * @param clients the client count compared (16 in the scale profile)
   * @param target the recall target of vector and hybrid cells (null: uncalibrated)
   */
  ScaleSection(List<ResultRow> rows, int clients, Double target) {
    this.clients = clients;
    this.target = target;
    Map<Integer, List<ResultRow>> grouped = new TreeMap<>();
    Set<String> seen = new LinkedHashSet<>();
    for (ResultRow r : rows) {
      if (r.isQueryCell()
          && r.docs() != null
          && (RowIndex.AT_TARGET.equals(r.phase()) || lexicalRound(r))) {
        grouped.computeIfAbsent(r.docs(), d -> new ArrayList<>()).add(r);
        seen.add(r.queryType() + (Boolean.TRUE.equals(r.filtered()) ? " filtered" : ""));
      }
      if (r.visitedPerQuery() != null
          && r.round() == null
          && r.docs() != null
          && r.clients() != null
          && r.clients() == clients
          && RowIndex.mainPhase(r.variant()).equals(r.phase())) {
        visited.put(
            visitedKey(r.docs(), r.variant(), r.queryType(), Boolean.TRUE.equals(r.filtered())),
            r.visitedPerQuery());
      }
    }
    grouped.forEach((d, rs) -> bySize.put(d, new RowIndex(rs)));
    this.cells = List.copyOf(seen);
  }

  /**
   * Whether {@code r} is a round of a lexical cell in its variant's main phase: lexical cells have
   * no beam, so no estimate at a recall target, and their rounds are their cost.
   */
  private static boolean lexicalRound(ResultRow r) {
    return "lexical".equals(r.queryType())
        && r.round() != null
        && RowIndex.mainPhase(r.variant()).equals(r.phase());
  }

  /** The document counts of the rows, ascending. */
  List<Integer> sizes() {
    return List.copyOf(bySize.keySet());
  }

  /** The cells ({@code type} or {@code type filtered}) in the order the rows first name them. */
  List<String> cells() {
    return cells;
  }

  /** The client count compared. */
  int clients() {
    return clients;
  }

  /**
   * A store's CPU seconds per query of each round by size, the sizes it has a cost at only;
   * ascending.
   */
  Map<Integer, double[]> costsBySize(String variant, String type, boolean filtered) {
    Map<Integer, double[]> out = new TreeMap<>();
    bySize.forEach((n, idx) -> costs(idx, variant, type, filtered).ifPresent(c -> out.put(n, c)));
    return out;
  }

  /**
   * The ratio of QPS per core mutable ÷ {@code other} at a size with its interval over rounds: at
   * the target where the run has estimates there, else of the cells as measured (lexical).
   */
  Optional<Intervals.Interval> ratio(int size, String other, String type, boolean filtered) {
    RowIndex idx = bySize.get(size);
    return idx == null
        ? Optional.empty()
        : new Ratios(idx)
            .equalRecall("mutable", other, type, filtered, clients, target, ResultRow::qpsPerCore);
  }

  /**
   * A store's vectors scored per vector search at a size, pooled over its rounds at the calibrated
   * beam; empty where the store does not count them or the cell is lexical.
   */
  Optional<Double> visitedPerQuery(int size, String variant, String type, boolean filtered) {
    return Optional.ofNullable(visited.get(visitedKey(size, variant, type, filtered)));
  }

  private static String visitedKey(int size, String variant, String type, boolean filtered) {
    return size + "|" + variant + "|" + type + "|" + filtered;
  }

  /** The markdown of every query type, in the order the rows first name them. */
  String markdown() {
    StringBuilder out = new StringBuilder();
    for (String cell : cells) {
      String type = cell.split(" ")[0];
      boolean filtered = cell.endsWith(" filtered");
      out.append("### ").append(cell).append(", ").append(clients).append(" clients\n\n");
      out.append("| documents |");
      ORDER.forEach(v -> out.append(' ').append(name(v)).append(" CPU ms/query |"));
      out.append(" mutable ÷ force-merged QPS/core | mutable ÷ default QPS/core |");
      boolean vectors = !type.equals("lexical");
      if (vectors) {
        ORDER.forEach(v -> out.append(' ').append(name(v)).append(" visited/query |"));
      }
      out.append("\n|---:|");
      out.append("---:|".repeat(ORDER.size() + 2 + (vectors ? ORDER.size() : 0))).append('\n');
      for (Map.Entry<Integer, RowIndex> e : bySize.entrySet()) {
        out.append(String.format(Locale.ROOT, "| %,d |", e.getKey()));
        for (String v : ORDER) {
          out.append(' ')
              .append(costs(e.getValue(), v, type, filtered).map(ScaleSection::ms).orElse("–"))
              .append(" |");
        }
        for (String b : List.of("segmented-forcemerged", "segmented")) {
          out.append(' ')
              .append(
                  ratio(e.getKey(), b, type, filtered).map(i -> Ratios.format(i) + "×").orElse("–"))
              .append(" |");
        }
        if (vectors) {
          for (String v : ORDER) {
            out.append(' ')
                .append(
                    visitedPerQuery(e.getKey(), v, type, filtered)
                        .map(x -> String.format(Locale.ROOT, "%.1f", x))
                        .orElse("–"))
                .append(" |");
          }
        }
        out.append('\n');
      }
      out.append("\nSlope of CPU per query against documents (per-round median [interval]; ")
          .append("through the medians):");
      for (String v : ORDER) {
        out.append("\n- ").append(name(v)).append(": ");
        out.append(slope(v, type, filtered).map(ScaleSection::slopeText).orElse("–"));
      }
      out.append("\n\n");
    }
    return out.toString();
  }

  /** A store's slope, or empty when a size is missing or the round counts differ. */
  Optional<Slopes.Fit> slope(String variant, String type, boolean filtered) {
    if (bySize.size() < 2) {
      return Optional.empty();
    }
    long[] sizes = new long[bySize.size()];
    double[][] costs = new double[bySize.size()][];
    int i = 0;
    for (Map.Entry<Integer, RowIndex> e : bySize.entrySet()) {
      Optional<double[]> c = costs(e.getValue(), variant, type, filtered);
      if (c.isEmpty() || (i > 0 && c.get().length != costs[0].length)) {
        return Optional.empty();
      }
      sizes[i] = e.getKey();
      costs[i++] = c.get();
    }
    return Optional.of(Slopes.fit(sizes, costs));
  }

  /** CPU seconds per query of each round, or empty when a round lacks a positive QPS per core. */
  private Optional<double[]> costs(RowIndex idx, String variant, String type, boolean filtered) {
    Map<Integer, ResultRow> rounds =
        idx.rounds(variant, RowIndex.AT_TARGET, type, filtered, clients, target);
    if (rounds.isEmpty() && type.equals("lexical")) {
      rounds = idx.rounds(variant, RowIndex.mainPhase(variant), type, filtered, clients, null);
    }
    if (rounds.isEmpty()) {
      return Optional.empty();
    }
    double[] out = new double[rounds.size()];
    int i = 0;
    for (ResultRow r : rounds.values()) {
      if (r.qpsPerCore() == null || !(r.qpsPerCore() > 0)) {
        return Optional.empty();
      }
      out[i++] = 1 / r.qpsPerCore();
    }
    return Optional.of(out);
  }

  private static String ms(double[] secondsPerQuery) {
    double[] ms = new double[secondsPerQuery.length];
    for (int i = 0; i < ms.length; i++) {
      ms[i] = secondsPerQuery[i] * 1000;
    }
    Intervals.Interval i = Intervals.median(ms);
    return i.n() < 2
        ? String.format(Locale.ROOT, "%.3f", i.median())
        : String.format(Locale.ROOT, "%.3f [%.3f–%.3f]", i.median(), i.low(), i.high());
  }

  /** The column name of a variant. */
  private static String name(String variant) {
    return switch (variant) {
      case "segmented-forcemerged" -> "force-merged";
      case "segmented" -> "default";
      default -> variant;
    };
  }

  private static String slopeText(Slopes.Fit f) {
    Intervals.Interval i = f.perRound();
    return String.format(
        Locale.ROOT, "%.2f [%.2f–%.2f]; %.2f", i.median(), i.low(), i.high(), f.ofMedians());
  }
}
