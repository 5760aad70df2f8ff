package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;

/**
 * The estimate at exactly the target recall from one round's cells at the calibrated beam and at
 * the beam below it (hand-made cells; the arithmetic is the point).
 */
class AtTargetTest {
  private static final RunInfo INFO =
      new RunInfo(new RunInfo.Machine(2, "cpu", false), "jdk", "abc", "test", 1000, 32);

  private static ResultRow cell(int candidates, double qps, double cores, double avgMs) {
    return Rows.query(
            INFO,
            "mutable",
            Phases.AFTER_FLUSH,
            QueryType.VECTOR,
            false,
            16,
            null,
            null,
            new CellStats(100, 0, 1.0, qps, avgMs, avgMs, avgMs, avgMs, avgMs, cores, null, 0, -1))
        .withCandidates(10, candidates, 0.95);
  }

  @Test
  void interpolatesLogLinearlyInRecallBetweenTheTwoBeams() {
    ResultRow hi = cell(40, 500, 1.0, 4);
    ResultRow lo = cell(30, 1000, 2.0, 1);
    // recall 0.93 at 30, 0.97 at 40: 0.95 is half way, so QPS = sqrt(1000 · 500), cores =
    // sqrt(2 · 1), QPS per core = sqrt(500 · 500) and the average latency sqrt(1 · 4).
    PairedRounds.Bracket b = new PairedRounds.Bracket(new Setting(10, 30), 0.93, 0.97, 0.95);
    ResultRow at = PairedRounds.atTarget(INFO, hi, lo, b, 0.95);
    assertEquals(Phases.AT_TARGET, at.phase());
    assertEquals(Math.sqrt(500_000), at.qps(), 1e-9);
    assertEquals(Math.sqrt(2), at.cpuCores(), 1e-9);
    assertEquals(500, at.qpsPerCore(), 1e-9);
    assertEquals(2, at.avgMs(), 1e-9);
    assertEquals(0.95, at.recallAt10(), 1e-12);
    assertEquals(0.95, at.recallTarget(), 1e-12);

    // 0.94 is a quarter of the way from 0.93 to 0.97: QPS 1000^0.75 · 500^0.25
    ResultRow quarter =
        PairedRounds.atTarget(
            INFO, hi, lo, new PairedRounds.Bracket(new Setting(10, 30), 0.93, 0.97, 0.94), 0.94);
    assertEquals(Math.pow(1000, 0.75) * Math.pow(500, 0.25), quarter.qps(), 1e-9);
  }

  @Test
  void staysAtTheMeasuredRecallWhereThereIsNothingToInterpolate() {
    ResultRow hi = cell(40, 500, 1.0, 4);
    ResultRow lo = cell(30, 1000, 2.0, 1);
    // The beam below already reaches the target on the measured queries: its cell, its recall.
    ResultRow below =
        PairedRounds.atTarget(
            INFO, hi, lo, new PairedRounds.Bracket(new Setting(10, 30), 0.96, 0.97, 0.95), 0.95);
    assertEquals(1000, below.qps(), 1e-9);
    assertEquals(0.96, below.recallAt10(), 1e-12);
    // The calibrated beam is the grid's smallest: its cell, its recall.
    ResultRow only =
        PairedRounds.atTarget(
            INFO, hi, null, new PairedRounds.Bracket(null, null, 0.98, 0.95), 0.95);
    assertEquals(500, only.qps(), 1e-9);
    assertEquals(500, only.qpsPerCore(), 1e-9);
    assertEquals(0.98, only.recallAt10(), 1e-12);
  }

  @Test
  void aRaisedCommonRecallIsWhereTheEstimateGoesAndTheTargetStaysTheKey() {
    ResultRow hi = cell(40, 500, 1.0, 4);
    ResultRow lo = cell(30, 1000, 2.0, 1);
    // Another variant's smallest beam measured 0.96, so this one is estimated at 0.96, not 0.95:
    // a quarter of the way from 0.95 at 30 to 0.99 at 40.
    ResultRow at =
        PairedRounds.atTarget(
            INFO, hi, lo, new PairedRounds.Bracket(new Setting(10, 30), 0.95, 0.99, 0.96), 0.95);
    assertEquals(Math.pow(1000, 0.75) * Math.pow(500, 0.25), at.qps(), 1e-9);
    assertEquals(0.96, at.recallAt10(), 1e-12);
    assertEquals(0.95, at.recallTarget(), 1e-12);
    // At the target itself the beam below would have been enough; at the raised recall it is not.
    ResultRow atTarget =
        PairedRounds.atTarget(
            INFO, hi, lo, new PairedRounds.Bracket(new Setting(10, 30), 0.95, 0.99, 0.95), 0.95);
    assertEquals(1000, atTarget.qps(), 1e-9);
  }

