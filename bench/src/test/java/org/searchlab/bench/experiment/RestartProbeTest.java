package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.experiment.RestartProbe.Judgement;
import org.searchlab.bench.experiment.RestartProbe.Reading;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.testing.TestSeeds;

/**
 * The restart and memory probe on a real server child per store, 500 documents: the measurement
 * server stops, a probe JVM with the shrinking-heap flags (and, segmented, a preload) opens the
 * same index, is read after a full collection, and the measurement server comes back with the same
 * documents; and the accounting check on fabricated readings, each way. The server test runs one
 * store a run, the session's seed picking which (printed): {@code ScaleRunProbeTest} probes both
 * stores at two sizes on every run, and the two here cost the 15-minute suite about 48 s together.
 */
class RestartProbeTest {
  private static final int DIM = 16;
  private static final int DOCS = 500;

  @Test
  void probesAStoreAndBringsItsServerBack(@TempDir Path tmp) throws Exception {
    String store = (TestSeeds.seed("RestartProbeTest.store") & 1) == 0 ? "mutable" : "segmented";
    System.out.println("RestartProbeTest probes the " + store + " store");
    long seed = TestSeeds.seed("RestartProbeTest." + store);
    Corpus corpus = Corpus.synthetic(seed, DOCS, DIM, 20);
    RestartProbe.Launch launch =
        new RestartProbe.Launch(
            ServerOptions.defaults(store, DIM),
            tmp.resolve("data"),
            "256m",
            tmp.resolve("logs").resolve(store + ".log"));
    RestartProbe.Settings settings =
        new RestartProbe.Settings(
            40, Duration.ofMinutes(2), RestartProbe.PROBE_JVM_FLAGS, RestartProbe.PROBE_PRELOAD);
    try (LoadGenerator load = new LoadGenerator()) {
      Session measured =
          Session.start(launch.options(), launch.dataDir(), launch.heap(), launch.log(), load);
      List<List<String>> before;
      try {
        Feeder feeder = measured.feeder(100);
        assertEquals(0, feeder.feed(corpus.docs(), FeedOp.PUT, measured.cpu).errors());
        measured.admin.refresh();
        measured.admin.flush();
        before = measured.ids(measured.requests(corpus.queries(), QueryType.VECTOR, false));
      } catch (Exception e) {
        measured.close();
        throw e;
      }
      RestartProbe.Outcome o =
          RestartProbe.run(measured, launch, load, corpus.queries(), DOCS, settings);
      try (Session back = o.restarted()) {
        RestartProbe.Result r = o.result();
        System.out.printf(
            "RestartProbeTest %s, seed %d: close %d ms, probe start→health %d ms, →first query"
                + " %d ms, back start→health %d ms; RSS %d MiB, heap used after GC %d MiB of %d"
                + " MiB committed, parts %d KiB, preloaded %d KiB; open phases %s%n",
            store,
            seed,
            r.probe().close().toMillis(),
            r.probe().toHealth().toMillis(),
            r.probe().toFirstQuery().toMillis(),
            r.back().toHealth().toMillis(),
            r.reading().rss() >> 20,
            r.reading().heapUsedAfterGc() >> 20,
            r.reading().heapCommittedAfterGc() >> 20,
            r.reading().partsBytes() >> 10,
            r.reading().preloadedFileBytes() >> 10,
            r.probe().openPhasesMs());
        String why = "seed " + seed + ", " + r;
        assertEquals(store, r.store());
        for (RestartProbe.Restart restart : List.of(r.probe(), r.back())) {
          assertTrue(restart.close().toNanos() > 0, why);
          assertTrue(restart.toHealth().toNanos() > 0, why);
          assertTrue(restart.toFirstQuery().toNanos() > 0, why);
          assertFalse(restart.openPhasesMs().isEmpty(), "open phases: " + why);
        }
        Reading m = r.reading();
        assertTrue(m.rss() > 0 && m.rssAnon() > 0, why);
        assertTrue(m.heapUsedAfterGc() > 0, why);
        assertTrue(m.heapUsedAfterGc() <= m.heapCommittedAfterGc(), why);
        if (store.equals("mutable")) {
          assertTrue(m.parts().getOrDefault("vectors", 0L) >= (long) DOCS * DIM * 4, why);
          assertEquals(0, m.preloadedFileBytes(), why);
        } else {
          assertTrue(m.parts().containsKey("indexing_buffer"), why);
          assertTrue(m.preloadedFileBytes() > 0, why);
          // Every index file is preloaded ('*'): index files are mapped and resident in the
          // probe, beside what the JDK maps into every JVM.
          long resident =
              m.mappedByExtension().entrySet().stream()
                  .filter(e -> !JDK_MAPPED.contains(e.getKey()))
                  .mapToLong(Map.Entry::getValue)
                  .sum();
          assertTrue(resident > 0, "resident preloaded files: " + why);
        }
        // Native memory tracking is on in the probe, so the collector's structures are read.
        assertTrue(m.gcStructuresBytes() > 0, why);
        assertEquals(
            m.heapCommittedAfterGc() - m.heapUsedAfterGc() + m.gcStructuresBytes(),
            m.heapOverheadBytes());
        assertEquals(m.partsBytes() + m.preloadedFileBytes(), m.storeBytes());
        assertEquals(m.storeBytes() + m.heapOverheadBytes(), m.accountedBytes());
        // The probe ran with its own flags; the measurement server again with its own.
        String probeCommand = Files.readAllLines(launch.probeLog()).get(0);
        assertTrue(probeCommand.contains("-XX:MaxHeapFreeRatio=5"), probeCommand);
        assertEquals(store.equals("segmented"), probeCommand.contains("--preload="), probeCommand);
        List<String> measuredCommands =
            Files.readAllLines(launch.log()).stream().filter(l -> l.startsWith("# ")).toList();
        assertEquals(2, measuredCommands.size(), "started, then started again after the probe");
        assertFalse(measuredCommands.get(1).contains("MaxHeapFreeRatio"), measuredCommands.get(1));
        // Nothing was lost on the way.
        assertEquals(before, back.ids(back.requests(corpus.queries(), QueryType.VECTOR, false)));
      }
    }
  }

