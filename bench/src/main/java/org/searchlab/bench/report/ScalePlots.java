package org.searchlab.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/**
 * A scale run's plots, drawn with XChart as {@link Plots} draws the main report's, each against the
 * document count on log-log axes: CPU ms per query per query type with each store's fitted slope in
 * its legend ({@link ScaleSection#slope}), feed docs/s per core (interval and cumulative), segments
 * at the end of each feed, force-merge seconds, and the ratios mutable ÷ force-merged and mutable ÷
 * default per size with their interval bars; restart seconds of each probed store with its fitted
 * slope; and bytes per document by part, stacked, per server. Each method writes one PNG and
 * returns its name, or null when the run has nothing for it. Not thread-safe (XChart's charts are
 * not).
 */
final class ScalePlots {
  private static final int W = 520;
  private static final int H = 380;

  /** The feed-row phases (the runner's {@code Phases}, which this package does not see). */
  static final String SCALE_FEED = "scale_feed";

  static final String SCALE_FEED_CUMULATIVE = "scale_feed_cumulative";
  static final String FORCE_MERGE = "force_merge";

  private final Path dir;

  ScalePlots(Path dir) {
    this.dir = dir;
  }

  /**
   * CPU ms per query of one query type against documents, plain and filtered side by side, a line
   * per store through its per-size medians, its slope in the legend.
   */
  String cpu(ScaleSection s, String type) throws IOException {
    List<XYChart> charts = new ArrayList<>();
    for (boolean filtered : new boolean[] {false, true}) {
      String cell = type + (filtered ? " filtered" : "");
      if (!s.cells().contains(cell)) {
        continue;
      }
      XYChart c = logLog(cell + ", " + s.clients() + " clients", "CPU ms per query");
      for (String v : ScaleSection.ORDER) {
        Map<Integer, double[]> costs = s.costsBySize(v, type, filtered);
        if (costs.isEmpty()) {
          continue;
        }
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        costs.forEach(
            (n, c1) -> {
              xs.add((double) n);
              ys.add(Intervals.median(c1).median() * 1000);
            });
        String slope =
            s.slope(v, type, filtered)
                .map(
                    f ->
                        String.format(
                            Locale.ROOT,
                            " (slope %.2f; per round %.2f [%.2f–%.2f])",
                            f.ofMedians(),
                            f.perRound().median(),
                            f.perRound().low(),
                            f.perRound().high()))
                .orElse("");
        c.addSeries(v + slope, xs, ys);
      }
      if (!c.getSeriesMap().isEmpty()) {
        charts.add(c);
      }
    }
    if (charts.isEmpty()) {
      return null;
    }
    return save(charts, "scale-cpu-" + type + ".png");
  }

  /** Feed docs/s per core against documents: each store's interval and cumulative rates. */
  String feed(List<ResultRow> rows) throws IOException {
    XYChart c = logLog("feed docs/s per core (_bulk, same client)", "docs/s per core");
    for (String phase : List.of(SCALE_FEED, SCALE_FEED_CUMULATIVE)) {
      Map<String, Map<Integer, Double>> by = byVariant(rows, phase, ResultRow::docsPerSecPerCore);
      String what = phase.equals(SCALE_FEED) ? " (interval)" : " (0 → N)";
      by.forEach((v, pts) -> addLine(c, v + what, pts));
    }
    return c.getSeriesMap().isEmpty() ? null : save(List.of(c), "scale-feed.png");
  }

  /** Segments at the end of each feed interval, and of each force-merge. */
  String segments(List<ResultRow> rows) throws IOException {
    XYChart c = logLog("segments at the end of the feed", "segments");
    byVariant(rows, SCALE_FEED, r -> r.segments() == null ? null : r.segments().doubleValue())
        .forEach((v, pts) -> addLine(c, v, pts));
    byVariant(rows, FORCE_MERGE, r -> r.segments() == null ? null : r.segments().doubleValue())
        .forEach((v, pts) -> addLine(c, v, pts));
    return c.getSeriesMap().isEmpty() ? null : save(List.of(c), "scale-segments.png");
  }

  /** Force-merge seconds of the copy of each size's segmented index. */
  String forceMerge(List<ResultRow> rows) throws IOException {
    XYChart c = logLog("force-merge to 1 segment", "seconds");
    byVariant(rows, FORCE_MERGE, ResultRow::seconds).forEach((v, pts) -> addLine(c, v, pts));
    return c.getSeriesMap().isEmpty() ? null : save(List.of(c), "scale-force-merge.png");
  }

  /**
   * Restart seconds (start → first query answered) against documents, per probed store: the probe
   * JVM's and the return to the measurement server's, each with its least-squares slope in the
   * legend where two sizes or more were probed ({@link ScaleProbeTables}).
   */
  String restart(JsonNode scale) throws IOException {
    XYChart c = logLog("restart: start → first query (warm page cache)", "seconds");
    Map<String, Map<Integer, Double>> by = new LinkedHashMap<>();
    for (ScaleProbeTables.Probe p : ScaleProbeTables.probes(scale)) {
      for (String which : List.of("probe_restart", "return_restart")) {
        double ms = p.node().path(which).path("start_to_first_query_ms").asDouble(0);
        if (ms > 0) {
          String name = p.server() + (which.equals("probe_restart") ? " (probe JVM)" : " (return)");
          by.computeIfAbsent(name, k -> new java.util.TreeMap<>()).put(p.docs(), ms / 1000);
        }
      }
    }
    by.forEach(
        (name, pts) -> {
          String slope = "";
          if (pts.size() >= 2) {
            long[] sizes = pts.keySet().stream().mapToLong(Integer::longValue).toArray();
            double[][] costs =
                pts.values().stream().map(v -> new double[] {v}).toArray(double[][]::new);
            slope =
                String.format(Locale.ROOT, " (slope %.2f)", Slopes.fit(sizes, costs).ofMedians());
          }
          addLine(c, name + slope, pts);
        });
    return c.getSeriesMap().isEmpty() ? null : save(List.of(c), "scale-restart.png");
  }

