package org.searchlab.bench.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/**
 * The merge-policy comparison's plots, drawn with XChart as {@link Plots} draws the main report's:
 * the segment count of every policy over its first feed and its first refeed, each policy's segment
 * sizes over its first feed (one point per segment per poll, the picture Michael McCandless's merge
 * visualisation draws as bars), and bars of write amplification and merge CPU per policy. Each
 * method writes one PNG and returns its name, or null when there is nothing to draw. Not
 * thread-safe (XChart's charts are not).
 */
final class MergePolicyPlots {
  private static final int W = 520;
  private static final int H = 380;

  private final Path dir;

  MergePolicyPlots(Path dir) {
    this.dir = dir;
  }

  /** Segment count over time: the first feed (and force-merge) and refeed round 1. */
  String timeline(List<SegmentPoint> points) throws IOException {
    List<XYChart> charts = new ArrayList<>();
    for (String[] w :
        new String[][] {{MergeWindow.FEED, "first feed"}, {MergeWindow.REFEED, "refeed round 1"}}) {
      XYChart c = xy("segments during the " + w[1], "seconds", "segments");
      Map<String, List<SegmentPoint>> by = byVariant(points, w[0]);
      for (Map.Entry<String, List<SegmentPoint>> e : by.entrySet()) {
        List<SegmentPoint> pts = e.getValue();
        c.addSeries(
            e.getKey(),
            pts.stream().mapToDouble(SegmentPoint::seconds).toArray(),
            pts.stream().mapToDouble(SegmentPoint::count).toArray());
      }
      if (!by.isEmpty()) {
        charts.add(c);
      }
    }
    if (charts.isEmpty()) {
      return null;
    }
    String name = "merge-policies-segments.png";
    BitmapEncoder.saveBitmap(
        charts, 1, charts.size(), dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  /** Each policy's segment sizes over its first feed: one scatter point per segment and poll. */
  String sizes(List<SegmentPoint> points) throws IOException {
    Map<String, List<SegmentPoint>> by = byVariant(points, MergeWindow.FEED);
    List<XYChart> charts = new ArrayList<>();
    for (Map.Entry<String, List<SegmentPoint>> e : by.entrySet()) {
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (SegmentPoint p : e.getValue()) {
        for (long size : p.sizes()) {
          if (size > 0) {
            xs.add(p.seconds());
            ys.add(size / 1048576.0);
          }
        }
      }
      if (xs.isEmpty()) {
        continue;
      }
      XYChart c = xy(e.getKey() + ": segment sizes, first feed", "seconds", "MB (log)");
      c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
      c.getStyler().setYAxisLogarithmic(true);
      c.getStyler().setLegendVisible(false);
      c.getStyler().setMarkerSize(4);
      c.addSeries("segments", xs, ys);
      charts.add(c);
    }
    if (charts.isEmpty()) {
      return null;
    }
    // One chart a row: XChart's grid wants every cell filled, and policies come in any number.
    String name = "merge-policies-sizes.png";
    BitmapEncoder.saveBitmap(
        charts, charts.size(), 1, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  /**
   * Bars per policy: write amplification (merge bytes ÷ final index bytes) and merge CPU seconds,
   * of the first feed (with its force-merge) and the median refeed.
   *
   * @param firstFeed per policy, [write amplification, merge CPU s] of the first feed
   * @param refeed per policy, the same as medians over the refeed rounds
   */
  String costs(Map<String, double[]> firstFeed, Map<String, double[]> refeed) throws IOException {
    if (firstFeed.isEmpty()) {
      return null;
    }
    List<String> labels = new ArrayList<>(firstFeed.keySet());
    CategoryChart wa = bars("write amplification (merge bytes / index bytes)", "× index");
    CategoryChart cpu = bars("merge CPU", "CPU seconds");
    for (String[] series : new String[][] {{"first feed"}, {"refeed (median)"}}) {
      Map<String, double[]> m = series[0].equals("first feed") ? firstFeed : refeed;
      List<Double> a = new ArrayList<>();
      List<Double> b = new ArrayList<>();
      for (String l : labels) {
        double[] v = m.get(l);
        a.add(v == null ? 0 : v[0]);
        b.add(v == null ? 0 : v[1]);
      }
      wa.addSeries(series[0], labels, a);
      cpu.addSeries(series[0], labels, b);
    }
    String name = "merge-policies-costs.png";
    BitmapEncoder.saveBitmap(
        List.of(wa, cpu), 1, 2, dir.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
    return name;
  }

  private static Map<String, List<SegmentPoint>> byVariant(
      List<SegmentPoint> points, String phase) {
    Map<String, List<SegmentPoint>> by = new LinkedHashMap<>();
    for (SegmentPoint p : points) {
      boolean firstFeed =
          phase.equals(MergeWindow.FEED)
              && (p.phase().equals(MergeWindow.FEED) || p.phase().equals(MergeWindow.FORCE_MERGE))
              && p.round() == null;
      boolean refeed = phase.equals(MergeWindow.REFEED) && Objects.equals(p.round(), 1);
      if (firstFeed || refeed) {
        by.computeIfAbsent(p.variant(), k -> new ArrayList<>()).add(p);
      }
    }
    // A force-merge window restarts its clock: put it after the feed's last poll.
    for (Map.Entry<String, List<SegmentPoint>> e : by.entrySet()) {
      List<SegmentPoint> out = new ArrayList<>();
      double offset = 0;
      String last = null;
      double lastSeconds = 0;
      for (SegmentPoint p : e.getValue()) {
        if (last != null && !last.equals(p.phase())) {
          offset = lastSeconds;
        }
        SegmentPoint shifted =
            new SegmentPoint(
                p.variant(),
                p.phase(),
                p.round(),
                p.seconds() + offset,
                p.count(),
                p.bytes(),
                p.sizes());
        out.add(shifted);
        last = p.phase();
        lastSeconds = shifted.seconds();
      }
      e.setValue(out);
    }
    return by;
  }

  private static XYChart xy(String title, String x, String y) {
    XYChart c =
        new XYChartBuilder().width(W).height(H).title(title).xAxisTitle(x).yAxisTitle(y).build();
    // Below the plot: inside it, the legend of five policies hid their lines.
    c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(12f));
    c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    return c;
  }

  private static CategoryChart bars(String title, String y) {
    CategoryChart c =
        new CategoryChartBuilder()
            .width(W)
            // taller than the others: the slanted policy labels and the legend take room
            .height(3 * H / 2)
            .title(title)
            .xAxisTitle("policy")
            .yAxisTitle(y)
            .build();
    c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
    // Policy labels with settings are long: slanted, they do not run into each other.
    c.getStyler().setXAxisLabelRotation(20);
    c.getStyler().setChartTitleFont(c.getStyler().getChartTitleFont().deriveFont(12f));
    return c;
  }
}
