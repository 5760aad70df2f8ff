package org.searchlab.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The scale report's sentences on why each query type's cost grows: per cell, which store's CPU per
 * query grows fastest (its slope against the others', with intervals: a direction is stated only
 * where the intervals do not overlap), and for each store how its CPU per query moved from the
 * smallest to the largest size, split by where the CPU went. The split multiplies the median CPU
 * per query at a size by the shares of one profiled cell's samples at that size ({@code profile} of
 * each server in {@code scale.json}, the JDK Flight Recorder's execution samples by part), so that
 * a part's rise in ms per query is its share of the cost at the largest size less its share at the
 * smallest. The vector counters (vectors scored per search) and the segment counts are given beside
 * it: they are the mechanism a part's rise comes from. Immutable; thread-safe.
 */
final class ScaleWhy {
  /** A part is named when it explains at least this share of a store's rise. */
  static final double NAMED_SHARE = 0.25;

  private final ScaleSection section;
  private final JsonNode scale;

  ScaleWhy(ScaleSection section, JsonNode scale) {
    this.section = section;
    this.scale = scale;
  }

  /** One paragraph per cell, or a sentence saying why there are none. */
  String markdown() {
    List<Integer> sizes = section.sizes();
    if (sizes.size() < 2) {
      return "One size only: no growth to explain.\n\n";
    }
    StringBuilder b = new StringBuilder();
    for (String cell : section.cells()) {
      String type = cell.split(" ")[0];
      boolean filtered = cell.endsWith(" filtered");
      b.append("- **").append(cell).append("**: ").append(sentence(cell, type, filtered));
      b.append('\n');
    }
    b.append(
        "\nWhere the CPU went is one extra cell per store, query type and size at the calibrated"
            + " beam, profiled by the JDK Flight Recorder (execution samples, each put in the part"
            + " of the first frame whose class says what it was doing); a part's ms per query is"
            + " its share of that profile times the median CPU per query of the size. A store is"
            + " said to grow faster only where its slope's interval lies above the other's.\n\n");
    return b.toString();
  }

  private String sentence(String cell, String type, boolean filtered) {
    Map<String, Slopes.Fit> fits = new LinkedHashMap<>();
    for (String v : ScaleSection.ORDER) {
      section.slope(v, type, filtered).ifPresent(f -> fits.put(v, f));
    }
    if (fits.isEmpty()) {
      return "no store has a cost at every size.";
    }
    List<String> bySlope = new ArrayList<>(fits.keySet());
    bySlope.sort(Comparator.comparingDouble(v -> -fits.get(v).perRound().median()));
    String fastest = bySlope.get(0);
    StringBuilder s = new StringBuilder();
    if (bySlope.size() > 1) {
      List<String> behind =
          bySlope.subList(1, bySlope.size()).stream()
              .filter(v -> fits.get(fastest).perRound().low() > fits.get(v).perRound().high())
              .toList();
      if (behind.size() == bySlope.size() - 1) {
        s.append(name(fastest)).append("'s CPU per query grows fastest, ");
      } else if (!behind.isEmpty()) {
        s.append(name(fastest))
            .append("'s CPU per query grows faster than ")
            .append(String.join(" and ", behind.stream().map(ScaleWhy::name).toList()))
            .append("'s, ");
      } else {
        s.append("no store's CPU per query grows distinguishably faster (the slopes' intervals")
            .append(" overlap): ");
      }
    }
    List<String> slopes = new ArrayList<>();
    for (String v : bySlope) {
      Intervals.Interval i = fits.get(v).perRound();
      slopes.add(
          String.format(
              Locale.ROOT, "%s N^%.2f [%.2f–%.2f]", name(v), i.median(), i.low(), i.high()));
    }
    s.append(String.join(", ", slopes)).append(". ");
    int small = section.sizes().getFirst();
    int large = section.sizes().getLast();
    s.append(String.format(Locale.ROOT, "From %,d to %,d documents: ", small, large));
    List<String> stores = new ArrayList<>();
    for (String v : bySlope) {
      stores.add(store(v, cell, type, filtered, small, large));
    }
    s.append(String.join("; ", stores)).append('.');
    return s.toString();
  }