  /**
   * The ratios of QPS per core mutable ÷ force-merged and mutable ÷ default per size, one line per
   * cell and peer through the medians, each point's interval a vertical bar.
   */
  String ratios(ScaleSection s) throws IOException {
    XYChart c = logLog("mutable ÷ peer, QPS per core, " + s.clients() + " clients", "ratio");
    for (String cell : s.cells()) {
      String type = cell.split(" ")[0];
      boolean filtered = cell.endsWith(" filtered");
      for (String peer : List.of("segmented-forcemerged", "segmented")) {
        Map<Integer, Intervals.Interval> pts = new LinkedHashMap<>();
        for (int n : s.sizes()) {
          Optional<Intervals.Interval> i = s.ratio(n, peer, type, filtered);
          i.ifPresent(x -> pts.put(n, x));
        }
        if (pts.isEmpty()) {
          continue;
        }
        String name = cell + " ÷ " + (peer.equals("segmented") ? "default" : "force-merged");
        XYSeries line =
            c.addSeries(
                name,
                pts.keySet().stream().map(Integer::doubleValue).toList(),
                pts.values().stream().map(Intervals.Interval::median).toList());
        pts.forEach(
            (n, i) -> {
              XYSeries bar =
                  c.addSeries(
                      name + " interval " + n,
                      List.of((double) n, (double) n),
                      List.of(i.low(), i.high()));
              bar.setShowInLegend(false);
              bar.setLineColor(line.getLineColor());
              bar.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
            });
      }
    }
    return c.getSeriesMap().isEmpty() ? null : save(List.of(c), "scale-ratios.png");
  }

  /**
   * Bytes per document by part, stacked, one chart per server and a bar per size, from the scale
   * section's {@code per_size[].servers.<label>.bytes_per_doc}.
   */
  String memory(JsonNode scale) throws IOException {
    Map<String, Map<Integer, JsonNode>> byServer = new LinkedHashMap<>();
    for (JsonNode size : scale.path("per_size")) {
      int n = size.path("docs").asInt();
      size.path("servers")
          .fields()
          .forEachRemaining(
              e ->
                  byServer
                      .computeIfAbsent(e.getKey(), k -> new LinkedHashMap<>())
                      .put(n, e.getValue().path("bytes_per_doc")));
    }
    List<CategoryChart> charts = new ArrayList<>();
    for (Map.Entry<String, Map<Integer, JsonNode>> e : byServer.entrySet()) {
      List<String> sizes =
          e.getValue().keySet().stream().map(n -> String.format("%,d", n)).toList();
      List<String> parts = new ArrayList<>();
      e.getValue().values().forEach(p -> p.fieldNames().forEachRemaining(parts::add));
      List<String> distinct = parts.stream().distinct().toList();
      if (distinct.isEmpty()) {
        continue;
      }
      CategoryChart c =
          new CategoryChartBuilder()
              .width(W)
              .height(H)
              .title(e.getKey() + ": bytes per document by part")
              .xAxisTitle("documents")
              .yAxisTitle("bytes per document")
              .build();
      c.getStyler().setStacked(true);
      c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
      c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(12f));
      for (String part : distinct) {
        List<Double> ys =
            e.getValue().values().stream().map(p -> p.path(part).asDouble(0)).toList();
        c.addSeries(part, sizes, ys);
      }
      charts.add(c);
    }
    if (charts.isEmpty()) {
      return null;
    }
    String name = "scale-memory.png";
    BitmapEncoder.saveBitmap(
        charts, 1, charts.size(), dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  /** A value of each variant's rows of a phase by their documents, the values present only. */
  private static Map<String, Map<Integer, Double>> byVariant(
      List<ResultRow> rows, String phase, java.util.function.Function<ResultRow, Double> y) {
    Map<String, Map<Integer, Double>> by = new LinkedHashMap<>();
    for (ResultRow r : rows) {
      Double v = phase.equals(r.phase()) && r.docs() != null ? y.apply(r) : null;
      if (v != null && v > 0) {
        by.computeIfAbsent(r.variant(), k -> new java.util.TreeMap<>()).put(r.docs(), v);
      }
    }
    return by;
  }

  private static void addLine(XYChart c, String name, Map<Integer, Double> pts) {
    c.addSeries(
        name, pts.keySet().stream().map(Integer::doubleValue).toList(), List.copyOf(pts.values()));
  }

  private static XYChart logLog(String title, String y) {
    XYChart c =
        new XYChartBuilder()
            .width(W)
            .height(H)
            .title(title)
            .xAxisTitle("documents (log)")
            .yAxisTitle(y + " (log)")
            .build();
    c.getStyler().setXAxisLogarithmic(true);
    c.getStyler().setYAxisLogarithmic(true);
    // Sizes such as 100k, 300k, 1M span one decade: ticks between the decades too.
    c.getStyler().setXAxisLogarithmicDecadeOnly(false);
    c.getStyler().setYAxisLogarithmicDecadeOnly(false);
    c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(12f));
    c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    return c;
  }

  private String save(List<XYChart> charts, String name) throws IOException {
    BitmapEncoder.saveBitmap(
        charts, 1, charts.size(), dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }
}
