package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The scale run's probe plan (which sizes are probed: the named ones and the first, the check's
 * base) and the probe's node in the scale section, on fabricated results, without servers.
 */
class ScaleProbesTest {
  private static final List<Integer> SIZES = List.of(100_000, 300_000, 1_000_000);

  @Test
  void aPlanProbesTheSizesItNamesAndTheFirstAsTheBase() {
    ScaleProbes every = ScaleProbes.everySize(1000);
    assertTrue(SIZES.stream().allMatch(n -> every.probes(n, SIZES)));
    ScaleProbes largest = ScaleProbes.at(List.of(1_000_000), 50);
    assertEquals(
        List.of(100_000, 1_000_000), SIZES.stream().filter(n -> largest.probes(n, SIZES)).toList());
    assertEquals(50, largest.settings().warmQueriesPerType());
    assertEquals(RestartProbe.PROBE_PRELOAD, largest.settings().preload());
    assertFalse(largest.off(SIZES));
    ScaleProbes none = ScaleProbes.none();
    assertTrue(SIZES.stream().noneMatch(n -> none.probes(n, SIZES)));
    assertTrue(none.off(SIZES));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> ScaleProbes.at(List.of(200_000), 1).check(SIZES));
    assertTrue(e.getMessage().contains("200000"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ScaleProbes.everySize(-1));
  }

  @Test
  void theNodeCarriesBothRestartsTheReadingAndTheVerdict() {
    long mib = 1L << 20;
    RestartProbe.Result base = result(100_000, 600 * mib, 100 * mib);
    RestartProbe.Result grown = result(1_000_000, 1600 * mib, 1050 * mib);
    RestartProbe.Result small = result(300_000, 700 * mib, 300 * mib);

    ObjectNode b = Json.object();
    ScaleProbes.write(b, base, base);
    assertEquals("base", b.path("check").path("judgement").asText());
    assertEquals(ScaleProbes.BASE, b.path("check").path("verdict").asText());
    assertEquals(12, b.path("probe_restart").path("close_ms").asDouble(), 1e-9);
    assertEquals(250, b.path("probe_restart").path("start_to_first_query_ms").asDouble(), 1e-9);
    // The stores report phases; the total is their sum.
    assertEquals(7, b.path("probe_restart").path("open_total_ms").asLong());
    assertEquals(5, b.path("probe_restart").path("open_graph_ms").asLong());
    assertEquals(100 * mib + 4096, b.path("reading").path("accounted_bytes").asLong());
    assertEquals(100 * mib + 4096, b.path("reading").path("store_bytes").asLong());
    assertEquals(0, b.path("reading").path("heap_overhead_bytes").asLong());
    assertTrue(b.path("reading").path("gc_structures_bytes").isMissingNode(), "untracked");

    ObjectNode g = Json.object();
    ScaleProbes.write(g, grown, base);
    assertEquals("within", g.path("check").path("judgement").asText(), g.toString());
    assertEquals("within 10% (-5.0%)", g.path("check").path("verdict").asText());
    assertEquals(1000 * mib, g.path("check").path("rss_growth_bytes").asLong());
    assertEquals(100_000, g.path("check").path("base_docs").asInt());

    ObjectNode s = Json.object();
    ScaleProbes.write(s, small, base);
    assertEquals("below_noise_floor", s.path("check").path("judgement").asText());
    assertEquals(
        "below the noise floor (RSS growth < 256 MiB)", s.path("check").path("verdict").asText());

    RestartProbe.Result off = result(1_000_000, 1600 * mib, 1300 * mib);
    ObjectNode o = Json.object();
    ScaleProbes.write(o, off, base);
    assertEquals("off by +20.0%", o.path("check").path("verdict").asText());
  }

  private static RestartProbe.Result result(long docs, long rss, long parts) {
    RestartProbe.Restart restart =
        new RestartProbe.Restart(
            Duration.ofMillis(12),
            Duration.ofMillis(200),
            Duration.ofMillis(50),
            Map.of("graph", 5L, "wal", 2L));
    RestartProbe.Reading reading =
        new RestartProbe.Reading(
            rss, rss / 2, rss / 4, Map.of("vec", 1024L), 1, 1, -1, Map.of("vectors", parts), 4096);
    return new RestartProbe.Result("mutable", docs, restart, restart, reading, Set.of());
  }
}
