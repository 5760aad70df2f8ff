package org.searchlab.bench.data;

import java.util.Arrays;
import java.util.Iterator;

/**
 * How the neighbourhoods of a corpus's documents look, for judging whether a generated corpus is
 * realistic: for sampled query documents, the exact top-{@value #K} by dot product among the other
 * documents, and from it
 *
 * <ul>
 *   <li>the L2 distance to the 1st, 10th and 100th neighbour ({@code √(2 − 2·dot)} for unit
 *       vectors; the query's own document is excluded by ordinal, a copy of it is not);
 *   <li>whether the 1st neighbour is a near-copy (cosine ≥ {@value #NEAR_COPY});
 *   <li>the local intrinsic dimension, the maximum-likelihood estimate over the top {@value #K}
 *       (Levina and Bickel 2005, as Amsaleg et al. 2015 write it): {@code −1 / mean_i ln(r_i /
 *       r_K)}. A distance below {@value #MIN_DISTANCE} counts as that much, so an exact copy gives
 *       a small, finite estimate rather than zero.
 * </ul>
 *
 * <p>Where the corpus has fewer than {@value #K} + 1 documents, the ranks beyond it are {@code
 * NaN}. Immutable and thread-safe once computed.
 *
 * @param d1 per query, the distance to the nearest other document
 * @param d10 per query, to the 10th
 * @param d100 per query, to the 100th
 * @param lid per query, the LID estimate ({@code NaN} when undefined)
 * @param cos1 per query, the cosine of the nearest other document
 */
record NeighbourStats(double[] d1, double[] d10, double[] d100, double[] lid, double[] cos1) {
  /** Neighbours examined per query. */
  static final int K = 100;

  /** The cosine at or above which a neighbour is a near-copy. */
  static final double NEAR_COPY = 0.99;

  /** The smallest distance the LID estimate uses. */
  static final double MIN_DISTANCE = 1e-4;

  /**
   * The statistics of the queries {@code queryOrdinals} (documents of the corpus, whose vectors are
   * {@code queryVectors}) over the {@code n} corpus vectors.
   */
  static NeighbourStats compute(
      Iterator<float[]> corpus, int n, float[][] queryVectors, int[] queryOrdinals, int threads) {
    int k = Math.max(1, Math.min(K, n - 1));
    ExactNeighbours.Result r =
        ExactNeighbours.topK(corpus, n, queryVectors, queryOrdinals, k, threads);
    return of(r.scores());
  }

  /** {@link #compute} over vectors held in memory. */
  static NeighbourStats compute(float[][] corpus, int[] queryOrdinals, int threads) {
    float[][] queries = new float[queryOrdinals.length][];
    for (int q = 0; q < queries.length; q++) {
      queries[q] = corpus[queryOrdinals[q]];
    }
    return compute(
        Arrays.asList(corpus).iterator(), corpus.length, queries, queryOrdinals, threads);
  }

  /** The statistics from each query's best-first dot products (its own document left out). */
  static NeighbourStats of(float[][] scores) {
    int nq = scores.length;
    double[] d1 = new double[nq];
    double[] d10 = new double[nq];
    double[] d100 = new double[nq];
    double[] lid = new double[nq];
    double[] cos1 = new double[nq];
    for (int q = 0; q < nq; q++) {
      float[] s = scores[q];
      d1[q] = rank(s, 1);
      d10[q] = rank(s, 10);
      d100[q] = rank(s, K);
      cos1[q] = s.length > 0 ? s[0] : Double.NaN;
      lid[q] = s.length == K ? lid(s) : Double.NaN;
    }
    return new NeighbourStats(d1, d10, d100, lid, cos1);
  }

  /** The L2 distance of a unit vector at dot product {@code dot}. */
  static double distance(double dot) {
    return Math.sqrt(Math.max(0, 2 - 2 * dot));
  }

  private static double rank(float[] bestFirst, int rank) {
    return bestFirst.length >= rank ? distance(bestFirst[rank - 1]) : Double.NaN;
  }

  /** The LID MLE over all of {@code bestFirst}, or {@code NaN} when every distance is equal. */
  static double lid(float[] bestFirst) {
    double rk = Math.max(MIN_DISTANCE, distance(bestFirst[bestFirst.length - 1]));
    double sum = 0;
    for (float dot : bestFirst) {
      sum += Math.log(Math.max(MIN_DISTANCE, distance(dot)) / rk);
    }
    double mean = sum / bestFirst.length;
    return mean < 0 ? -1 / mean : Double.NaN;
  }

  /** The share of queries whose nearest other document is a near-copy. */
  double nearCopyShare() {
    long n = Arrays.stream(cos1).filter(c -> c >= NEAR_COPY).count();
    return cos1.length == 0 ? Double.NaN : (double) n / cos1.length;
  }

  /**
   * The {@code p}-quantile of the defined ({@code non-NaN}) values, linearly interpolated between
   * order statistics (Hyndman and Fan's type 7, R's default); {@code NaN} when none is defined.
   */
  static double quantile(double[] values, double p) {
    double[] v = Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    double h = (v.length - 1) * p;
    int lo = (int) Math.floor(h);
    int hi = Math.min(v.length - 1, lo + 1);
    return v[lo] + (h - lo) * (v[hi] - v[lo]);
  }

  /**
   * The two-sample Kolmogorov–Smirnov distance: the largest gap between the empirical distribution
   * functions of the defined values of {@code a} and {@code b}, 0 (same) to 1 (disjoint).
   */
  static double ks(double[] a, double[] b) {
    double[] x = Arrays.stream(a).filter(v -> !Double.isNaN(v)).sorted().toArray();
    double[] y = Arrays.stream(b).filter(v -> !Double.isNaN(v)).sorted().toArray();
    if (x.length == 0 || y.length == 0) {
      return Double.NaN;
    }
    int i = 0;
    int j = 0;
    double worst = 0;
    while (i < x.length && j < y.length) {
      double t = Math.min(x[i], y[j]);
      while (i < x.length && x[i] <= t) {
        i++;
      }
      while (j < y.length && y[j] <= t) {
        j++;
      }
      worst = Math.max(worst, Math.abs((double) i / x.length - (double) j / y.length));
    }
    return worst;
  }
}
