package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

class SlopesTest {
  private static final long[] SIZES = {100_000, 300_000, 1_000_000};

  /** Equally spaced in ln N (ratio 3), so a cubic residual pattern is orthogonal to 1 and ln N. */
  private static final long[] GEOMETRIC = {100_000, 300_000, 900_000, 2_700_000};

  /** Orthogonal to (1, 1, 1, 1) and to the centred ln N of {@link #GEOMETRIC}. */
  private static final double[] CUBIC = {1, -3, 3, -1};

  @Test
  void exactPowerLawsGiveTheirExponent() {
    for (double b : new double[] {0, 0.5, 1}) {
      // Each round its own constant c_r: the slope must not depend on the level.
      double[] c = {1e-4, 2e-4, 1.5e-4, 3e-4, 0.9e-4, 1.1e-4};
      double[][] costs = new double[SIZES.length][c.length];
      for (int i = 0; i < SIZES.length; i++) {
        for (int r = 0; r < c.length; r++) {
          costs[i][r] = c[r] * Math.pow(SIZES[i], b);
        }
      }
      Slopes.Fit fit = Slopes.fit(SIZES, costs);
      assertEquals(b, fit.ofMedians(), 1e-12, "b = " + b);
      assertEquals(b, fit.perRound().median(), 1e-12, "b = " + b);
      assertEquals(b, fit.perRound().low(), 1e-12, "b = " + b);
      assertEquals(b, fit.perRound().high(), 1e-12, "b = " + b);
      assertEquals(6, fit.perRound().n());
      fit.roundSlopes().forEach(s -> assertEquals(b, s, 1e-12, "b = " + b));
    }
  }

  @Test
  void perRoundExponentsAndOrthogonalNoiseGiveAKnownMedianAndItsInterval() {
    long seed = TestSeeds.seed("SlopesTest");
    SplittableRandom random = new SplittableRandom(seed);
    // Round r grows as N^(b_r) times a residual a_r·CUBIC in ln space, which least squares
    // ignores (but a slope through the two end sizes would not), so round r's slope is b_r.
    double[] exponents = {0.21, 0.35, 0.18, 0.40, 0.25, 0.30};
    double[][] costs = new double[GEOMETRIC.length][exponents.length];
    for (int r = 0; r < exponents.length; r++) {
      double c = 1e-3 * (0.5 + random.nextDouble());
      double a = random.nextDouble(-0.3, 0.3);
      for (int i = 0; i < GEOMETRIC.length; i++) {
        costs[i][r] = c * Math.pow(GEOMETRIC[i], exponents[r]) * Math.exp(a * CUBIC[i]);
      }
    }
    Slopes.Fit fit = Slopes.fit(GEOMETRIC, costs);
    for (int r = 0; r < exponents.length; r++) {
      assertEquals(exponents[r], fit.roundSlopes().get(r), 1e-9, "round " + r + ", seed " + seed);
    }
    // Sorted 0.18 0.21 0.25 0.30 0.35 0.40: median (0.25 + 0.30) / 2, interval [min, max] at 6.
    assertEquals(0.275, fit.perRound().median(), 1e-9, "seed " + seed);
    assertEquals(0.18, fit.perRound().low(), 1e-9, "seed " + seed);
    assertEquals(0.40, fit.perRound().high(), 1e-9, "seed " + seed);
    assertEquals(1 - 2 / 64.0, fit.perRound().coverage(), 1e-12);
    assertTrue(fit.perRound().low() <= fit.perRound().median());
    assertTrue(fit.perRound().median() <= fit.perRound().high());
    // The same values through Intervals give the same interval, field for field.
    double[] slopes = fit.roundSlopes().stream().mapToDouble(Double::doubleValue).toArray();
    assertEquals(Intervals.median(slopes), fit.perRound());
    Intervals.Interval direct = Intervals.median(exponents);
    assertEquals(direct.median(), fit.perRound().median(), 1e-9);
    assertEquals(direct.low(), fit.perRound().low(), 1e-9);
    assertEquals(direct.high(), fit.perRound().high(), 1e-9);
    assertEquals(direct.coverage(), fit.perRound().coverage());
  }

