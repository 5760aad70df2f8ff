package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.testing.TestSeeds;

/**
 * The whole experiment at a tiny scale against real {@code searchlab serve} child processes (both
 * stores): every row has the schema's fields, every phase is there, recall and overlap are
 * computed, and report.md links at least four PNGs.
 */
class ExperimentIntegrationTest {
  private static final List<String> QUERY_FIELDS =
      List.of(
          "variant",
          "phase",
          "query_type",
          "filtered",
          "clients",
          "segments",
          "search_threads",
          "qps",
          "avg_ms",
          "p50_ms",
          "p95_ms",
          "p99_ms",
          "p999_ms",
          "cpu_cores",
          "qps_per_core",
          "recall_at_10",
          "overlap_at_10");

  /** Error bound of one /proc CPU reading difference: 4 ticks of 10 ms (process + compilers). */
  private static final double TICK_RESOLUTION_SECONDS = 0.04;

  private static final List<String> FEED_FIELDS =
      List.of("docs_per_sec", "cpu_cores", "docs_per_sec_per_core");
  private static final List<String> CONTEXT_FIELDS =
      List.of("machine", "jdk", "commit", "docs", "dim");

  @Test
  void tinyRunProducesTheSchemaAndTheReport(
      // kept on a failure, with the servers' logs under results/logs
      @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
    long seed = TestSeeds.seed("ExperimentIntegrationTest");
    Profile p =
        Profile.quick().toBuilder()
            // The servers' writes at nice 0: the build's second test JVM runs beside this one, and
            // a mutable store writing at its own nice 19 waits on it (a 1,500-document feed took
            // 15.8 s instead of 6.1); nothing checked here depends on the niceness.
            .serverFeedNiceness(0.0)
            .docs(1_500)
            .dimension(32)
            // One client count: the second doubled the main cells and checked nothing more here
            // (the saturation plots and per-client tables have ReportWriterTest's rows).
            .clients(List.of(4))
            // The timed cells' length is most of this test's time, and every check below holds
            // for any length
            .warmup(Duration.ofMillis(50))
            .duration(Duration.ofMillis(150))
            // one client count in the refeed-under-queries cells: the quick profile's two would
            // double their cells and check nothing more here
            .refeedClients(List.of(4))
            // 5 of the grid's 12 vector beams: each costs a curve cell per variant and filter
            .vectorBeams(List.of(10, 20, 40, 100, 400))
            .recallQueries(20)
            .rounds(2)
            .feeds(2)
            .calibrationQueries(20)
            // the sweep has its own end-to-end test (SegmentSweepTest)
            .sweepDocs(0)
            // Two rounds of the refeed under queries: one row per cell still, pooled over both.
            .refeedRounds(2)
            .build();
    Corpus corpus = Corpus.synthetic(seed, p.docs(), p.dimension(), 100);
    Path out = dir.resolve("results");
    List<ResultRow> rows =
        new ExperimentRunner(
                p,
                List.of(Variant.MUTABLE, Variant.SEGMENTED, Variant.SEGMENTED_FORCEMERGED),
                corpus,
                out,
                Path.of(".").toAbsolutePath(),
                new PrintStream(System.out, true),
                true)
            .run();
    // --keep-data: every variant's index directory stays under the output, the second feed of
    // the default segmented index (round 2 measured it) with its own server log, and the
    // force-merged copy of that feed
    for (String kept :
        List.of(
            "mutable",
            "segmented",
            "segmented-feed2",
            "segmented-forcemerged",
            "segmented-forcemerged-feed2")) {
      try (var files = Files.list(out.resolve("data").resolve(kept))) {
        assertTrue(files.findAny().isPresent(), "kept data of " + kept);
      }
    }
    assertTrue(Files.size(out.resolve("logs").resolve("segmented-feed2.log")) > 0);
    assertTrue(Files.size(out.resolve("logs").resolve("segmented-forcemerged-feed2.log")) > 0);
    // Each server's GC pauses beside its log, and its peak resident memory once it stopped.
    try (var files = Files.list(out.resolve("logs"))) {
      List<Path> gc =
          files.filter(f -> f.getFileName().toString().startsWith("mutable-gc-")).toList();
      assertTrue(!gc.isEmpty(), "a GC log of the mutable server");
      for (Path f : gc) {
        assertTrue(Files.readString(f).contains("Using G1"), f + " is a GC log");
      }
    }
    if (Files.isReadable(Path.of("/proc/self/status"))) {
      assertTrue(
          Files.readString(out.resolve("logs").resolve("segmented-feed2.log"))
              .contains("# peak resident memory (VmHWM): "),
          "peak memory in the log of a stopped server");
    }
    assertTrue(rows.size() > 0);

    ObjectMapper json = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    for (String l : Files.readAllLines(out.resolve("results.jsonl"))) {
      lines.add(json.readTree(l));
    }
    assertEquals(rows.size(), lines.size());
    Set<String> phases = new HashSet<>();
    java.util.Map<String, Integer> refeedCells = new java.util.HashMap<>();
    Set<String> busy = new HashSet<>();
    for (JsonNode n : lines) {
      for (String f : CONTEXT_FIELDS) {
        assertTrue(n.hasNonNull(f), "field " + f + " in " + n);
      }
      assertTrue(n.path("machine").path("cores").asInt() > 0, n.toString());
      assertTrue(!n.path("machine").path("cpu_model").asText().isEmpty(), n.toString());
      for (String f : QUERY_FIELDS) {
        assertTrue(n.has(f), "field " + f + " in " + n);
      }
      for (String f : FEED_FIELDS) {
        assertTrue(n.has(f), "field " + f + " in " + n);
      }
      String phase = n.get("phase").asText();
      phases.add(n.get("variant").asText() + "/" + phase);
      if (phase.equals("before_refeed") || phase.equals("during_refeed")) {
        refeedCells.merge(n.get("variant").asText() + "/" + phase, 1, Integer::sum);
        // pooled over the two rounds: twice the window of one cell
        assertEquals(
            2 * p.refeedDuration().toMillis() / 1000.0, n.get("seconds").asDouble(), 1e-3, "" + n);
      }
      if (n.get("query_type").isNull()) {
        assertTrue(n.get("docs_per_sec").asDouble() > 0, "feed rate in " + n);
        assertTrue(n.get("cpu_cores").asDouble() > 0, "feed CPU in " + n);
        assertEquals(0, n.get("errors").asLong(), "rejected documents in " + n);
      } else {
        // Under a refeed a 0.15 s cell may see every request queued behind a bulk: 0 is a
        // measurement there, not a failure.
        assertTrue(
            phase.equals("during_refeed")
                ? n.get("qps").asDouble() >= 0
                : n.get("qps").asDouble() > 0,
            "qps in " + n);
        // CPU time comes from /proc in clock ticks (10 ms), truncated once for the process and
        // once per JIT compiler thread it leaves out, so one window's reading is exact only to a
        // few ticks: a 0.15 s cell may read a little below zero. A variant's cells together must
        // show work.
        assertTrue(
            n.get("cpu_cores").asDouble() >= -TICK_RESOLUTION_SECONDS / n.get("seconds").asDouble(),
            "server CPU in " + n);
        if (n.get("cpu_cores").asDouble() > 0) {
          busy.add(n.get("variant").asText());
        }
        assertEquals(0, n.get("errors").asLong(), "failed queries in " + n);
        boolean summary =
            (phase.equals("after_flush") || phase.equals("after_merge")) && n.get("round").isNull();
        if (summary || phase.equals("calibration")) {
          assertTrue(n.get("recall_at_10").isNumber(), "recall in " + n);
          assertTrue(n.get("recall_at_10_ids").isNumber(), "id recall in " + n);
          // Exhaustive lexical search is exact BM25: tie-aware recall sees no difference (the
          // faceted hits are the lexical ones).
          if (lexicalHits(n)) {
            assertEquals(1.0, n.get("recall_at_10").asDouble(), 1e-9, "lexical recall in " + n);
          }
        }
        // Every round of the force-merged variant, on either feed's copy, ran on one segment.
        if (phase.equals("after_merge") && !n.get("round").isNull()) {
          assertEquals(1, n.get("segments").asInt(), "segments in " + n);
        }
        if (summary) {
          assertTrue(n.get("overlap_at_10").isNumber(), "overlap in " + n);
          assertEquals(2, n.get("rounds").asInt(), "rounds in " + n);
          assertTrue(
              n.get("qps_per_core_low").asDouble() <= n.get("qps_per_core").asDouble()
                  && n.get("qps_per_core").asDouble() <= n.get("qps_per_core_high").asDouble(),
              "median inside its interval in " + n);
          if (!lexicalHits(n)) {
            assertTrue(
                n.get("num_candidates").asInt() >= n.get("target_hits").asInt(), n.toString());
            assertEquals(
                Profile.DEFAULT_RECALL_TARGET, n.get("recall_target").asDouble(), n.toString());
          }
          if (lexicalHits(n)) {
            assertEquals(1.0, n.get("overlap_at_10").asDouble(), 1e-9, "lexical overlap in " + n);
          }
        }
      }
    }
    for (String expected :
        List.of(
            "mutable/feed",
            "mutable/" + Phases.FEED_SAME_CLIENT,
            "mutable/after_flush",
            "mutable/refeed",
            "mutable/update",
            "mutable/before_refeed",
            "mutable/during_refeed",
            "mutable/refeed_with_queries",
            "segmented/feed",
            "segmented/after_flush",
            "segmented-forcemerged/after_merge",
            "segmented/refeed",
            "segmented/update",
            "segmented/before_refeed",
            "segmented/during_refeed",
            "segmented/refeed_with_queries",
            "mutable/calibration",
            "segmented/calibration",
            "segmented-forcemerged/calibration")) {
      assertTrue(phases.contains(expected), "missing " + expected + " in " + phases);
    }
    assertEquals(Set.of("mutable", "segmented", "segmented-forcemerged"), busy);
    int cellsPerSide = QueryType.values().length * p.refeedClients().size();
    assertEquals(
        java.util.Map.of(
            "mutable/before_refeed", cellsPerSide,
            "mutable/during_refeed", cellsPerSide,
            "segmented/before_refeed", cellsPerSide,
            "segmented/during_refeed", cellsPerSide),
        refeedCells,
        "one row per cell and side over both rounds");
    // The same-client feed's server is stopped and its index deleted once it is measured.
    assertFalse(Files.exists(out.resolve("data").resolve("mutable-same-client")));
    String report = Files.readString(out.resolve("report.md"));
    long pngs;
    try (var files = Files.list(out)) {
      pngs =
          files
              .filter(f -> f.toString().endsWith(".png"))
              .peek(f -> assertTrue(report.contains(f.getFileName().toString())))
              .count();
    }
    assertTrue(pngs >= 4, "PNGs: " + pngs);
    // the estimates at exactly the target recall, one a round, variant and calibrated cell at the
    // curve's client count (4 here), and their table
    long atTarget =
        lines.stream()
            .filter(
                l ->
                    l.path("phase").asText().equals(Phases.AT_TARGET)
                        && !l.path("round").isMissingNode()
                        && !l.path("round").isNull())
            .peek(l -> assertEquals(4, l.path("clients").asInt()))
            .count();
    assertEquals(2 * 3 * 4, atTarget, "at_target rows: rounds × variants × calibrated cells");
    assertTrue(report.contains("### QPS per core ratio at recall@10 = 0.95"), "at-target table");
    for (String curve :
        List.of(
            "recall-qps-vector.png",
            "recall-qps-vector-filtered.png",
            "recall-qps-hybrid.png",
            "recall-qps-hybrid-filtered.png")) {
      assertTrue(Files.exists(out.resolve(curve)), curve);
      assertTrue(report.contains("](" + curve + ")"), "link to " + curve);
    }
    assertTrue(report.contains("## Calibration"), report);
    assertTrue(report.contains("## What this run shows"), report);
    faceted(out, lines, report);
  }

