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
}
