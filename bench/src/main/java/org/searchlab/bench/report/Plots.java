package org.searchlab.bench.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/**
 * Draws the run's PNG plots with XChart (headless). Each method writes one file into the output
 * directory and returns its name, or {@code null} when the run has no rows for it. Not thread-safe
 * (XChart's charts are not); call from one thread.
 */
final class Plots {
  private static final String[] TYPES = {"lexical", "vector", "hybrid"};
  private static final int W = 520;
  private static final int H = 380;

  private final Path dir;
  private final RowIndex rows;

  Plots(Path dir, RowIndex rows) {
    this.dir = dir;
    this.rows = rows;
  }

  /**
   * Saturation curves of one query type: average latency, p99 and server CPU cores against QPS, one
   * line per variant (points are the client counts), unfiltered on top, filtered below.
   */
  String saturation(String type) throws IOException {
    List<XYChart> charts = new ArrayList<>();
    boolean any = false;
    for (boolean filtered : new boolean[] {false, true}) {
      String f = filtered ? " filtered" : "";
      XYChart avg = xy(type + f + ": average latency vs QPS", "QPS", "avg ms");
      XYChart p99 = xy(type + f + ": p99 latency vs QPS", "QPS", "p99 ms");
      XYChart cpu = xy(type + f + ": server CPU vs QPS", "QPS", "cores");
      for (String v : rows.queryVariants()) {
        List<ResultRow> pts =
            rows.queries(v, RowIndex.mainPhase(v), type, filtered)
                .sorted((a, b) -> Integer.compare(a.clients(), b.clients()))
                .toList();
        if (pts.isEmpty()) {
          continue;
        }
        any = true;
        add(avg, v, pts, ResultRow::qps, ResultRow::avgMs);
        add(p99, v, pts, ResultRow::qps, ResultRow::p99Ms);
        add(cpu, v, pts, ResultRow::qps, r -> orZero(r.cpuCores()));
      }
      charts.addAll(List.of(avg, p99, cpu));
    }
    if (!any) {
      return null;
    }
    String name = "saturation-" + type + ".png";
    BitmapEncoder.saveBitmap(
        charts, 2, 3, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  /** QPS per server core at the headline client count, per query type and filter, per variant. */
  String qpsPerCore() throws IOException {
    int clients = rows.headlineClients();
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(2 * W)
            .height(H)
            .title("QPS per server core at " + clients + " clients")
            .xAxisTitle("query type")
            .yAxisTitle("QPS / core")
            .build();
    style(chart.getStyler());
    boolean any = false;
    for (String v : rows.queryVariants()) {
      List<String> cats = new ArrayList<>();
      List<Double> vals = new ArrayList<>();
      for (String t : TYPES) {
        for (boolean filtered : new boolean[] {false, true}) {
          cats.add(t + (filtered ? " filtered" : ""));
          vals.add(rows.main(v, t, filtered, clients).map(ResultRow::qpsPerCore).orElse(0.0));
        }
      }
      chart.addSeries(v, cats, vals);
      any = true;
    }
    if (!any) {
      return null;
    }
    String name = "qps-per-core.png";
    BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  /**
   * The segment-count sweep: per query type, QPS, p99 and CPU ms per query at each sweep client
   * count against the segment count, one line per setting (sequential, and concurrent per slicing);
   * vector and hybrid at the goal recall where the run estimated it ({@link SweepRows}).
   */
  String sweep() throws IOException {
    SweepRows sweep = new SweepRows(rows);
    if (sweep.isEmpty()) {
      return null;
    }
    List<String> types = sweep.types();
    List<XYChart> charts = new ArrayList<>();
    for (String t : types) {
      XYChart qps = xy(t + " filtered: QPS vs segments", "segments", "QPS");
      XYChart p99 = xy(t + " filtered: p99 vs segments", "segments", "p99 ms");
      XYChart cpq = xy(t + " filtered: CPU ms per query vs segments", "segments", "CPU ms / query");
      for (XYChart c : List.of(qps, p99, cpq)) {
        c.getStyler().setXAxisLogarithmic(true);
      }
      String phase = sweep.costPhase(t);
      for (int clients : sweep.clients()) {
        for (SweepRows.Setting setting : sweep.settings()) {
          List<ResultRow> pts = new ArrayList<>();
          for (int s : sweep.segments()) {
            sweep.summary(phase, t, s, setting, clients).ifPresent(pts::add);
          }
          if (pts.isEmpty()) {
            continue;
          }
          String label = setting.label() + ", " + clients + " cl";
          add(qps, label, pts, r -> r.segments(), ResultRow::qps);
          add(p99, label, pts, r -> r.segments(), ResultRow::p99Ms);
          add(cpq, label, pts, r -> r.segments(), r -> orZero(SweepRows.cpuMsPerQuery(r)));
        }
      }
      charts.addAll(List.of(qps, p99, cpq));
    }
    String name = "sweep-segments.png";
    BitmapEncoder.saveBitmap(
        charts, types.size(), 3, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  /** Feed, refeed, update and refeed-under-queries docs/s per core, per variant. */
  String writes() throws IOException {
    String[] phases = {"feed", "refeed", "update", "refeed_with_queries"};
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(2 * W)
            .height(H)
            .title("Writes: documents per second per server core")
            .xAxisTitle("phase")
            .yAxisTitle("docs/s / core")
            .build();
    style(chart.getStyler());
    boolean any = false;
    for (String v : List.of("mutable", "segmented", "segmented-forcemerged")) {
      if (rows.feed(v, "feed").isEmpty()) {
        continue;
      }
      List<String> cats = new ArrayList<>();
      List<Double> vals = new ArrayList<>();
      for (String p : phases) {
        cats.add(p);
        vals.add(rows.feed(v, p).map(r -> orZero(r.docsPerSecPerCore())).orElse(0.0));
      }
      chart.addSeries(v, cats, vals);
      any = true;
    }
    if (!any) {
      return null;
    }
    String name = "writes-per-core.png";
    BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  /** The HNSW grid: recall@10 against QPS, one line per (store, M, efConstruction) over ef. */
  String grid() throws IOException {
    List<ResultRow> grid = rows.all().stream().filter(r -> r.phase().equals("grid")).toList();
    if (grid.isEmpty()) {
      return null;
    }
    XYChart chart = xy("HNSW grid: recall@10 vs QPS (1 client; points are ef)", "QPS", "recall@10");
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    grid.stream()
        .map(r -> r.variant() + " M=" + r.hnswM() + " efC=" + r.hnswEfConstruction())
        .distinct()
        .forEach(
            label -> {
              List<ResultRow> pts =
                  grid.stream()
                      .filter(
                          r ->
                              label.equals(
                                  r.variant()
                                      + " M="
                                      + r.hnswM()
                                      + " efC="
                                      + r.hnswEfConstruction()))
                      .sorted((a, b) -> Integer.compare(a.ef(), b.ef()))
                      .toList();
              add(chart, label, pts, ResultRow::qps, r -> orZero(r.recallAt10()));
            });
    String name = "hnsw-grid.png";
    BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  /**
   * The recall/QPS curve of one vector query type and filter setting over the calibration grid:
   * tie-aware recall@10 on x, QPS per server core on y, one line per variant (points are beams).
   */
  String recallCurve(String type, boolean filtered) throws IOException {
    List<ResultRow> cal =
        rows.all().stream()
            .filter(
                r ->
                    r.isQueryCell()
                        && r.phase().equals("calibration")
                        && r.queryType().equals(type)
                        && r.filtered() == filtered
                        && r.recallAt10() != null)
            .toList();
    if (cal.isEmpty()) {
      return null;
    }
    String f = filtered ? " filtered" : "";
    XYChart chart =
        xy(
            type + f + ": QPS per core vs recall@10 (" + cal.get(0).clients() + " clients)",
            "recall@10 (tie-aware)",
            "QPS / core");
    for (String v : cal.stream().map(ResultRow::variant).distinct().toList()) {
      List<ResultRow> pts =
          cal.stream()
              .filter(r -> r.variant().equals(v))
              .sorted((a, b) -> Integer.compare(a.numCandidates(), b.numCandidates()))
              .toList();
      if (!pts.isEmpty()) {
        add(chart, v, pts, ResultRow::recallAt10, r -> orZero(r.qpsPerCore()));
      }
    }
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
    String name = "recall-qps-" + type + (filtered ? "-filtered" : "") + ".png";
    BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  private static XYChart xy(String title, String x, String y) {
    XYChart c =
        new XYChartBuilder().width(W).height(H).title(title).xAxisTitle(x).yAxisTitle(y).build();
    style(c.getStyler());
    c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    return c;
  }

  private static void style(Styler s) {
    s.setLegendPosition(Styler.LegendPosition.InsideNW);
    s.setChartTitleFont(s.getChartTitleFont().deriveFont(12f));
  }

  private static void add(
      XYChart chart,
      String name,
      List<ResultRow> pts,
      ToDoubleFunction<ResultRow> x,
      ToDoubleFunction<ResultRow> y) {
    double[] xs = pts.stream().mapToDouble(x).toArray();
    double[] ys = pts.stream().mapToDouble(y).toArray();
    chart.addSeries(name, xs, ys);
  }

  private static double orZero(Double d) {
    return d == null ? 0 : d;
  }
}
