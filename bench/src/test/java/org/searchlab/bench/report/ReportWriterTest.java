// Over 500 lines: one test per report section, each building its rows by hand; the sweep's own
// sections are tested in SweepReportTest.
package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report from a hand-made set of rows (the report is a pure function of the rows; these are its
 * input, not measurements): sections, ratio arithmetic, the findings' verdicts and the PNGs.
 */
class ReportWriterTest {
  private static final RunInfo.Machine MACHINE = new RunInfo.Machine(2, "test cpu", true);

  private static ResultRow query(
      String variant,
      String phase,
      String type,
      boolean filtered,
      int clients,
      double qps,
      double cores,
      double avg,
      Integer segments,
      String threads) {
    return query(variant, phase, type, filtered, clients, qps, cores, avg, segments, threads, 0);
  }

  private static ResultRow query(
      String variant,
      String phase,
      String type,
      boolean filtered,
      int clients,
      double qps,
      double cores,
      double avg,
      Integer segments,
      String threads,
      long errors) {
    return new ResultRow(
        variant,
        phase,
        type,
        filtered,
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
        qps / cores,
        0.9,
        0.8,
        null,
        null,
        100L,
        errors,
        1.0,
        null,
        null,
        null,
        "test",
        MACHINE,
        "jdk",
        "abc",
        1000,
        32);
  }

  private static ResultRow feed(String variant, String phase, double dps, double cores) {
    return new ResultRow(
        variant,
        phase,
        null,
        null,
        null,
        12,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        cores,
        null,
        null,
        null,
        dps,
        dps / cores,
        1000L,
        0L,
        2.0,
        null,
        null,
        null,
        "test",
        MACHINE,
        "jdk",
        "abc",
        1000,
        32);
  }

  private static List<ResultRow> rows() {
    List<ResultRow> rows = new ArrayList<>();
    for (String v : List.of("mutable", "segmented", "segmented-forcemerged")) {
      String phase = v.endsWith("forcemerged") ? "after_merge" : "after_flush";
      for (String t : List.of("lexical", "vector", "hybrid")) {
        for (boolean f : new boolean[] {false, true}) {
          for (int c : List.of(1, 16)) {
            // mutable: 400 QPS/core except lexical (100); segmented: 200; force-merged: 300.
            double perCore =
                v.equals("mutable")
                    ? (t.equals("lexical") ? 100 : 400)
                    : v.equals("segmented") ? 200 : 300;
            ResultRow cell =
                query(
                    v, phase, t, f, c, perCore * c / 8.0, c / 8.0, 8.0 / perCore * 100, null, null);
            // 6 paired rounds; a round's load moves every variant's QPS alike, so the ratios of a
            // round are the ratios above and their interval is a point.
            double[] qps = new double[6];
            double[] pc = new double[6];
            for (int r = 1; r <= 6; r++) {
              double load = 1 + 0.02 * (r - 3);
              ResultRow round =
                  query(v, phase, t, f, c, cell.qps() * load, c / 8.0, cell.avgMs(), null, null)
                      .withRound(r);
              qps[r - 1] = round.qps();
              pc[r - 1] = round.qpsPerCore();
              rows.add(round);
            }
            rows.add(cell.withInterval(Intervals.median(qps), Intervals.median(pc)));
          }
        }
      }
      if (!v.endsWith("forcemerged")) {
        rows.add(feed(v, "feed", 1000, 1.5));
        rows.add(feed(v, "refeed", 900, 1.5));
        rows.add(feed(v, "update", v.equals("mutable") ? 9000 : 1000, 1.0));
        // The refeed's pace over the cell: recorded for the mutable store's, not (an older run's
        // rows) for the segmented store's.
        rows.add(
            query(v, "during_refeed", "hybrid", true, 16, 100, 1.9, 9, null, null)
                .withRefeedRate(v.equals("mutable") ? 2400.0 : null));
        rows.add(feed(v, "refeed_with_queries", 500, 1.0));
      }
    }
    for (int s : List.of(10, 1)) {
      for (String threads : List.of("0", "default")) {
        for (String t : List.of("vector", "lexical", "hybrid")) {
          for (int c : List.of(1, 16)) {
            // concurrent: lower 1-client latency, more CPU per query.
            boolean conc = threads.equals("default");
            rows.add(
                query(
                    "segmented",
                    "sweep",
                    t,
                    true,
                    c,
                    conc ? 120 : 100,
                    conc ? 1.8 : 1.0,
                    conc ? 2 : 4,
                    s,
                    threads));
          }
        }
      }
    }
    return rows;
  }

