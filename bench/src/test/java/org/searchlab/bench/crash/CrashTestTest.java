package org.searchlab.bench.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.TestSeeds;

/**
 * A small {@code crashtest} as CI runs it: real server children, two SIGKILL cycles and a SIGTERM
 * one, every acknowledged operation checked, the second server refused. One of two variants a run,
 * the session's seed picking which (printed; {@code -Dtests.seed=N} repeats it), so that runs cover
 * both: the two cost the 15-minute suite about 64 s together, and each store's crash recovery has
 * its own kill, power-loss and crash-point tests in its module.
 */
class CrashTestTest {
  private static final List<String> VARIANTS = List.of("mutable:int8", "mutable,segmented");

  @TempDir Path tmp;

  @Test
  void noAcknowledgedOperationIsLostAcrossKills() throws Exception {
    String variant = VARIANTS.get((int) (TestSeeds.seed("CrashTestTest.variant") & 1));
    System.out.println("CrashTestTest runs " + variant);
    // "mutable:int8": the mutable store with int8 codes, its floats in a mapped scratch file that
    // every restart writes again from the log and the snapshot; the check reads them back.
    // "mutable,segmented": one server with an index of each kind, every bulk writing to both and
    // every acknowledged operation checked in both, so it covers each store's own run as well (the
    // single-store variants it replaced cost CI about 35 s for no check this one lacks).
    String store = variant.split(":")[0];
    VectorQuantization quantization =
        variant.endsWith(":int8") ? VectorQuantization.INT8 : VectorQuantization.NONE;
    long seed = TestSeeds.seed("CrashTestTest." + variant);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    CrashTest.Summary s =
        new CrashTest(
                new CrashTest.Settings(
                    store,
                    3,
                    2,
                    400,
                    8,
                    seed,
                    Duration.ofMillis(800),
                    Duration.ofMillis(2000),
                    tmp.resolve("data"),
                    "256m",
                    quantization,
                    false),
                out)
            .run();
    String report = bytes.toString(StandardCharsets.UTF_8);
    System.out.print(report);
    assertEquals(0, s.violations(), report);
    assertTrue(s.refused(), "the second server was refused:\n" + report);
    assertTrue(s.acknowledged() > 0, report);
    assertEquals(3, s.restartMillis().size(), report);
    assertTrue(report.contains("SIGTERM") && report.contains("SIGKILL"), report);
  }
}
