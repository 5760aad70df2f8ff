package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.report.ReportWriter;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.segmented.Slicing;
import org.searchlab.testing.TestSeeds;

/**
 * The segment sweep end to end at a tiny scale against real {@code searchlab serve} child
 * processes: segments of unequal sizes per count, every cell in rounds with a summary row and its
 * interval, the sequential and the concurrent setting each on a server started with its flags and
 * its slicing in the rows, one vector and one hybrid beam per segment count with the beam below
 * measured and the estimates at one recall, and the report's section and findings.
 */
class SegmentSweepTest {
  private static final List<Integer> COUNTS = List.of(8, 1);
  private static final int ROUNDS = 2;
  private static final int DOCS = 300;

  @Test
  void sweepRunsInRoundsAtEqualRecallPerSegmentCount(
      // kept on a failure, with the servers' logs under results/logs
      @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
    long seed = TestSeeds.seed("SegmentSweepTest");
    Profile p =
        Profile.quick().toBuilder()
            .name("sweep-test")
            .mainPhases(false)
            .dimension(32)
            // every check below holds for any cell length
            .warmup(Duration.ofMillis(50))
            .sweepDuration(Duration.ofMillis(150))
            // the warm-up's fewest rounds: 4 of 150 ms per type
            .sweepWarmupLimit(Duration.ofMillis(600))
            .sweepDocs(DOCS)
            .sweepSegments(COUNTS)
            .sweepClients(List.of(2))
            .sweepRounds(ROUNDS)
            .sweepSlicings(List.of(Slicing.SEGMENT_PER_SLICE))
            // k = 5 returns 5 hits, so recall@10 is at most 0.5 at the first beam: every count's
            // vector beam has a beam below it, and its estimates interpolate between the two
            .vectorBeams(List.of(5, 10, 20, 40, 100))
            .recallQueries(20)
            .build();
    Corpus corpus = Corpus.synthetic(seed, DOCS, p.dimension(), 60);
    Path out = dir.resolve("results");
    List<ResultRow> rows =
        new ExperimentRunner(
                p,
                List.of(Variant.SEGMENTED),
                corpus,
                out,
                Path.of(".").toAbsolutePath(),
                new PrintStream(System.out, true),
                false)
            .run();

    // Segments of unequal sizes, as many as asked, every document in one.
    JsonNode json = Json.MAPPER.readTree(out.resolve(SegmentSweep.FILE_JSON).toFile());
    for (int count : COUNTS) {
      JsonNode docs = json.path("docs_per_segment").path(String.valueOf(count));
      assertEquals(count, docs.size(), json.toString());
      int sum = 0;
      for (JsonNode d : docs) {
        sum += d.asInt();
      }
      assertEquals(DOCS, sum, json.toString());
    }
    JsonNode most = json.path("docs_per_segment").path("8");
    assertTrue(most.get(0).asInt() > 2 * most.get(7).asInt(), "tiered sizes: " + most);

    // Every round warmed every count's servers on each type before its cells, and kept the curve.
    Set<String> warmed = new TreeSet<>();
    for (JsonNode w : json.path("warmup")) {
      int curve = w.path("cpu_ms_per_query").size();
      assertEquals(4, curve, "4 warm-up rounds of 150 ms in 600 ms: " + w);
      warmed.add(
          w.path("round").asInt()
              + "|"
              + w.path("segments").asInt()
              + "|"
              + w.path("setting").asText()
              + "|"
              + w.path("type").asText());
    }
    assertEquals(ROUNDS * COUNTS.size() * 2 * 4, warmed.size(), warmed.toString());
    assertEquals(warmed.size(), json.path("warmup").size(), "one warm-up each");
    // The machine reference after every round's cells of every count.
    assertEquals(ROUNDS * COUNTS.size(), json.path("machine_reference").size(), json.toString());
    for (JsonNode m : json.path("machine_reference")) {
      assertTrue(m.path("ns_per_op").asLong() > 0, m.toString());
    }

    Map<String, List<ResultRow>> cells = new HashMap<>();
    Map<String, Set<Integer>> beams = new HashMap<>();
    for (ResultRow r : rows) {
      assertTrue(r.phase().startsWith(Phases.SWEEP), r.toString());
      assertEquals(0, r.errors(), r.toString());
      // A round's cell on a loaded machine may finish no query in its window; its cell's median
      // over the rounds must show some.
      assertTrue(r.round() != null ? r.qps() >= 0 : r.qps() > 0, r.toString());
      assertTrue(COUNTS.contains(r.segments()), r.toString());
      boolean seq = r.searchThreads().equals(SegmentSweep.SEQUENTIAL);
      assertEquals(seq ? null : "segment-per-slice", r.slicing(), r.toString());
      assertTrue(seq || r.searchThreads().equals(SegmentSweep.DEFAULT_POOL), r.toString());
      assertTrue(r.recallAt10() != null, "recall in " + r);
      String key =
          String.join(
              "|",
              r.phase(),
              r.queryType(),
              String.valueOf(r.segments()),
              r.searchThreads(),
              String.valueOf(r.clients()));
      cells.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
      if (r.phase().equals(Phases.SWEEP) && r.numCandidates() != null) {
        beams
            .computeIfAbsent(r.queryType() + "|" + r.segments(), k -> new TreeSet<>())
            .add(r.numCandidates());
      }
    }
    // Every cell: one row a round and a summary with its interval.
    for (Map.Entry<String, List<ResultRow>> e : cells.entrySet()) {
      List<ResultRow> c = e.getValue();
      assertEquals(ROUNDS + 1, c.size(), e.getKey());
      ResultRow summary = c.stream().filter(r -> r.round() == null).findFirst().orElseThrow();
      assertEquals(ROUNDS, summary.rounds(), e.getKey());
      assertTrue(
          summary.qpsPerCoreLow() <= summary.qpsPerCore()
              && summary.qpsPerCore() <= summary.qpsPerCoreHigh(),
          "median inside its interval: " + summary);
    }
    // Each type and count measured in both settings, at the sweep's phases.
    for (String type : List.of("vector", "lexical", "hybrid", FacetedRounds.LABEL)) {
      for (int count : COUNTS) {
        for (String threads : List.of(SegmentSweep.SEQUENTIAL, SegmentSweep.DEFAULT_POOL)) {
          String cell = "|" + type + "|" + count + "|" + threads + "|2";
          assertTrue(cells.containsKey(Phases.SWEEP + cell), cell);
          boolean calibrated = type.equals("vector") || type.equals("hybrid");
          assertEquals(calibrated, cells.containsKey(Phases.SWEEP_AT_TARGET + cell), cell);
          if (type.equals("vector")) {
            assertTrue(cells.containsKey(Phases.SWEEP_BELOW_BEAM + cell), cell);
          }
        }
      }
    }
    // One beam per calibrated type and segment count, the same in both settings and every round;
    // the estimates at the goal lie within the equal-recall tolerance of each other.
    for (String type : List.of("vector", "hybrid")) {
      for (int count : COUNTS) {
        assertEquals(1, beams.get(type + "|" + count).size(), type + " at " + count);
      }
      double goal = json.path("recall_goal").path(type).asDouble();
      List<Double> estimates =
          rows.stream()
              .filter(
                  r ->
                      r.phase().equals(Phases.SWEEP_AT_TARGET)
                          && r.queryType().equals(type)
                          && r.round() == null)
              .map(ResultRow::recallAt10)
              .toList();
      assertEquals(COUNTS.size() * 2, estimates.size(), type);
      for (double r : estimates) {
        assertTrue(r >= goal - 1e-9, type + " estimate " + r + " below the goal " + goal);
      }
      double spread =
          estimates.stream().mapToDouble(d -> d).max().orElseThrow()
              - estimates.stream().mapToDouble(d -> d).min().orElseThrow();
      assertTrue(spread <= ReportWriter.EQUAL_RECALL + 1e-9, type + " estimates " + estimates);
    }
    // Each setting's server got its flags.
    for (int count : COUNTS) {
      String conc =
          Files.readString(
              out.resolve("logs").resolve("sweep-" + count + "-conc-segment-per-slice.log"));
      assertTrue(conc.contains("--slicing=segment-per-slice"), conc.lines().findFirst().orElse(""));
      String seq = Files.readString(out.resolve("logs").resolve("sweep-" + count + "-seq.log"));
      assertTrue(seq.contains("--segment-search-threads=0"), seq.lines().findFirst().orElse(""));
    }
    assertTrue(!Files.exists(out.resolve("data")), "the sweep's indexes are deleted");

    String report = Files.readString(out.resolve("report.md"));
    for (String expected :
        List.of(
            "## Segment-count sweep",
            "### Segments and beams",
            "in rounds until its JIT was done",
            "warm-ups of",
            "Machine reference: after each count's cells",
            "### vector filtered",
            "### faceted filtered",
            "### Ratios",
            "CPU per query at 8 ÷ 1 segments",
            "**CPU per query at 8 segments vs 1, sequential search:",
            "**Concurrent segment search (conc segment-per-slice) at 8 segments, 2 clients:",
            "sweep-segments.png")) {
      assertTrue(report.contains(expected), "report lacks " + expected + ":\n" + report);
    }
    // The beams table names each count's vector beam and the beam below it.
    for (int count : COUNTS) {
      int beam = beams.get("vector|" + count).iterator().next();
      int below = p.vectorBeams().get(p.vectorBeams().indexOf(beam) - 1);
      String cell = "| " + beam + " (" + below + ") |";
      assertTrue(
          report.lines().anyMatch(l -> l.startsWith("| " + count + " | ") && l.contains(cell)),
          cell + " of " + count + " segments in\n" + report);
    }
  }
}