  @Test
  void refeedCellsCompareWithTheSameCellJustBeforeTheRefeed(@TempDir Path dir) throws Exception {
    List<ResultRow> rows = new java.util.ArrayList<>(rows());
    // during: avg 9 ms, p99 18 ms; the same cell before the refeed: p99 12 ms.
    rows.add(query("mutable", "before_refeed", "hybrid", true, 16, 150, 1.9, 6, null, null));
    rows.add(query("segmented", "before_refeed", "hybrid", true, 16, 150, 1.9, 4.5, null, null));
    new ReportWriter(dir)
        .write(
            rows,
            "test",
            "synthetic",
            List.of("mutable", "segmented", "segmented-forcemerged"),
            1.0);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("Before: the same cell (queries, clients, window)"), md);
    assertTrue(
        md.contains("| mutable | hybrid | 16 | 150 | 100 | 12.00 | 18.00 | 1.50× | 1.90 | 2400 |"),
        md);
    assertTrue(
        md.contains("| segmented | hybrid | 16 | 150 | 100 | 9.00 | 18.00 | 2.00× | 1.90 | – |"),
        md);
    assertTrue(md.contains("mutable 12.0→18.0 ms (1.50×), segmented 9.0→18.0 ms (2.00×)"), md);
  }

  @Test
  void theSameClientFeedIsComparedWithTheSegmentedFeed(@TempDir Path dir) throws Exception {
    List<ResultRow> rows = new java.util.ArrayList<>(rows());
    // The segmented store's feed: 1,000 docs/s on 1.5 cores; the mutable store's again through
    // _bulk: 1,800 docs/s on 1.2 cores, so 1.80× the docs/s and 2.25× the docs/s per core.
    rows.add(feed("mutable", "feed_same_client", 1800, 1.2));
    new ReportWriter(dir).write(rows, "test", "synthetic", List.of("mutable", "segmented"), 1.0);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("| mutable | feed_same_client | 1000 |"), md);
    assertTrue(md.contains("| feed_same_client | 1.80 | 2.25 |"), md);
    // The bootstrap feed's own row is still mutable's feed (1,000 ÷ 1,000 docs/s) beside it.
    assertTrue(md.contains("| feed | 1.00 | 1.00 |"), md);
    assertTrue(
        md.contains("through the same `_bulk` client and bodies as the segmented store"), md);
    assertTrue(md.contains("feed with the same _bulk client 2.25× (docs/s 1.80×)"), md);
  }

  @Test
  void writesTablesRatiosFindingsAndPlots(@TempDir Path dir) throws Exception {
    List<String> pngs =
        new ReportWriter(dir)
            .write(
                rows(),
                "test",
                "synthetic",
                List.of("mutable", "segmented", "segmented-forcemerged"),
                1.0);
    String md = Files.readString(dir.resolve("report.md"));
    for (String section :
        List.of(
            "## What this run shows",
            "## Writes",
            "## Ratios",
            "## Segment-count sweep",
            "## Filtered queries during refeed",
            "### vector, filtered")) {
      assertTrue(md.contains(section), "missing " + section);
    }
    // Results without cells just before the refeed compare with the query phase's.
    assertTrue(md.contains("Before: the query phase's cell (median over its rounds"), md);
    // mutable 400 ÷ segmented 200 QPS/core for vector; 100 ÷ 200 for lexical.
    assertTrue(md.contains("transparent huge pages on"), md);
    assertTrue(md.contains("| vector filtered | 2.00 [2.00–2.00] | 2.00 [2.00–2.00] |"), md);
    assertTrue(md.contains("| lexical | 0.50 [0.50–0.50] | 0.50 [0.50–0.50] |"), md);
    assertTrue(
        md.contains("Force-merged beats multi-segment on QPS per core for vector search: holds"),
        md);
    assertTrue(
        md.contains(
            "Mutable vs segmented-default on QPS per core at 16 clients, fixed k = num_candidates"
                + " = 100: mutable ahead in 4,"
                + " segmented-default ahead in 2, not distinguishable in 0 of 6 query types"),
        md);
    assertTrue(md.contains("lexical 0.50 [0.50–0.50]× (segmented-default ahead)"), md);
    // Single sweep cells have no interval: no direction is stated for them.
    assertTrue(
        md.contains(
            "**Concurrent segment search (conc) at 10 segments, 1 client: answers sooner in 0,"
                + " later in 0, not distinguishable in 3 of 3 query types"),
        md);
    assertTrue(pngs.size() >= 4, "pngs " + pngs);
    for (String p : pngs) {
      assertTrue(md.contains("](" + p + ")"), "report links " + p);
      assertNotNull(ImageIO.read(dir.resolve(p).toFile()), p + " is a readable image");
    }
    assertEquals(6, pngs.size(), pngs.toString());
    assertFalse(md.contains("## Failed requests"), "no cell failed");
  }

  @Test
  void includesTheCorpusRealismTableWhenTheRunHasOne(@TempDir Path dir) throws Exception {
    List<String> variants = List.of("mutable", "segmented", "segmented-forcemerged");
    new ReportWriter(dir).write(rows(), "test", "synthetic", variants, 1.0);
    assertFalse(Files.readString(dir.resolve("report.md")).contains("## The corpus"));
    Files.writeString(
        dir.resolve(CorpusRealism.FILE),
        "# Realism statistics\n\nnote\n\n| statistic | real (debian) | grown (debian-1m) |\n"
            + "|---|---:|---:|\n| documents | 63,696 | 1,000,000 |\n");
    new ReportWriter(dir).write(rows(), "test", "synthetic", variants, 1.0);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("## The corpus: real and grown side by side"), md);
    assertTrue(md.contains("| documents | 63,696 | 1,000,000 |"), md);
    assertFalse(md.contains("# Realism statistics"), "the table's own heading is dropped");
  }

  @Test
  void namesTheFirstFailureOfEveryCellThatHadFailedRequests(@TempDir Path dir) throws Exception {
    List<ResultRow> rows = new java.util.ArrayList<>(rows());
    rows.add(
        query("mutable", "before_refeed", "vector", true, 1, 100, 0.5, 2.0, null, null, 3)
            .withFirstError("HTTP 503: {\"error\":\"a | b\"}"));
    new ReportWriter(dir)
        .write(
            rows,
            "test",
            "synthetic",
            List.of("mutable", "segmented", "segmented-forcemerged"),
            1.0);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("## Failed requests"), md);
    // The table's cell separator inside a description would break the row.
    assertTrue(
        md.contains(
            "| mutable | before_refeed | vector filtered | 1 | 3 | 0 | `HTTP 503: {\"error\":\"a / b\"}` |"),
        md);
  }

  @Test
  void comparesVectorCellsAtExactlyTheTargetRecall(@TempDir Path dir) throws Exception {
    List<ResultRow> rows = new ArrayList<>();
    // At their calibrated beams mutable does 400 QPS/core and force-merged 300 (ratio 1.33); the
    // estimates at exactly recall 0.95 are 500 and 250 (ratio 2.00): the findings and the
    // at-target table use the estimates, the ≥ target table the cells as measured.
    for (String v : List.of("mutable", "segmented-forcemerged")) {
      String phase = v.endsWith("forcemerged") ? "after_merge" : "after_flush";
      boolean m = v.equals("mutable");
      for (String p : List.of(phase, "at_target")) {
        double perCore = p.equals("at_target") ? (m ? 500 : 250) : (m ? 400 : 300);
        double[] qps = new double[6];
        double[] pc = new double[6];
        for (int r = 1; r <= 6; r++) {
          ResultRow round =
              query(v, p, "vector", false, 16, perCore * (1 + 0.01 * r), 1.0, 2, null, null)
                  .withCandidates(10, m ? 20 : 40, 0.95)
                  .withRound(r);
          qps[r - 1] = round.qps();
          pc[r - 1] = round.qpsPerCore();
          rows.add(round);
        }
        rows.add(
            query(v, p, "vector", false, 16, perCore, 1.0, 2, null, null)
                .withCandidates(10, m ? 20 : 40, 0.95)
                .withInterval(Intervals.median(qps), Intervals.median(pc))
                .withQuality(p.equals("at_target") ? 0.95 : 0.96, null));
      }
    }
    new ReportWriter(dir)
        .write(rows, "test", "synthetic", List.of("mutable", "segmented-forcemerged"), 1.0);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(
        md.contains(
            "### QPS per core ratio at recall@10 = 0.95 (mutable ÷ each variant, 16 clients)"),
        md);
    assertTrue(md.contains("| vector | 2.00 [2.00–2.00] |"), md);
    assertTrue(md.contains("| vector | 1.33 [1.33–1.33] |"), md);
    assertTrue(
        md.contains("vector and hybrid at recall@10 = 0.95 (interpolated between the two beams"),
        md);
    assertTrue(md.contains("vector 2.00 [2.00–2.00]× (mutable ahead)"), md);
  }

  @Test
  void ratiosAtATargetLeaveOutTheRoundsOfAFeedThatStayedBelowIt() {
    // Three force-merged copies taken in turn: the first stayed at recall 0.946 at the largest
    // beam; the others reached 0.95. Mutable reached it in every round.
    int[] beams = {400, 60, 60};
    double[] recall = {0.946, 0.956, 0.968};
    double[] qps = {1000, 3000, 2000};
    List<ResultRow> rows = new ArrayList<>();
    for (int r = 1; r <= 6; r++) {
      int feed = (r - 1) % 3;
      rows.add(
          query("mutable", "after_flush", "vector", false, 16, 6000, 1.0, 1, null, null)
              .withCandidates(10, 10, 0.95)
              .withRound(r)
              .withQuality(0.96, null));
      rows.add(
          query(
                  "segmented-forcemerged",
                  "after_merge",
                  "vector",
                  false,
                  16,
                  qps[feed],
                  1.0,
                  1,
                  1,
                  null)
              .withCandidates(100, beams[feed], 0.95)
              .withRound(r)
              .withQuality(recall[feed], null));
    }
    rows.add(
        query("segmented-forcemerged", "after_merge", "vector", false, 16, 2000, 1.0, 1, 1, null)
            .withCandidates(100, 400, 0.95)
            .withQuality(0.946, null));
    RowIndex idx = new RowIndex(rows);
    // Per-round ratios 6, 2, 3, 6, 2, 3: the four rounds at the target give 2, 3, 2, 3.
    Intervals.Interval r = vectorRatio(rows);
    assertEquals(2.5, r.median(), 1e-9);
    assertEquals(4, r.n());
    StringBuilder md = new StringBuilder();
    ReportWriter.shortFeeds(md, idx, 0.95);
    assertTrue(
        md.toString()
            .contains("segmented-forcemerged vector, feed 1 (recall@10 0.946 at candidates 400)"),
        md.toString());
    assertEquals(
        List.of("100/400", "100/60", "100/60"), idx.roundCandidates(rows.get(rows.size() - 1)));
    // No feed reached the target: every round counts, and the at-target table marks the bound.
    List<ResultRow> allShort =
        rows.stream()
            .map(x -> x.variant().equals("mutable") ? x : x.withQuality(0.946, null))
            .toList();
    assertEquals(6, vectorRatio(allShort).n());
  }

  /** Mutable ÷ force-merged QPS per core, unfiltered vector at 16 clients and recall 0.95. */
  private static Intervals.Interval vectorRatio(List<ResultRow> rows) {
    return new Ratios(new RowIndex(rows))
        .ratio("mutable", "segmented-forcemerged", "vector", false, 16, 0.95, ResultRow::qpsPerCore)
        .orElseThrow();
  }

  @Test
  void namesTheSegmentCountOfEveryFeedTheRoundsTookInTurn(@TempDir Path dir) throws Exception {
    // Three feeds left 15, 21 and 15 segments; six rounds took them in turn. The counts come back
    // once per feed, in feed order, although the first and third are equal.
    int[] feedSegments = {15, 21, 15};
    // Each feed runs at its own beam: the second feed's measured queries needed 30.
    int[] feedBeams = {20, 30, 20};
    List<ResultRow> rows = new ArrayList<>();
    for (String v : List.of("segmented", "segmented-forcemerged")) {
      String phase = v.endsWith("forcemerged") ? "after_merge" : "after_flush";
      for (String t : List.of("lexical", "vector")) {
        for (int r = 1; r <= 6; r++) {
          Integer segments = phase.equals("after_merge") ? 1 : feedSegments[(r - 1) % 3];
          rows.add(
              query(v, phase, t, false, 16, 100 * r, 1.0, 2, segments, null)
                  .withCandidates(10, feedBeams[(r - 1) % 3], t.equals("vector") ? 0.95 : null)
                  .withRound(r));
        }
      }
    }
    RowIndex idx = new RowIndex(rows);
    ResultRow summary =
        query("segmented", "after_flush", "vector", false, 16, 300, 1.0, 2, 15, null)
            .withCandidates(10, 20, 0.95);
    assertEquals(List.of("10/20", "10/30", "10/20"), idx.roundCandidates(summary));
    assertEquals("10/20 · 10/30 · 10/20", ReportWriter.candidates(idx, summary));
    assertEquals(
        List.of("10/20"),
        new RowIndex(rows.subList(0, 1)).roundCandidates(summary.withCandidates(10, 20, 0.95)));
    assertEquals(List.of(15, 21, 15), idx.roundSegments("segmented"));
    assertEquals(List.of(1), idx.roundSegments("segmented-forcemerged"));
    String method = ReportWriter.feedsMethod(idx);
    assertTrue(method.contains("fed 3 times, each feed on its own server (15, 21, 15 segments)"));
    assertTrue(method.contains("round r measured feed (r - 1) mod 3"), method);
    assertEquals("", ReportWriter.feedsMethod(new RowIndex(rows.subList(0, 1))));
    new ReportWriter(dir)
        .write(rows, "test", "synthetic", List.of("segmented", "segmented-forcemerged"), 1.0);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("fed 3 times"), md);
    assertTrue(
        md.contains(
            "the segmented index had 15, 21 and 15 segments, one per independent feed, taken in"
                + " turn by the rounds"),
        md);
  }

  /**
   * A quantized variant's label names its float peer (the label less its {@code -int8}, {@code
   * -int4} or {@code -bbq}) and, for a force-merged one, the after-merge phase as its main one.
   */
  @Test
  void quantizedLabelsNameTheirFloatPeerAndMainPhase() {
    assertEquals("mutable", RowIndex.floatPeer("mutable-int8"));
    assertEquals("segmented", RowIndex.floatPeer("segmented-int4"));
    assertEquals("segmented-forcemerged", RowIndex.floatPeer("segmented-forcemerged-bbq"));
    assertEquals("mutable", RowIndex.floatPeer("mutable-bbq-inline"));
    assertEquals(null, RowIndex.floatPeer("segmented-forcemerged"));
    assertEquals(null, RowIndex.floatPeer("opensearch"));
    for (String q : List.of("", "-int8", "-int4", "-bbq")) {
      assertEquals("after_merge", RowIndex.mainPhase("segmented-forcemerged" + q), q);
      assertEquals("after_flush", RowIndex.mainPhase("segmented" + q), q);
    }
  }

  @Test
  void comparesEachInt8VariantWithItsFloatPeer(@TempDir Path dir) throws Exception {
    List<ResultRow> rows = new ArrayList<>();
    // At exactly recall 0.95: mutable 400 QPS/core, mutable-int8 600 (1.50× its float peer).
    for (String v : List.of("mutable", "mutable-int8")) {
      double perCore = v.equals("mutable") ? 400 : 600;
      for (String p : List.of("after_flush", "at_target")) {
        double[] qps = new double[6];
        double[] pc = new double[6];
        for (int r = 1; r <= 6; r++) {
          ResultRow round =
              query(v, p, "vector", false, 16, perCore, 1.0, 2, null, null)
                  .withCandidates(10, 10, 0.95)
                  .withRound(r);
          qps[r - 1] = round.qps();
          pc[r - 1] = round.qpsPerCore();
          rows.add(round);
        }
        for (boolean filtered : new boolean[] {false, true}) {
          if (filtered && p.equals("at_target")) {
            continue;
          }
          rows.add(
              query(v, p, "vector", filtered, 16, perCore, 1.0, 2, null, null)
                  .withCandidates(10, 10, 0.95)
                  .withInterval(Intervals.median(qps), Intervals.median(pc))
                  .withQuality(
                      p.equals("at_target") ? 0.95 : v.equals("mutable") ? 0.961 : 0.972, null));
        }
      }
      rows.add(feed(v, "feed", 2000, 1.0));
    }
    Map<String, VectorSetup> setups = new java.util.LinkedHashMap<>();
    setups.put("mutable", new VectorSetup("none", Map.of("float", 1560L, "graph", 200L)));
    setups.put(
        "mutable-int8",
        new VectorSetup(
            "int8", Map.of("float", 1544L, "float_heap", 8L, "int8", 412L, "graph", 200L)));
    new ReportWriter(dir)
        .write(rows, "test", "synthetic", List.of("mutable", "mutable-int8"), 1.0, setups);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("### Quantization at recall@10 = 0.95 (16 clients)"), md);
    // Search memory: 412 + 8 = 420 bytes against 1,560, 27%; QPS/core 600 ÷ 400.
    assertTrue(
        md.contains(
            "| mutable-int8 | int8 | {float 1544, float_heap 8, graph 200, int8 412} | 420 | 27% |"
                + " 0.972 / 0.972 | 600 [600–600] | 1.50 [1.50–1.50] | 2.0 |"),
        md);
    assertTrue(
        md.contains(
            "| mutable | float | {float 1560, graph 200} | 1560 | – | 0.961 / 0.961 |"
                + " 400 [400–400] | – | 2.0 |"),
        md);
  }

  /**
   * With a quantized mutable variant beside the segmented one of the same vectors, the report gives
   * mutable ÷ segmented at each quantization, per round at the target with intervals; the mutable
   * store's 1-bit codes are its search memory.
   */
  @Test
  void comparesTheArchitecturesAtEachQuantization(@TempDir Path dir) throws Exception {
    List<ResultRow> rows = new ArrayList<>();
    Map<String, Double> perCore =
        Map.of(
            "mutable", 400.0,
            "segmented-forcemerged", 200.0,
            "mutable-bbq", 600.0,
            "mutable-bbq-inline", 720.0,
            "segmented-forcemerged-bbq", 240.0);
    for (Map.Entry<String, Double> e : perCore.entrySet()) {
      String v = e.getKey();
      String main = RowIndex.mainPhase(v);
      for (String p : List.of(main, "at_target")) {
        double[] qps = new double[4];
        double[] pc = new double[4];
        for (int r = 1; r <= 4; r++) {
          // mutable-bbq's rounds spread ±10% around its value: medians 2.0 and 2.5.
          double[] spread = {0.9, 1.0, 1.0, 1.1};
          double x = e.getValue() * (v.equals("mutable-bbq") ? spread[r - 1] : 1);
          ResultRow round =
              query(v, p, "vector", false, 16, x, 1.0, 2, null, null)
                  .withCandidates(10, 10, 0.95)
                  .withRound(r);
          qps[r - 1] = round.qps();
          pc[r - 1] = round.qpsPerCore();
          rows.add(round);
        }
        rows.add(
            query(v, p, "vector", false, 16, e.getValue(), 1.0, 2, null, null)
                .withCandidates(10, 10, 0.95)
                .withInterval(Intervals.median(qps), Intervals.median(pc))
                .withQuality(0.95, null));
      }
    }
    Map<String, VectorSetup> setups = new java.util.LinkedHashMap<>();
    setups.put("mutable", new VectorSetup("none", Map.of("float", 1560L, "graph", 200L)));
    setups.put(
        "mutable-bbq",
        new VectorSetup(
            "bbq",
            Map.of("float", 1544L, "float_heap", 8L, "int8", 412L, "bbq", 72L, "graph", 200L)));
    setups.put(
        "mutable-bbq-inline",
        new VectorSetup(
            "bbq",
            Map.of("float", 1560L, "int8", 412L, "bbq", 72L, "bbq_inline", 2112L, "graph", 70L)));
    List<String> variants = List.copyOf(new java.util.TreeSet<>(perCore.keySet()));
    new ReportWriter(dir).write(rows, "test", "synthetic", variants, 1.0, setups);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(
        md.contains("### The architectures at each quantization, recall@10 = 0.95 (16 clients)"),
        md);
    assertTrue(md.contains("| hnsw (floats) | segmented-forcemerged | 2.00 [2.00–2.00] |"), md);
    assertTrue(md.contains("| bbq_hnsw | segmented-forcemerged-bbq | 2.50 ["), md);
    assertTrue(
        md.contains(
            "| bbq_hnsw, neighbours' codes inline | segmented-forcemerged-bbq | 3.00 [3.00–3.00] |"),
        md);
    // Search memory of the 1-bit variant: its codes and the floats' heap stamps, 80 of 1,560.
    assertTrue(md.contains("| 80 | 5% |"), md);
    // With the neighbours' codes inline: own codes, the rows and the heap floats, 3,744 of 1,560.
    assertTrue(md.contains("| 3744 | 240% |"), md);
    // run.json keeps the setups as the runner writes them, and --report-only reads them back.
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    com.fasterxml.jackson.databind.node.ObjectNode run = json.createObjectNode();
    run.putPOJO("vector_setups", setups);
    assertEquals(setups, VectorSetup.fromRun(json.readTree(run.toString())));
    assertEquals(Map.of(), VectorSetup.fromRun(json.createObjectNode()));
  }

  @Test
  void leavesTheQuantizationTableOutWhenEveryVariantIsFloat(@TempDir Path dir) throws Exception {
    new ReportWriter(dir)
        .write(
            rows(),
            "test",
            "synthetic",
            List.of("mutable", "segmented"),
            1.0,
            Map.of("mutable", new VectorSetup("none", Map.of("float", 1560L))));
    assertFalse(Files.readString(dir.resolve("report.md")).contains("### Quantization"));
  }

  @Test
  void marksARatioAgainstAVariantThatMissedTheTargetAsABound() {
    // Estimates at recall 0.95: a variant that reached the target sits at 0.95; one that did not
    // stays at what it measured at the grid's largest beam.
    List<ResultRow> at =
        List.of(
            query("mutable", "at_target", "vector", false, 16, 500, 1, 2, null, null)
                .withQuality(0.95, null),
            query("segmented", "at_target", "vector", false, 16, 300, 1, 2, null, null)
                .withQuality(0.95, null),
            query("segmented-forcemerged", "at_target", "vector", false, 16, 200, 1, 2, null, null)
                .withQuality(0.941, null),
            query("mutable", "at_target", "hybrid", true, 16, 500, 1, 2, null, null)
                .withQuality(0.93, null),
            query("segmented", "at_target", "hybrid", true, 16, 300, 1, 2, null, null)
                .withQuality(0.99, null),
            query("segmented-forcemerged", "at_target", "hybrid", true, 16, 300, 1, 2, null, null)
                .withQuality(0.94, null));
    assertEquals("", ReportWriter.bound(at, "segmented", "vector", false, 0.95));
    assertEquals("≥ ", ReportWriter.bound(at, "segmented-forcemerged", "vector", false, 0.95));
    assertEquals("≤ ", ReportWriter.bound(at, "segmented", "hybrid", true, 0.95));
    assertEquals("≈ ", ReportWriter.bound(at, "segmented-forcemerged", "hybrid", true, 0.95));
    assertEquals("", ReportWriter.bound(at, "segmented", "vector", true, 0.95), "no rows");
  }

  @Test
  void aVariantBelowTheCellsRaisedCommonRecallMakesTheRatioABoundEvenAboveTheTarget() {
    // The segmented store passed the target at the grid's smallest beam (0.988), so the cell's
    // variants were estimated at 0.988; mutable got there, the force-merged index stopped at 0.970
    // on the grid's largest beam: above the target, but not at equal recall.
    List<ResultRow> at =
        List.of(
            query("mutable", "at_target", "vector", true, 16, 500, 1, 2, null, null)
                .withQuality(0.988, null),
            query("segmented", "at_target", "vector", true, 16, 300, 1, 2, null, null)
                .withQuality(0.988, null),
            query("segmented-forcemerged", "at_target", "vector", true, 16, 200, 1, 2, null, null)
                .withQuality(0.970, null));
    assertEquals(0.988, ReportWriter.cellRecall(at, "vector", true, 0.95), 1e-12);
    assertEquals(0.95, ReportWriter.cellRecall(at, "hybrid", true, 0.95), 1e-12, "no rows");
    assertEquals("", ReportWriter.bound(at, "segmented", "vector", true, 0.95));
    assertEquals("≥ ", ReportWriter.bound(at, "segmented-forcemerged", "vector", true, 0.95));
    assertEquals(List.of("vector filtered at 0.983–0.988"), ReportWriter.raisedCells(at, 0.95));
  }

  @Test
  void theCommonRecallComesFromTheFeedsOwnRoundsNotFromAVariantsMergedSummary() {
    // Segmented feed 3 measured 0.968 at k 10 in its rounds; the variant's summary row, which
    // merges its three feeds, says 0.963. The cell is compared at 0.963–0.968.
    List<ResultRow> rows =
        List.of(
            query("mutable", "at_target", "vector", false, 16, 500, 1, 2, null, null)
                .withCandidates(10, 10, 0.95)
                .withQuality(0.964, null),
            query("segmented", "at_target", "vector", false, 16, 300, 1, 2, null, null)
                .withCandidates(10, 10, 0.95)
                .withQuality(0.963, null),
            query("segmented", "at_target", "vector", false, 16, 300, 1, 2, null, null)
                .withCandidates(10, 10, 0.95)
                .withQuality(0.968, null)
                .withRound(3),
            query("segmented", "at_target", "vector", false, 16, 300, 1, 2, null, null)
                .withCandidates(25, 25, 0.95)
                .withQuality(0.963, null)
                .withRound(1));
    RowIndex idx = new RowIndex(rows);
    assertEquals(0.964, ReportWriter.cellRecall(idx.atTarget(0.95), "vector", false, 0.95), 1e-12);
    assertEquals(0.968, ReportWriter.cellRecall(idx.estimates(0.95), "vector", false, 0.95), 1e-12);
    assertEquals(
        List.of("vector at 0.963–0.968"), ReportWriter.raisedCells(idx.estimates(0.95), 0.95));
    // A variant's own estimate is still its summary row.
    assertEquals("", ReportWriter.bound(idx.estimates(0.95), "segmented", "vector", false, 0.95));
  }

  @Test
  void estimatesWithinTheToleranceOfTheCommonRecallAreAtEqualRecall() {
    // The segmented store measured 1.000 at the grid's smallest hybrid beam; the runner estimated
    // the others at 0.995. One got there (0.995), one stopped at 0.996 on its best beam (above the
    // estimate, within 0.005), one at 0.994: more than 0.005 below 1.000, so a bound.
    List<ResultRow> at =
        List.of(
            query("mutable", "at_target", "hybrid", false, 16, 500, 1, 2, null, null)
                .withQuality(0.995, null),
            query("segmented", "at_target", "hybrid", false, 16, 300, 1, 2, null, null)
                .withQuality(1.0, null),
            query("segmented-forcemerged", "at_target", "hybrid", false, 16, 200, 1, 2, null, null)
                .withQuality(0.994, null),
            query("mutable", "at_target", "vector", false, 16, 500, 1, 2, null, null)
                .withQuality(0.95, null),
            query("segmented", "at_target", "vector", false, 16, 300, 1, 2, null, null)
                .withQuality(0.953, null),
            query("segmented-forcemerged", "at_target", "vector", false, 16, 300, 1, 2, null, null)
                .withQuality(0.949, null),
            query("segmented-forcemerged", "at_target", "vector", true, 16, 300, 1, 2, null, null)
                .withQuality(0.947, null),
            query("mutable", "at_target", "vector", true, 16, 500, 1, 2, null, null)
                .withQuality(0.95, null),
            query("segmented", "at_target", "vector", true, 16, 300, 1, 2, null, null)
                .withQuality(0.953, null));
    assertEquals("", ReportWriter.bound(at, "segmented", "hybrid", false, 0.95));
    assertEquals("≥ ", ReportWriter.bound(at, "segmented-forcemerged", "hybrid", false, 0.95));
    // A floor feed at 0.953 raises nothing (0.953 − 0.005 is below the target), and 0.949 is
    // within 0.005 of it: every ratio of the vector cell is at equal recall. 0.947 is not.
    assertEquals("", ReportWriter.bound(at, "segmented", "vector", false, 0.95));
    assertEquals("", ReportWriter.bound(at, "segmented-forcemerged", "vector", false, 0.95));
    assertEquals("≥ ", ReportWriter.bound(at, "segmented-forcemerged", "vector", true, 0.95));
    assertEquals(List.of("hybrid at 0.995–1.000"), ReportWriter.raisedCells(at, 0.95));
  }

  @Test
  void comparesTheSegmentedStoreWithRealEngines(@TempDir Path dir) throws Exception {
    List<ResultRow> rows = new ArrayList<>();
    // segmented 200 QPS/core, opensearch 250, a target whose CPU could not be read.
    for (String v : List.of("segmented", "opensearch", "prod")) {
      String source = v.equals("prod") ? ResultRow.NO_CPU : "/proc";
      double perCore = v.equals("segmented") ? 200 : 250;
      for (String t : List.of("lexical", "vector", "hybrid")) {
        for (boolean f : new boolean[] {false, true}) {
          ResultRow cell = query(v, "after_flush", t, f, 16, perCore * 2, 2.0, 5, null, null);
          double[] qps = new double[3];
          double[] pc = new double[3];
          for (int r = 1; r <= 3; r++) {
            ResultRow round = cell.withRound(r);
            qps[r - 1] = round.qps();
            pc[r - 1] = round.qpsPerCore();
            rows.add(round.withCpuSource(source));
          }
          rows.add(
              cell.withInterval(Intervals.median(qps), Intervals.median(pc)).withCpuSource(source));
        }
      }
    }
    rows.add(feed("segmented", "feed", 1000, 1.5).withCpuSource("/proc"));
    rows.add(feed("opensearch", "feed", 800, 2.0).withCpuSource("/proc").withSecondCpu(2.2));
    rows.add(feed("prod", "feed", 700, 1.0).withCpuSource(ResultRow.NO_CPU));
    new ReportWriter(dir)
        .write(rows, "test", "synthetic", List.of("segmented", "opensearch", "prod"), 1.0);
    String md = Files.readString(dir.resolve("report.md"));
    assertTrue(md.contains("## Segmented store vs real engines"), md);
    assertTrue(md.contains("OpenSearch 3.5 embedded"), md);
    assertTrue(md.contains("### segmented vs opensearch (16 clients"), md);
    assertTrue(md.contains("### segmented vs prod (16 clients"), md);
    // 200 ÷ 250 in every round; the overlap column is the engine's row's overlap@10.
    assertTrue(
        md.contains(
            "| vector filtered | – | – | 200 [200–200] | 250 [250–250] | 0.80 [0.80–0.80] | 0.900"
                + " | 0.900 | 0.800 | – | /proc / /proc |"),
        md);
    assertTrue(
        md.contains(
            "| lexical | – | – | 200 [200–200] | – | – | 0.900 | 0.900 | 0.800 | – | /proc / none |"),
        md);
    assertTrue(
        md.contains("| feed | 1000 | 667 | 800 | 400 | 2.00 (/proc) | 2.20 (_nodes/stats) |"), md);
    assertTrue(md.contains("| feed | 1000 | 667 | 700 | – | – (none) | – |"), md);
  }

  @Test
  void theFullProfileSaysWhatItKeepsAndDropsAndAWideRatioAsksForRounds(@TempDir Path dir)
      throws Exception {
    List<String> variants = List.of("mutable", "segmented", "segmented-forcemerged");
    new ReportWriter(dir).write(rows(), "full", "synthetic", variants, 1.0);
    String full = Files.readString(dir.resolve("report.md"));
    assertTrue(
        full.contains("What the full profile keeps and drops against the benchmark's procedure"),
        full);
    assertTrue(full.contains("--clients 1,2,4,8,16,32,64 --duration 20"), full);
    // Every ratio of rows() is a point: nothing to add rounds for; no cell counted a fault.
    assertFalse(full.contains("Add rounds"), full);
    assertFalse(full.contains("## Major page faults"), full);

    // The segmented store's unfiltered vector cell at 16 clients moves by up to 40% from round to
    // round while mutable's does not: that ratio's interval is far wider than +-15%.
    List<ResultRow> wide = new ArrayList<>();
    for (ResultRow r : rows()) {
      boolean moved =
          r.variant().equals("segmented")
              && r.isQueryCell()
              && "vector".equals(r.queryType())
              && Boolean.FALSE.equals(r.filtered())
              && r.clients() != null
              && r.clients() == 16
              && r.round() != null;
      if (moved) {
        double load = 1 + 0.2 * (r.round() - 3);
        r =
            query(
                    r.variant(),
                    r.phase(),
                    r.queryType(),
                    false,
                    16,
                    r.qps() * load,
                    r.cpuCores(),
                    r.avgMs(),
                    null,
                    null)
                .withRound(r.round())
                .withMajorFaults(r.round() == 2 ? 41L : 0L);
      }
      wide.add(r);
    }
    Path other = dir.resolve("standard");
    Files.createDirectories(other);
    new ReportWriter(other).write(wide, "standard", "synthetic", variants, 1.0);
    String md = Files.readString(other.resolve("report.md"));
    assertFalse(md.contains("What the full profile keeps and drops"), "only full has it");
    assertTrue(md.contains("**Add rounds:** 1 of the 16-client QPS-per-core ratios"), md);
    assertTrue(md.contains("vector mutable ÷ segmented 1.83 [1.25–3.33]"), md);
    assertFalse(md.contains("vector filtered mutable ÷ segmented"), md);
    // The one round whose server read pages from disk is named, the others (0 faults) are not.
    assertTrue(md.contains("## Major page faults"), md);
    assertTrue(md.contains("| segmented | after_flush | vector | 16 | 2 | 41 |"), md);
    assertFalse(md.contains("| segmented | after_flush | vector | 16 | 3 |"), md);
  }
}
