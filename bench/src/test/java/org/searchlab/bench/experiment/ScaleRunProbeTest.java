package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.testing.TestSeeds;

/**
 * The scale job's restart and memory probe end to end (design-68 §5.4), on a run of its own: the
 * same tiny cells as {@link ScaleRunTest} on real mutable, segmented and force-merged server
 * children, grown 1k → 2k, lexical cells only (the probe's costs are its restarts, which neither
 * the size nor the query types change). The probe plan names the largest size, so the run's first
 * size is probed with it as the check's base. It checks the probe at both sizes, of the grown
 * stores only, with the two restarts timed and the store's open phases; the check below the noise
 * floor (2k × 16-d cannot grow the RSS by 256 MiB: this asserts the rule, not a number); that the
 * run carried on with the restarted servers (the larger size's rounds of every store, and the
 * mutable store's vectors holding the documents fed before the restart and after it); the report's
 * probe section and plot, rendered again by {@code --report-only}. The probes warm with {@value
 * #PROBE_WARM} queries per type rather than 1,000: the readings are checked for their rule, not
 * their size.
 */
class ScaleRunProbeTest {
  private static final List<Integer> SIZES = List.of(1_000, 2_000);
  private static final int PROBE_WARM = 20;

  @Test
  void probesTheGrownStoresAtTheBaseAndTheLargestSize(
      @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
    Path out = dir.resolve("results");
    List<ResultRow> rows =
        ScaleRunTest.run(
            TestSeeds.seed("ScaleRunProbeTest"),
            SIZES,
            List.of(QueryType.LEXICAL),
            out,
            r ->
                r.probing(ScaleProbes.at(List.of(SIZES.getLast()), PROBE_WARM))
                    .profiling(Duration.ZERO, null));
    String report = Files.readString(out.resolve("report.md"));
    JsonNode scale = new ObjectMapper().readTree(out.resolve("run.json").toFile()).path("scale");
    assertEquals(SIZES.size(), scale.path("per_size").size(), scale.toString());

    for (JsonNode size : scale.path("per_size")) {
      int n = size.path("docs").asInt();
      for (String v : List.of("mutable", "segmented", "segmented-forcemerged")) {
        JsonNode probe = size.path("servers").path(v).path("probe");
        String what = v + " at " + n + ": " + probe;
        // The grown stores only; the force-merged copy is not probed.
        assertEquals(!v.equals("segmented-forcemerged"), probe.isObject(), what);
        if (!probe.isObject()) {
          continue;
        }
        for (String restart : List.of("probe_restart", "return_restart")) {
          JsonNode r = probe.path(restart);
          assertTrue(r.path("close_ms").asDouble() > 0, restart + " close, " + what);
          assertTrue(r.path("start_to_first_query_ms").asDouble() > 0, restart + ", " + what);
          assertTrue(r.path("open_total_ms").isNumber(), restart + " open_total_ms, " + what);
        }
        assertTrue(probe.path("reading").path("vm_rss_bytes").asLong() > 0, what);
        assertTrue(probe.path("reading").path("accounted_bytes").asLong() > 0, what);
        JsonNode check = probe.path("check");
        assertEquals(SIZES.getFirst(), check.path("base_docs").asInt(), what);
        if (n == SIZES.getFirst()) {
          assertEquals("base", check.path("judgement").asText(), what);
        } else {
          assertEquals("below_noise_floor", check.path("judgement").asText(), what);
          assertTrue(check.path("verdict").asText().startsWith("below the noise floor"), what);
          assertTrue(
              check.path("rss_growth_bytes").asLong() < RestartProbe.NOISE_FLOOR_BYTES, what);
          String line = String.format(java.util.Locale.ROOT, "| %,d | %s |", n, v);
          assertTrue(
              report
                  .lines()
                  .anyMatch(
                      l ->
                          l.startsWith(line)
                              && l.contains("| below the noise floor (RSS growth < 256 MiB) |")
                              && l.matches(".*\\| ([-+]\\d+\\.\\d%|–) \\|$")),
              "the memory-check row of " + line);
        }
      }
      // The restarted mutable server holds every document fed before the probe and after it.
      long floats =
          size.path("servers")
              .path("mutable")
              .path("reported_bytes")
              .path("memory_bytes.vectors")
              .asLong();
      assertTrue(floats >= (long) n * ScaleRunTest.DIM * Float.BYTES, "mutable's vectors at " + n);
    }
    // The run carried on with the restarted servers: the larger size's rounds of every store.
    int last = SIZES.getLast();
    for (Variant v : List.of(Variant.MUTABLE, Variant.SEGMENTED, Variant.SEGMENTED_FORCEMERGED)) {
      for (boolean filtered : new boolean[] {false, true}) {
        String what = v.label() + " lexical" + (filtered ? " filtered" : "");
        long measured =
            rows.stream()
                .filter(
                    r ->
                        r.docs() == last
                            && v.label().equals(r.variant())
                            && PairedRounds.phaseOf(v).equals(r.phase())
                            && "lexical".equals(r.queryType())
                            && Boolean.valueOf(filtered).equals(r.filtered())
                            && r.round() != null
                            && r.qps() != null
                            && r.qps() > 0)
                .count();
        assertEquals(2, measured, what);
      }
    }
    assertTrue(
        report.contains(
            "restart and memory probe at [1000, 2000] documents, 20 warm queries per type;"
                + " base 1,000"),
        report);
    assertTrue(report.contains("## Restart and memory probe"), report);
    assertTrue(report.contains("### Restarts (ms)"), report);
    assertTrue(report.contains("### Memory check (MiB)"), report);
    assertTrue(report.contains("with a warm page cache"), report);
    assertTrue(report.contains("![scale-restart.png]"), report);
    assertTrue(Files.size(out.resolve("scale-restart.png")) > 0, "scale-restart.png");
    ScaleRunTest.assertRerenders(out, report);
  }
}
