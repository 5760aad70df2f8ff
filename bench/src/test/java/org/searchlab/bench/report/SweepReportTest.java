package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep's section and findings from rows in rounds: ratios are medians of per-round ratios with
 * intervals, a direction only where the interval excludes 1, vector cells taken at their estimate
 * at the goal recall, and each count's beams shown.
 */
class SweepReportTest {
  private static final RunInfo.Machine MACHINE = new RunInfo.Machine(2, "test cpu", false);
  private static final int ROUNDS = 6;

  @Test
  void directionsOnlyWhereTheIntervalExcludesOne(@TempDir Path dir) throws Exception {
    List<ResultRow> rows = new ArrayList<>();
    for (int segments : List.of(100, 1)) {
      for (String threads : List.of("0", "default")) {
        boolean conc = threads.equals("default");
        for (int round = 1; round <= ROUNDS; round++) {
          // ±5% from round to round, alternating
          double jitter = round % 2 == 0 ? 1.05 : 0.95;
          // vector: 100 segments cost 3× the CPU per query of 1; concurrent halves latency and
          // costs 1.5× the CPU. The cells at the beam are a decoy: the estimates decide.
          double vectorQpc = (segments == 100 ? 300 : 900) * jitter / (conc ? 1.5 : 1);
          rows.add(
              row(SweepRows.SWEEP, "vector", segments, threads, round, 1, 50, 1.0, 4)
                  .withCandidates(10, segments == 100 ? 10 : 60, 0.95)
                  .withQuality(segments == 100 ? 0.999 : 0.997, null));
          if (segments == 1) {
            rows.add(
                row(SweepRows.BELOW, "vector", segments, threads, round, 1, 80, 1.0, 3)
                    .withCandidates(10, 40, 0.95)
                    .withQuality(0.990, null));
          }
          rows.add(
              row(
                      SweepRows.AT_TARGET,
                      "vector",
                      segments,
                      threads,
                      round,
                      1,
                      vectorQpc,
                      1.0,
                      conc ? 2 : 4)
                  .withCandidates(10, segments == 100 ? 10 : 60, 0.95)
                  .withQuality(0.994, null));
          // lexical: the counts and settings differ by the jitter only, in opposite directions in
          // alternate rounds, so no interval excludes 1.
          double lexicalQpc = 1000 * (round % 2 == 0 ? 1.05 : 0.95);
          double flip = (round % 2 == 0) == conc ? 1.05 : 0.95;
          rows.add(
              row(
                      SweepRows.SWEEP,
                      "lexical",
                      segments,
                      threads,
                      round,
                      1,
                      lexicalQpc * flip,
                      1.0,
                      3 * flip)
                  .withQuality(1.0, null));
        }
      }
    }
    rows.addAll(summaries(rows));
    new ReportWriter(dir).write(rows, "sweep", "synthetic", List.of("segmented"), 1.0);
    String md = Files.readString(dir.resolve("report.md"));
    for (String expected :
        List.of(
            "## Segment-count sweep",
            "6 rounds, each starting every count's servers afresh",
            "covers the median with probability 96.9%",
            "median of the per-round ratios [interval, 96.9% coverage]",
            "### Segments and beams",
            // the beam and the beam below of each count
            "| 100 | – | 10 |",
            "| 1 | – | 60 (40) |",
            "**CPU per query at 100 segments vs 1, sequential search: costlier in 1, cheaper in 0,"
                + " not distinguishable in 1 of 2 cells**",
            "vector 3.00 [3.00–3.00]× (costlier), lexical 1.00 [1.00–1.00]× (not distinguishable)",
            "**Concurrent segment search (conc lucene-default) at 100 segments, 1 client: answers"
                + " sooner in 1, later in 0, not distinguishable in 1 of 2 query types; costs more"
                + " CPU per query in 1, less in 0, not distinguishable in 1**",
            "vector: latency 0.50 [0.50–0.50]× (sooner), CPU/query 1.50 [1.50–1.50]× (costlier)")) {
      assertTrue(md.contains(expected), "missing " + expected + " in\n" + md);
    }
  }

  /** A summary row per cell: the medians over its rounds with their intervals. */
  static List<ResultRow> summaries(List<ResultRow> rounds) {
    java.util.Map<String, List<ResultRow>> cells = new java.util.LinkedHashMap<>();
    for (ResultRow r : rounds) {
      cells
          .computeIfAbsent(
              r.phase() + r.queryType() + r.segments() + r.searchThreads() + r.clients(),
              k -> new ArrayList<>())
          .add(r);
    }
    List<ResultRow> out = new ArrayList<>();
    for (List<ResultRow> c : cells.values()) {
      out.add(
          c.getFirst()
              .withInterval(
                  Intervals.median(c.stream().mapToDouble(ResultRow::qps).toArray()),
                  Intervals.median(c.stream().mapToDouble(ResultRow::qpsPerCore).toArray())));
    }
    return out;
  }

  static ResultRow row(
      String phase,
      String type,
      int segments,
      String threads,
      int round,
      int clients,
      double qpsPerCore,
      double cores,
      double avg) {
    double qps = qpsPerCore * cores;
    return new ResultRow(
            "segmented",
            phase,
            type,
            true,
            clients,
            segments,
            threads,
            qps,
            avg,
            avg,
            avg * 1.5,
            avg * 2,
            avg * 3,
            cores,
            qpsPerCore,
            null,
            null,
            null,
            null,
            100L,
            0L,
            1.0,
            null,
            null,
            null,
            "sweep",
            MACHINE,
            "jdk",
            "abc",
            30_000,
            32)
        .withRound(round)
        .withSlicing(threads.equals("default") ? "lucene-default" : null);
  }
}