  /** Files the JDK maps into every JVM (its class data archive, its libraries). */
  private static final java.util.Set<String> JDK_MAPPED =
      java.util.Set.of("jsa", "so", "cache", "tmp", "");

  @Test
  void theCheckCountsTheJvmsHeapOverheadAndReportsTheStoreAlone() {
    long mib = 1L << 20;
    Reading base =
        new Reading(600 * mib, 0, 0, Map.of(), 300 * mib, 320 * mib, 40 * mib, Map.of(), 0);
    // +1000 MiB resident: parts +880, free heap +40 (60 − 20), collector's structures +20.
    Reading size =
        new Reading(
            1600 * mib,
            0,
            0,
            Map.of(),
            1200 * mib,
            1260 * mib,
            60 * mib,
            Map.of("vectors", 880 * mib),
            0);
    RestartProbe.Verdict v = RestartProbe.check(base, size);
    assertEquals(Judgement.WITHIN, v.judgement(), v.describe());
    assertEquals(940 * mib, v.accountedGrowth());
    assertEquals(880 * mib, v.storeOnlyGrowth());
    assertEquals(-0.06, v.relativeError(), 1e-9);
    assertEquals(-0.12, v.storeOnlyRelativeError(), 1e-9);
    assertTrue(v.describe().contains("store alone +880 MiB, -12.0%"), v.describe());
    // Without native memory tracking (-1) the collector's structures count as 0, not -1.
    Reading untracked =
        new Reading(1600 * mib, 0, 0, Map.of(), 1200 * mib, 1260 * mib, -1, Map.of(), 0);
    assertEquals(60 * mib, untracked.heapOverheadBytes());
  }