  @Test
  void tenRoundsGiveTheNarrowerOrderStatistics() {
    // At 10 rounds Intervals drops the extremes (l = 2); the fit must follow it, not use [min,
    // max].
    double[] exponents = {0.9, 0.1, 0.5, 0.45, 0.55, 0.4, 0.6, 0.35, 0.65, 0.5};
    double[][] costs = new double[SIZES.length][exponents.length];
    for (int i = 0; i < SIZES.length; i++) {
      for (int r = 0; r < exponents.length; r++) {
        costs[i][r] = 2e-4 * Math.pow(SIZES[i], exponents[r]);
      }
    }
    Slopes.Fit fit = Slopes.fit(SIZES, costs);
    assertEquals(0.5, fit.perRound().median(), 1e-9);
    assertEquals(0.35, fit.perRound().low(), 1e-9);
    assertEquals(0.65, fit.perRound().high(), 1e-9);
  }

  @Test
  void theSlopeOfMediansIsNotTheMedianOfSlopes() {
    // Two sizes a decade apart; rounds grow as N^1, N^0 and N^2.
    long[] sizes = {1_000, 10_000};
    double[][] costs = {{1, 2, 4}, {10, 2, 400}};
    Slopes.Fit fit = Slopes.fit(sizes, costs);
    assertEquals(1, fit.perRound().median(), 1e-12);
    assertEquals(0, fit.perRound().low(), 1e-12);
    assertEquals(2, fit.perRound().high(), 1e-12);
    // Medians 2 and 10: ln 5 / ln 10.
    assertEquals(Math.log(5) / Math.log(10), fit.ofMedians(), 1e-12);
    assertNotEquals(fit.perRound().median(), fit.ofMedians(), 0.1);
    // The order of the sizes does not matter.
    Slopes.Fit reversed =
        Slopes.fit(new long[] {10_000, 1_000}, new double[][] {costs[1], costs[0]});
    assertEquals(fit.ofMedians(), reversed.ofMedians(), 1e-12);
    assertEquals(fit.roundSlopes().get(2), reversed.roundSlopes().get(2), 1e-12);
  }

  @Test
  void leastSquaresSlopeByHand() {
    // x = 0, 1, 3, y = 0, 2, 3 (through the helper, since sizes e and e³ are not integers):
    // x̄ = 4/3, ȳ = 5/3: Sxy = (−4/3)(−5/3) + (−1/3)(1/3) + (5/3)(4/3) = 20/9 − 1/9 + 20/9 = 39/9,
    // Sxx = 16/9 + 1/9 + 25/9 = 42/9, slope 39/42 = 13/14 (the end points alone would give 1).
    assertEquals(
        13.0 / 14, Slopes.leastSquaresSlope(new double[] {0, 1, 3}, new double[] {0, 2, 3}), 1e-12);
  }

  @Test
  void refusesWhatCannotBeFitted() {
    IllegalArgumentException e;
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Slopes.fit(new long[] {100_000}, new double[][] {{1, 2}}));
    assertTrue(e.getMessage().contains("at least 2 sizes, got 1"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Slopes.fit(new long[] {5, 5}, new double[][] {{1}, {2}}));
    assertTrue(e.getMessage().contains("2 distinct sizes"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Slopes.fit(new long[] {0, 5}, new double[][] {{1}, {2}}));
    assertTrue(e.getMessage().contains("size 0"), e.getMessage());
    for (double bad : new double[] {0, -0.5, Double.NaN, Double.POSITIVE_INFINITY}) {
      e =
          assertThrows(
              IllegalArgumentException.class,
              () -> Slopes.fit(SIZES, new double[][] {{1, 2}, {3, bad}, {5, 6}}));
      assertTrue(
          e.getMessage().contains("cost " + bad + " at size 300000, round 1"), e.getMessage());
    }
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Slopes.fit(SIZES, new double[][] {{1, 2}, {3, 4, 5}, {5, 6}}));
    assertTrue(
        e.getMessage().contains("unequal round counts: 3 at size 300000, 2 at size 100000"),
        e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Slopes.fit(SIZES, new double[][] {{1, 2}, {3, 4}}));
    assertTrue(e.getMessage().contains("costs for 2 sizes, but 3 sizes"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> Slopes.fit(SIZES, new double[][] {{}, {}, {}}));
    assertTrue(e.getMessage().contains("no rounds"), e.getMessage());
  }
}
