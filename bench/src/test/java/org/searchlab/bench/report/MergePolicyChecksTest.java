package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How the store's figures are judged against the experiment's readings: one value within 5%, a
 * range from a reading to the most it can have missed, and a lower bound.
 */
class MergePolicyChecksTest {
  private static MergePolicyChecks.Check point(double store, double reading) {
    return new MergePolicyChecks.Check("v", "feed", "f", store, reading, "how");
  }

  private static MergePolicyChecks.Check range(double store, double reading, double upper) {
    return new MergePolicyChecks.Check("v", "feed", "f", store, reading, upper, "how");
  }

  @Test
  void oneValueAgreesWithinFivePercentEitherWay() {
    assertTrue(point(100, 96).agrees());
    assertTrue(point(96, 100).agrees());
    assertFalse(point(100, 94).agrees());
    assertFalse(point(94, 100).agrees());
    assertTrue(point(0, 0).agrees());
    assertNull(new MergePolicyChecks.Check("v", "feed", "f", null, 1.0, "how").agrees());
  }

  @Test
  void aRangeTakesAnythingBetweenItsEndsAndTheToleranceBeyond() {
    // The reading saw 70 ms; two threads ended with up to 50 ms unseen: 70–170.
    assertTrue(range(109, 70, 170).agrees());
    assertTrue(range(170, 70, 170).agrees());
    assertTrue(range(178, 70, 170).agrees(), "within 5% above the upper end");
    assertFalse(range(190, 70, 170).agrees());
    assertTrue(range(67, 70, 170).agrees(), "within 5% below the reading");
    assertFalse(range(60, 70, 170).agrees());
  }

  @Test
  void aLowerBoundTakesAnythingAboveIt() {
    double inf = Double.POSITIVE_INFINITY;
    assertTrue(range(2_094_978, 835_584, inf).agrees());
    assertTrue(range(800_000, 835_584, inf).agrees());
    assertFalse(range(700_000, 835_584, inf).agrees());
  }

  @Test
  void theSectionCountsAndShowsRanges() {
    MergeWindow w =
        new MergeWindow(
            "tiered",
            MergeWindow.REFEED,
            3,
            4000,
            2.0,
            1.0,
            1.5,
            1000,
            5.0,
            8,
            20_000_000L,
            2L,
            300L,
            0L,
            null,
            null,
            2_000_000L,
            109L,
            10_000_000L,
            9_000_000L,
            3L,
            1L,
            49_000_000L,
            2,
            70.0,
            290.0,
            835_584L,
            100L,
            1_000_000L,
            12,
            20_000_000L,
            40_000_000L,
            2_100_000L,
            2,
            100.0);
    List<MergePolicyChecks.Check> checks = MergePolicyChecks.checks(List.of(w));
    MergePolicyChecks.Check cpu =
        checks.stream().filter(c -> c.figure().startsWith("merges_cpu_ms")).findFirst().get();
    assertEquals(70.0, cpu.reading());
    assertEquals(170.0, cpu.upper());
    assertTrue(cpu.agrees());
    MergePolicyChecks.Check all =
        checks.stream().filter(c -> c.figure().startsWith("wal_written")).findFirst().get();
    assertEquals(49_000_000.0, all.store(), "log + every index file");
    assertTrue(all.agrees());
    assertEquals(29_000_000L, w.kernelKeptBytes(), "written less cancelled");
    String md = MergePolicyChecks.section(List.of(w));
    assertTrue(md.contains("| 70 – 170 |"), md);
    assertTrue(md.contains("| ≥ 835,584 |"), md);
  }
}