  @Test
  void theCommonRecallIsTheHighestRecallAtTheSmallestBeamWhenItPassesTheTarget() {
    assertEquals(0.95, PairedRounds.commonRecall(0.95, java.util.Map.of()), 0);
    // Feeds at the smallest beam below the target do not lower it.
    assertEquals(0.95, PairedRounds.commonRecall(0.95, java.util.Map.of("mutable", 0.90)), 0);
    assertEquals(
        0.988,
        PairedRounds.commonRecall(
            0.95, java.util.Map.of("mutable", 0.973, "segmented", 0.988, "segmented#2", 0.97)),
        0);
  }

  @Test
  void aRaisedCellEstimatesItsVariantsWithinTheToleranceOfItsCommonRecall() {
    // Not raised: the target.
    assertEquals(0.95, PairedRounds.estimatedAt(0.95, 0.95), 1e-12);
    // A feed at the smallest beam measured 1.000: the others need 0.995, not the last thousandth
    // that sent mutable to the grid's largest beam.
    assertEquals(0.995, PairedRounds.estimatedAt(0.95, 1.0), 1e-12);
    // Within the tolerance of the target already: the target, and the feed at 0.953 stays there.
    assertEquals(0.95, PairedRounds.estimatedAt(0.95, 0.953), 1e-12);
    assertEquals(0.95, PairedRounds.estimatedAt(0.95, 0.955), 1e-12);
  }

  @Test
  void aFeedThatReachesNoBeamSettlesWhereItsRecallWasHighestNotAtTheLargest() {
    // Recall measured at beams 100, 200, 400 of a hybrid grid: 400 is both slower and worse.
    assertEquals(1, Calibration.highest(java.util.Arrays.asList(0.989, 0.994, 0.984)));
    // Equal recalls: the first, which is the smallest beam in grid order.
    assertEquals(0, Calibration.highest(java.util.Arrays.asList(0.99, 0.99, 0.98)));
    // Beams not measured (null) are skipped; nothing measured gives -1.
    assertEquals(2, Calibration.highest(java.util.Arrays.asList(null, 0.5, 0.7)));
    assertEquals(-1, Calibration.highest(java.util.Arrays.asList((Double) null)));
  }

  @Test
  void geometricMeanNeedsBothSides() {
    assertEquals(Math.sqrt(8), PairedRounds.geo(2.0, 4.0, 0.5), 1e-12);
    assertEquals(2.0, PairedRounds.geo(2.0, null, 0), 0);
    assertEquals(4.0, PairedRounds.geo(null, 4.0, 1), 0);
    // a missing CPU figure stays missing (0 is "not measured" to CellStats)
    assertEquals(0, PairedRounds.geo(0.0, 4.0, 0.5), 0);
  }

  @Test
  void aSummaryIsBelowTheTargetOnlyWhenNoRoundReachedIt() {
    // Feeds taken in turn: the first stayed at 0.946 at the largest beam, the others reached the
    // target. The summary keeps the lowest recall of the rounds that reached it.
    ResultRow shortOne = cell(400, 1000, 1.0, 1).withQuality(0.946, null);
    ResultRow atTarget = cell(60, 3000, 1.0, 1).withQuality(0.95, null);
    ResultRow above = cell(40, 3500, 1.0, 1).withQuality(0.965, null);
    assertEquals(
        0.95,
        PairedRounds.summaryRecall(
            java.util.List.of(shortOne, atTarget, above, shortOne, atTarget, above)),
        1e-12);
    // No round reached it: the highest, below the target, so the ratio is a bound.
    ResultRow shorter = cell(400, 900, 1.0, 1).withQuality(0.940, null);
    assertEquals(
        0.946, PairedRounds.summaryRecall(java.util.List.of(shorter, shortOne, shorter)), 1e-12);
  }
}
