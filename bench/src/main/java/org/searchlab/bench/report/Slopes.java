package org.searchlab.bench.report;

import java.util.Arrays;
import java.util.List;

/**
 * The growth exponent of a cost against the document count: the least-squares slope of ln(cost) on
 * ln(N) over a few index sizes, with the same order-statistic interval {@link Intervals} gives the
 * median of paired rounds. Each round r contributes one slope, fitted through its value at every
 * size; the interval is the sign-test interval of the median of those per-round slopes (at 6 rounds
 * [min, max], 96.9%). {@link Intervals} says why the project does not bootstrap a median of so few
 * values. The point estimate printed beside it is the slope through the per-size medians, which is
 * less noisy than any one round's slope but has no interval of its own.
 *
 * <p>Pairing rounds across sizes: round r at each size is simply the r-th value given. Rounds at
 * different sizes are measured at different times and are exchangeable, so the caller may shuffle
 * round indices within a size with a fixed seed before calling (design-68 §4.3); this class does
 * not, so that the same values always give the same slopes. Stateless and thread-safe.
 */
public final class Slopes {
  private Slopes() {}

  /**
   * A fitted slope.
   *
   * @param ofMedians least-squares slope of ln(median cost at each size) on ln(size)
   * @param perRound the median of the per-round slopes and its order-statistic interval, exactly
   *     {@link Intervals#median} of {@code roundSlopes}
   * @param roundSlopes the slope of each round, in round order
   */
  public record Fit(double ofMedians, Intervals.Interval perRound, List<Double> roundSlopes) {
    public Fit {
      roundSlopes = List.copyOf(roundSlopes);
    }
  }

  /**
   * Fits the log-log slope of {@code costs} against {@code sizes}.
   *
   * @param sizes the document counts, at least 2 distinct positive values (order does not matter)
   * @param costs {@code costs[i][r]}: the cost at {@code sizes[i]} in round r, every value finite
   *     and positive (a cost such as CPU seconds per query; the logarithm needs it positive), the
   *     same number of rounds (at least 1) at every size
   * @throws IllegalArgumentException naming the offending value when any of these does not hold
   */
  public static Fit fit(long[] sizes, double[][] costs) {
    double[] x = logSizes(sizes);
    if (costs.length != sizes.length) {
      throw new IllegalArgumentException(
          "costs for " + costs.length + " sizes, but " + sizes.length + " sizes given");
    }
    int rounds = costs[0].length;
    if (rounds == 0) {
      throw new IllegalArgumentException("no rounds at size " + sizes[0]);
    }
    double[][] logCosts = new double[sizes.length][];
    double[] logMedians = new double[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      if (costs[i].length != rounds) {
        throw new IllegalArgumentException(
            "unequal round counts: "
                + costs[i].length
                + " at size "
                + sizes[i]
                + ", "
                + rounds
                + " at size "
                + sizes[0]);
      }
      logCosts[i] = new double[rounds];
      for (int r = 0; r < rounds; r++) {
        double c = costs[i][r];
        // !(c > 0) also refuses NaN.
        if (!(c > 0) || Double.isInfinite(c)) {
          throw new IllegalArgumentException(
              "cost " + c + " at size " + sizes[i] + ", round " + r + " is not finite and > 0");
        }
        logCosts[i][r] = Math.log(c);
      }
      logMedians[i] = Math.log(Intervals.median(costs[i]).median());
    }
    double[] slopes = new double[rounds];
    double[] y = new double[sizes.length];
    for (int r = 0; r < rounds; r++) {
      for (int i = 0; i < sizes.length; i++) {
        y[i] = logCosts[i][r];
      }
      slopes[r] = leastSquaresSlope(x, y);
    }
    return new Fit(
        leastSquaresSlope(x, logMedians),
        Intervals.median(slopes),
        Arrays.stream(slopes).boxed().toList());
  }

  private static double[] logSizes(long[] sizes) {
    if (sizes.length < 2) {
      throw new IllegalArgumentException(
          "a slope needs at least 2 sizes, got " + sizes.length + ": " + Arrays.toString(sizes));
    }
    double[] x = new double[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      if (sizes[i] <= 0) {
        throw new IllegalArgumentException("size " + sizes[i] + " is not > 0");
      }
      x[i] = Math.log(sizes[i]);
    }
    if (Arrays.stream(sizes).distinct().count() < 2) {
      throw new IllegalArgumentException(
          "a slope needs at least 2 distinct sizes, got " + Arrays.toString(sizes));
    }
    return x;
  }

  /** Σ(x − x̄)(y − ȳ) / Σ(x − x̄)²; centring first keeps ln(10⁶)-sized x from cancelling. */
  static double leastSquaresSlope(double[] x, double[] y) {
    double mx = Arrays.stream(x).average().orElseThrow();
    double my = Arrays.stream(y).average().orElseThrow();
    double sxy = 0;
    double sxx = 0;
    for (int i = 0; i < x.length; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
    }
    assert sxx > 0 : "sizes are not distinct: " + Arrays.toString(x);
    return sxy / sxx;
  }
}
