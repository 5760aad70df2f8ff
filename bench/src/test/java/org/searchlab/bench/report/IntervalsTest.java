package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

class IntervalsTest {
  @Test
  void coverageIsTheSignTestBinomialTail() {
    // [min, max] of n values misses the median with probability 2 · 2^-n.
    assertEquals(1 - 2 / 32.0, Intervals.coverage(5, 1), 1e-12);
    assertEquals(1 - 2 / 64.0, Intervals.coverage(6, 1), 1e-12);
    // n = 10, l = 2: 1 − 2 · (1 + 10) / 1024
    assertEquals(1 - 22 / 1024.0, Intervals.coverage(10, 2), 1e-12);
    assertEquals(0, Intervals.coverage(1, 1));
  }

  @Test
  void picksTheNarrowestOrderStatisticsWithNinetyFivePercent() {
    Intervals.Interval six = Intervals.median(new double[] {6, 1, 5, 2, 4, 3});
    assertEquals(3.5, six.median());
    assertEquals(1, six.low());
    assertEquals(6, six.high());
    assertEquals(1 - 2 / 64.0, six.coverage(), 1e-12);
    // 10 values: l = 2 covers 97.9%, l = 3 only 89.1%.
    double[] ten = {10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    Intervals.Interval i = Intervals.median(ten);
    assertEquals(5.5, i.median());
    assertEquals(2, i.low());
    assertEquals(9, i.high());
    // Below 6 values no interval reaches 95%: [min, max] with its smaller coverage.
    Intervals.Interval five = Intervals.median(new double[] {3, 1, 2, 5, 4});
    assertEquals(3, five.median());
    assertEquals(1, five.low());
    assertEquals(5, five.high());
    assertEquals(0.9375, five.coverage(), 1e-12);
    Intervals.Interval one = Intervals.median(new double[] {7});
    assertEquals(7, one.low());
    assertEquals(7, one.high());
  }

  @Test
  void excludesOnlyWhenTheWholeIntervalIsOnOneSide() {
    assertTrue(Intervals.median(new double[] {1.1, 1.2, 1.3, 1.2, 1.15, 1.25}).excludes(1.0));
    assertTrue(Intervals.median(new double[] {0.8, 0.9, 0.85, 0.95, 0.9, 0.88}).excludes(1.0));
    assertFalse(Intervals.median(new double[] {0.9, 1.1, 1.0, 1.05, 0.95, 1.2}).excludes(1.0));
  }

  @Test
  void coversTheTrueMedianAtLeastAsOftenAsStated() {
    long seed = TestSeeds.seed("IntervalsTest");
    SplittableRandom random = new SplittableRandom(seed);
    int trials = 20_000;
    int covered = 0;
    for (int t = 0; t < trials; t++) {
      double[] v = new double[7];
      for (int i = 0; i < v.length; i++) {
        v[i] = -Math.log(1 - random.nextDouble()); // exponential, median ln 2
      }
      Intervals.Interval i = Intervals.median(v);
      covered += i.low() <= Math.log(2) && Math.log(2) <= i.high() ? 1 : 0;
    }
    double stated = Intervals.median(new double[7]).coverage();
    // The coverage is exact for continuous data; 20,000 trials have a standard error of 0.0009.
    assertEquals(stated, covered / (double) trials, 0.006, "seed " + seed);
  }

  @Test
  void rejectsEmptyAndNaN() {
    assertThrows(IllegalArgumentException.class, () -> Intervals.median(new double[0]));
    assertThrows(
        IllegalArgumentException.class, () -> Intervals.median(new double[] {1, Double.NaN}));
  }
}
