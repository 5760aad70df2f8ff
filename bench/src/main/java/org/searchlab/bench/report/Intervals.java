package org.searchlab.bench.report;

import java.util.Arrays;

/**
 * The median of a few paired-round measurements and its distribution-free confidence interval: the
 * order-statistic interval of the median, [x₍ₗ₎, x₍ₙ₊₁₋ₗ₎] of the sorted values, whose coverage is
 * 1 − 2·P(Binomial(n, ½) ≤ l − 1) whatever the distribution (the sign-test interval; Hollander and
 * Wolfe, Nonparametric Statistical Methods, §3.6). {@code l} is the largest index with coverage ≥
 * 95%; below 6 values no such index exists, and the interval is [min, max] with its smaller
 * coverage stated (93.8% for 5, 87.5% for 4). A bootstrap of the median is not used: with 5–7
 * values it can only return order statistics anyway and under-covers. Stateless and thread-safe.
 */
public final class Intervals {
  /** The coverage aimed for. */
  public static final double LEVEL = 0.95;

  private Intervals() {}

  /**
   * A median with its interval.
   *
   * @param median the sample median (mean of the middle two for an even count)
   * @param low lower end of the interval
   * @param high upper end of the interval
   * @param coverage the interval's exact coverage probability for the median (0 for one value)
   * @param n the number of values
   */
  public record Interval(double median, double low, double high, double coverage, int n) {
    /** Whether the whole interval lies above or below {@code x}. */
    public boolean excludes(double x) {
      return low > x || high < x;
    }
  }

  /** The median and its order-statistic interval; values must not be empty or NaN. */
  public static Interval median(double[] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("no values to take a median of");
    }
    double[] v = values.clone();
    Arrays.sort(v);
    if (Double.isNaN(v[v.length - 1])) {
      throw new IllegalArgumentException("NaN among " + Arrays.toString(values));
    }
    int n = v.length;
    double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    int l = 1;
    for (int cand = n / 2; cand >= 1; cand--) {
      if (coverage(n, cand) >= LEVEL) {
        l = cand;
        break;
      }
    }
    return new Interval(median, v[l - 1], v[n - l], coverage(n, l), n);
  }

  /** 1 − 2·P(Binomial(n, ½) ≤ l − 1): the coverage of [x₍ₗ₎, x₍ₙ₊₁₋ₗ₎]. */
  static double coverage(int n, int l) {
    if (n < 2) {
      return 0;
    }
    double tail = 0;
    double c = 1; // C(n, i)
    for (int i = 0; i < l; i++) {
      tail += c;
      c = c * (n - i) / (i + 1);
    }
    return Math.max(0, 1 - 2 * tail / Math.pow(2, n));
  }
}