  /**
   * The faceted cells: every variant (the mutable store's product index from its attribute columns,
   * both segmented ones from doc values) answered every quality query with the oracle's buckets and
   * has its cells in paired rounds, at one client count (the quick profile's largest), with a
   * flight recording of each and the profile table.
   */
  private static void faceted(Path out, List<JsonNode> lines, String report) throws IOException {
    JsonNode facets = Json.MAPPER.readTree(out.resolve(FacetedRounds.FILE_JSON).toFile());
    Map<String, JsonNode> byVariant = new java.util.HashMap<>();
    facets.path("variants").forEach(v -> byVariant.put(v.path("variant").asText(), v));
    for (String v : List.of("mutable", "segmented", "segmented-forcemerged")) {
      assertEquals("measured", byVariant.get(v).path("state").asText(), facets.toString());
      assertEquals(1.0, byVariant.get(v).path("buckets_exact").asDouble(), facets.toString());
      assertEquals(
          1.0, byVariant.get(v).path("buckets_exact_filtered").asDouble(), facets.toString());
      assertTrue(Files.size(out.resolve("profiles").resolve(v + "-faceted.jfr")) > 0, v);
      assertTrue(facets.path("profiles").path(v).path("samples").asLong() > 0, facets.toString());
    }
    Map<String, Long> rounds = new java.util.TreeMap<>();
    for (JsonNode l : lines) {
      if (!l.path("query_type").asText().equals(FacetedRounds.LABEL)) {
        continue;
      }
      assertEquals(4, l.path("clients").asInt(), l.toString());
      if (!l.path("round").isNull()) {
        rounds.merge(l.path("variant").asText(), 1L, Long::sum);
      }
    }
    // rounds × filter settings, at one client count
    assertEquals(
        java.util.Map.of("mutable", 4L, "segmented", 4L, "segmented-forcemerged", 4L), rounds);
    assertTrue(report.contains("## Faceted queries"), report);
    assertTrue(report.contains("### Where faceting time goes"), report);
    assertTrue(report.contains("### faceted, filtered"), report);
  }

  /** Whether a row's hits are the lexical query's (lexical and faceted cells). */
  private static boolean lexicalHits(JsonNode n) {
    String t = n.get("query_type").asText();
    return t.equals("lexical") || t.equals(FacetedRounds.LABEL);
  }
}
