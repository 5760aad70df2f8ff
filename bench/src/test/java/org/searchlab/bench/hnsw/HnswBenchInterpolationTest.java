package org.searchlab.bench.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code hnsw-bench}'s QPS at a recall target, which {@code hnswlib_bench.py} mirrors. */
class HnswBenchInterpolationTest {
  @Test
  void interpolatesLogLinearlyBetweenTheTwoPointsAroundTheTarget() {
    // Points in ef order (recall rising, QPS falling), given out of order.
    List<double[]> curve =
        List.of(new double[] {0.98, 1000}, new double[] {0.90, 8000}, new double[] {0.94, 4000});
    // 0.95 is a quarter of the way from 0.94 to 0.98: exp(ln 4000 + 0.25 (ln 1000 − ln 4000)).
    assertEquals(4000 * Math.pow(0.25, 0.25), HnswBenchCommand.interpolatedQps(curve, 0.95), 0.1);
    assertEquals(4000.0, HnswBenchCommand.interpolatedQps(curve, 0.94), 1e-9);
  }

  @Test
  void aTargetOutsideTheCurveHasNoEstimate() {
    List<double[]> curve = List.of(new double[] {0.96, 3000}, new double[] {0.98, 1000});
    assertNull(HnswBenchCommand.interpolatedQps(curve, 0.95));
    assertNull(HnswBenchCommand.interpolatedQps(curve, 0.99));
  }

  @Test
  void pairedRatiosInterpolateEachRoundsPassesOnTheirOwn() {
    // Two efs, two rounds, 100 queries. Ours: recall 0.90 then 1.00; the peer: 0.92 then 0.98.
    // Round 0: ours takes 0.1 s and 0.4 s (1,000 and 250 QPS), the peer 0.1 s and 0.2 s.
    // Round 1: everything twice as slow (a slow spell): the ratio must not move.
    double[][] ef1 = {{0.1, 0.2}, {0.1, 0.2}};
    double[][] ef2 = {{0.4, 0.8}, {0.2, 0.4}};
    List<double[][]> walls = List.of(ef1, ef2);
    List<double[]> recalls = List.of(new double[] {90, 92}, new double[] {100, 98});
    List<Double> ratios = HnswBenchCommand.pairedRatiosAtRecall(walls, recalls, 0, 1, 0.95, 100);
    // Ours at 0.95: halfway, exp((ln 1000 + ln 250) / 2) = 500; the peer at 0.95: halfway between
    // 1,000 and 500, 707.1. Round 1 halves both.
    double expected = Math.round(500 / (1000 / Math.sqrt(2)) * 1000) / 1000.0;
    assertEquals(List.of(expected, expected), ratios);
    // A target one curve does not reach drops the round rather than guessing.
    assertEquals(List.of(), HnswBenchCommand.pairedRatiosAtRecall(walls, recalls, 0, 1, 0.99, 100));
  }

  @Test
  void peerNamesBecomeFieldNameLabels() {
    assertEquals("Hnswlib", HnswBenchCommand.label("hnswlib"));
    assertEquals("Faissflat", HnswBenchCommand.label("faiss-flat"));
    assertEquals("Peer", HnswBenchCommand.label("--"));
  }
}
