package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Schema;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.disk.PowerLossCycles;

/**
 * Power-loss cycles of the mutable store (issue 70, design note §4.4): four writers put, partially
 * update and delete 200 ids while snapshots run, from an explicit flusher and the store's own
 * timer; the power is cut at a random moment, often inside a snapshot, and the store reopened on
 * the image must hold every acknowledged write and nothing torn or resurrected. Three cuts in the
 * build; {@code -Dpower.cuts=20} over many seeds is the acceptance run ({@code
 * qa/power/run-cycles.sh}).
 */
class MutablePowerLossCycleTest {
  private static final int DIM = 8;

  @TempDir Path tmp;

  @Test
  @Tag("restart")
  @Tag("power")
  void everyAcknowledgedWriteSurvivesPowerCutsWithSnapshotsInside() throws Exception {
    long seed =
        TestSeeds.seed(
            "MutablePowerLossCycleTest.everyAcknowledgedWriteSurvivesPowerCutsWithSnapshotsInside");
    Schema schema = new Schema(DIM);
    MutableConfig config =
        MutableConfig.builder()
            .hnsw(HnswConfig.builder().efConstruction(16).build())
            .snapshotInterval(Duration.ofMillis(25))
            .build();
    PowerLossCycles.Summary s =
        new PowerLossCycles(
                new PowerLossCycles.Settings(
                    "mutable",
                    PowerLossCycles.cuts(3),
                    4,
                    200,
                    DIM,
                    seed,
                    tmp,
                    dir -> MutableIndex.open(dir, schema, config)),
                System.out)
            .run();
    assertEquals(0, s.violations(), s.toString());
    assertTrue(s.acknowledged() > 0, "nothing was acknowledged: " + s);
  }
}