  /** One store's move from the smallest to the largest size, split by part where profiled. */
  private String store(String v, String cell, String type, boolean filtered, int small, int large) {
    Map<Integer, double[]> costs = section.costsBySize(v, type, filtered);
    double a = 1000 * Intervals.median(costs.get(small)).median();
    double z = 1000 * Intervals.median(costs.get(large)).median();
    StringBuilder s =
        new StringBuilder(String.format(Locale.ROOT, "%s %.3f → %.3f ms", name(v), a, z));
    Optional<Map<String, Double>> pa = parts(small, v, cell);
    Optional<Map<String, Double>> pz = parts(large, v, cell);
    if (pa.isPresent() && pz.isPresent()) {
      double rise = z - a;
      Map<String, Double> delta = new LinkedHashMap<>();
      for (String part : pz.get().keySet()) {
        delta.put(
            part, z * pz.get().getOrDefault(part, 0.0) - a * pa.get().getOrDefault(part, 0.0));
      }
      List<Map.Entry<String, Double>> moved = new ArrayList<>(delta.entrySet());
      moved.sort(
          Comparator.comparingDouble(
              (Map.Entry<String, Double> e) -> rise >= 0 ? -e.getValue() : e.getValue()));
      List<String> named = new ArrayList<>();
      for (Map.Entry<String, Double> e : moved) {
        if (named.size() < 2 && Math.abs(rise) > 0 && e.getValue() / rise >= NAMED_SHARE) {
          named.add(String.format(Locale.ROOT, "%+.3f ms in %s", e.getValue(), e.getKey()));
        }
      }
      if (!named.isEmpty()) {
        s.append(" (").append(String.join(", ", named)).append(')');
      }
    } else {
      s.append(" (not profiled at both sizes)");
    }
    List<String> mechanism = new ArrayList<>();
    Optional<Double> va = section.visitedPerQuery(small, v, type, filtered);
    Optional<Double> vz = section.visitedPerQuery(large, v, type, filtered);
    if (va.isPresent() && vz.isPresent()) {
      mechanism.add(
          String.format(
              Locale.ROOT, "vectors scored per search %,.0f → %,.0f", va.get(), vz.get()));
    }
    Optional<Integer> sa = segments(small, v);
    Optional<Integer> sz = segments(large, v);
    if (sa.isPresent() && sz.isPresent() && !(sa.get() == 1 && sz.get() == 1)) {
      mechanism.add(String.format(Locale.ROOT, "segments %d → %d", sa.get(), sz.get()));
    }
    if (!mechanism.isEmpty()) {
      s.append(", ").append(String.join(", ", mechanism));
    }
    return s.toString();
  }

  /** A server's profile of {@code cell} at size {@code n}: share by part label. */
  private Optional<Map<String, Double>> parts(int n, String v, String cell) {
    JsonNode p = server(n, v).path("profile").path(cell);
    if (!p.isObject() || p.path("samples").asInt(0) == 0) {
      return Optional.empty();
    }
    Map<String, Double> out = new LinkedHashMap<>();
    p.path("parts").fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asDouble()));
    return Optional.of(out);
  }

  private Optional<Integer> segments(int n, String v) {
    JsonNode s = server(n, v).path("segments");
    return s.isNumber() ? Optional.of(s.asInt()) : Optional.empty();
  }

  private JsonNode server(int n, String v) {
    for (JsonNode size : scale.path("per_size")) {
      if (size.path("docs").asInt() == n) {
        return size.path("servers").path(v);
      }
    }
    return scale.path("missing");
  }

  /** The store's name in a sentence. */
  static String name(String variant) {
    return switch (variant) {
      case "segmented-forcemerged" -> "force-merged";
      case "segmented" -> "default segmented";
      default -> variant;
    };
  }
}