  @Test
  void theCollectorsStructuresAreReadFromANativeMemorySummary() {
    String summary =
        String.join(
            "\n",
            "Native Memory Tracking:",
            "",
            "Total: reserved=2498134KB, committed=458417KB",
            "-                 Java Heap (reserved=1048576KB, committed=389120KB)",
            "                            (mmap: reserved=1048576KB, committed=389120KB, at peak)",
            "-                        GC (reserved=57887KB, committed=45007KB)",
            "                            (malloc=4499KB tag=GC #2060) (peak=4499KB #2061)",
            "-                 GCCardSet (reserved=1KB, committed=1KB)",
            "-                  Compiler (reserved=199KB, committed=199KB)");
    assertEquals((45007L + 1) << 10, ServerJmx.gcStructuresBytes(summary));
    assertEquals(
        46087762L + 296,
        ServerJmx.gcStructuresBytes(
            "-                        GC (reserved=59276882, committed=46087762)\n"
                + "-                 GCCardSet (reserved=296, committed=296)"));
    assertEquals(-1, ServerJmx.gcStructuresBytes("Native memory tracking is not enabled"));
  }

  @Test
  void theCheckJudgesGrowthOnlyAboveTheNoiseFloor() {
    long mib = 1L << 20;
    Reading base = reading(600 * mib, Map.of("vectors", 10 * mib, "graph", 5 * mib), 0);
    // +1000 MiB resident, +950 MiB accounted: 5% under.
    Reading within = reading(1600 * mib, Map.of("vectors", 900 * mib, "graph", 65 * mib), 0);
    RestartProbe.Verdict v = RestartProbe.check(base, within);
    assertEquals(Judgement.WITHIN, v.judgement(), v.describe());
    assertEquals(1000 * mib, v.rssGrowth());
    assertEquals(950 * mib, v.accountedGrowth());
    assertEquals(-0.05, v.relativeError(), 1e-9);
    // +1000 MiB resident, +850 MiB accounted (preloaded files count): 15% under.
    Reading outside =
        reading(1600 * mib, Map.of("vectors", 500 * mib, "graph", 15 * mib), 350 * mib);
    assertEquals(Judgement.OUTSIDE, RestartProbe.check(base, outside).judgement());
    // Over by more than 10% is outside too.
    Reading over = reading(1600 * mib, Map.of("vectors", 1200 * mib), 0);
    assertEquals(Judgement.OUTSIDE, RestartProbe.check(base, over).judgement());
    // Exactly 10% off is within.
    Reading edge = reading(1600 * mib, Map.of("vectors", 1115 * mib), 0);
    assertEquals(Judgement.WITHIN, RestartProbe.check(base, edge).judgement());
    // 255 MiB of growth: not judged, however far the accounting is.
    Reading small = reading(855 * mib, Map.of("vectors", 10 * mib), 0);
    RestartProbe.Verdict noise = RestartProbe.check(base, small);
    assertEquals(Judgement.BELOW_NOISE_FLOOR, noise.judgement());
    assertTrue(noise.describe().contains("below the noise floor"), noise.describe());
    assertEquals(
        Judgement.WITHIN,
        RestartProbe.check(base, reading(856 * mib, Map.of("vectors", 266 * mib), 0)).judgement());
    RestartProbe.Result mutable = result("mutable", base);
    RestartProbe.Result segmented = result("segmented", within);
    assertThrows(IllegalArgumentException.class, () -> segmented.against(mutable));
    assertEquals(
        Judgement.WITHIN, result("mutable", within).against(mutable).judgement(), "against");
  }

  private static Reading reading(long rss, Map<String, Long> parts, long preloaded) {
    return new Reading(rss, rss / 2, rss / 4, Map.of(), 1, 2, -1, parts, preloaded);
  }

  private static RestartProbe.Result result(String store, Reading reading) {
    RestartProbe.Restart restart =
        new RestartProbe.Restart(
            Duration.ofMillis(1), Duration.ofMillis(2), Duration.ZERO, Map.of());
    return new RestartProbe.Result(store, 1000, restart, restart, reading, java.util.Set.of());
  }
}
