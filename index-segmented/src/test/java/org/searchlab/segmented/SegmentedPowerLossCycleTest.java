package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Schema;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.disk.PowerLossCycles;

/**
 * Power-loss cycles of the segmented store (issue 70, design note §4.4): four writers put,
 * partially update and delete 200 ids while Lucene commits run, from an explicit flusher, the size
 * threshold and the idle commit, with refreshes every 20 ms and merges of the small segments they
 * make; the power is cut at a random moment, often inside a commit, and the store reopened on the
 * image must hold every acknowledged write and nothing torn or resurrected. Three cuts in the
 * build; {@code -Dpower.cuts=20} over many seeds is the acceptance run ({@code
 * qa/power/run-cycles.sh}).
 */
class SegmentedPowerLossCycleTest {
  private static final int DIM = 8;

  @TempDir Path tmp;

  @Test
  @Tag("restart")
  @Tag("power")
  void everyAcknowledgedWriteSurvivesPowerCutsWithCommitsInside() throws Exception {
    long seed =
        TestSeeds.seed(
            "SegmentedPowerLossCycleTest.everyAcknowledgedWriteSurvivesPowerCutsWithCommitsInside");
    Schema schema = new Schema(DIM);
    SegmentedConfig config =
        SegmentedConfig.builder()
            .refreshIntervalMs(20)
            .flushThresholdBytes(64 << 10)
            .flushIdleMs(100)
            .hnswM(8)
            .hnswBeamWidth(16)
            .mergeThreads(1)
            .build();
    PowerLossCycles.Summary s =
        new PowerLossCycles(
                new PowerLossCycles.Settings(
                    "segmented",
                    PowerLossCycles.cuts(3),
                    4,
                    200,
                    DIM,
                    seed,
                    tmp,
                    dir -> LuceneSegmentedIndex.open(dir, schema, config)),
                System.out)
            .run();
    assertEquals(0, s.violations(), s.toString());
    assertTrue(s.acknowledged() > 0, "nothing was acknowledged: " + s);
  }
}
