package org.searchlab.bench.experiment;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Result-quality measures over lists of top hits. Stateless and thread-safe.
 *
 * <p>Tie-aware (the numbers the report leads with), judged by the exact score {@link ExactAnswer}
 * gives every document:
 *
 * <ul>
 *   <li>recall@k: the returned top-k documents whose exact score is at least the exact k-th score
 *       (less {@link #tolerance}), over min(k, number of exact hits). Which of several documents
 *       with equal scores a store returns is an accident of document order, so any of them counts.
 *   <li>overlap@k between two answers: documents returned by both, plus a one-to-one pairing of the
 *       remaining documents of equal exact score (a tie group answered with different members),
 *       over the longer answer.
 * </ul>
 *
 * <p>Id-based (kept as the "ids" columns, what the benchmark computed): recall@k = |returned top-k
 * ∩ exact top-k| / |exact top-k|; overlap@k = |A top-k ∩ B top-k| / max(|A|, |B|). Every mean is
 * over the queries where the measure is defined (a non-empty exact answer, or either side returned
 * something).
 */
public final class Quality {
  /**
   * Relative tolerance on exact scores: two scores within {@code TOLERANCE · max(1, |s|)} are
   * equal. A store sums the same float terms in another order (BM25 over fields and terms, SIMD dot
   * products), so documents it saw as tied, or as ordered one way by one ulp, may be ordered the
   * other way by the oracle; 1e-5 is about 80 float ulps, far below any real score gap.
   */
  public static final double TOLERANCE = 1e-5;

  private Quality() {}

  /** The absolute tolerance around a score. */
  static double tolerance(double score) {
    return TOLERANCE * Math.max(1.0, Math.abs(score));
  }

  /**
   * Tie-aware recall@k of one answer, or NaN when the exact answer is empty.
   *
   * @param returned the store's ids, best first (duplicates count once)
   * @param exact the exact answer of the same query
   */
  public static double recall(List<String> returned, ExactAnswer exact, int k) {
    int n = Math.min(k, exact.top().size());
    if (n == 0) {
      return Double.NaN;
    }
    double kth = exact.top().get(n - 1).score();
    double floor = kth - tolerance(kth);
    int correct = 0;
    List<String> head = distinctHead(returned, k);
    exact.prepare(head);
    for (String id : head) {
      double s = exact.score(id);
      if (!Double.isNaN(s) && s >= floor) {
        correct++;
      }
    }
    return Math.min(1.0, correct / (double) n);
  }

  /** Tie-aware overlap@k of two answers to the same query, or NaN when both are empty. */
  public static double overlap(List<String> a, List<String> b, ExactAnswer exact, int k) {
    List<String> x = distinctHead(a, k);
    List<String> y = distinctHead(b, k);
    int denom = Math.max(x.size(), y.size());
    if (denom == 0) {
      return Double.NaN;
    }
    Set<String> ys = new HashSet<>(y);
    Set<String> xs = new HashSet<>(x);
    Set<String> both = new HashSet<>(xs);
    both.addAll(ys);
    exact.prepare(both);
    int shared = 0;
    List<Double> restX = new ArrayList<>();
    for (String id : x) {
      if (ys.contains(id)) {
        shared++;
      } else {
        restX.add(exact.score(id));
      }
    }
    List<Double> restY = new ArrayList<>();
    for (String id : y) {
      if (!xs.contains(id)) {
        restY.add(exact.score(id));
      }
    }
    return (shared + pairEqual(restX, restY)) / (double) denom;
  }

  /**
   * The largest one-to-one pairing of equal scores (within the tolerance) between two lists; NaN
   * scores pair with nothing. On both lists sorted descending, pairing the heads when they are
   * equal and else dropping the larger is maximal for interval-equality.
   */
  static int pairEqual(List<Double> a, List<Double> b) {
    double[] x = sortedDescending(a);
    double[] y = sortedDescending(b);
    int i = 0;
    int j = 0;
    int pairs = 0;
    while (i < x.length && j < y.length) {
      if (Math.abs(x[i] - y[j]) <= tolerance(Math.max(Math.abs(x[i]), Math.abs(y[j])))) {
        pairs++;
        i++;
        j++;
      } else if (x[i] > y[j]) {
        i++;
      } else {
        j++;
      }
    }
    return pairs;
  }

  private static double[] sortedDescending(List<Double> l) {
    double[] v =
        l.stream().filter(d -> !Double.isNaN(d)).mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    for (int i = 0, j = v.length - 1; i < j; i++, j--) {
      double t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
    return v;
  }

  /** Id-based recall@k of one answer, or NaN when the exact answer is empty. */
  public static double recallIds(List<String> returned, List<String> exact, int k) {
    List<String> truth = head(exact, k);
    if (truth.isEmpty()) {
      return Double.NaN;
    }
    Set<String> got = new HashSet<>(head(returned, k));
    long hit = truth.stream().filter(got::contains).count();
    return hit / (double) truth.size();
  }

  /** Id-based overlap@k of two answers, or NaN when both are empty. */
  public static double overlapIds(List<String> a, List<String> b, int k) {
    List<String> x = head(a, k);
    List<String> y = head(b, k);
    int denom = Math.max(x.size(), y.size());
    if (denom == 0) {
      return Double.NaN;
    }
    Set<String> ys = new HashSet<>(y);
    long common = x.stream().filter(ys::contains).count();
    return common / (double) denom;
  }

  /** Mean id-based recall@k over queries, in the same order; null when none is defined. */
  public static Double recall(List<List<String>> returned, List<List<String>> exact, int k) {
    double[] v = new double[exact.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = recallIds(returned.get(i), exact.get(i), k);
    }
    return mean(v);
  }

  /** Mean id-based overlap@k between two result lists, per query in the same order. */
  public static Double overlap(List<List<String>> a, List<List<String>> b, int k) {
    double[] v = new double[Math.min(a.size(), b.size())];
    for (int i = 0; i < v.length; i++) {
      v[i] = overlapIds(a.get(i), b.get(i), k);
    }
    return mean(v);
  }

  /** The mean of the values that are not NaN, or null when there are none. */
  public static Double mean(double[] values) {
    double sum = 0;
    int n = 0;
    for (double d : values) {
      if (!Double.isNaN(d)) {
        sum += d;
        n++;
      }
    }
    return n == 0 ? null : sum / n;
  }

  private static List<String> head(List<String> l, int k) {
    return l.size() <= k ? l : l.subList(0, k);
  }

  private static List<String> distinctHead(List<String> l, int k) {
    return new ArrayList<>(new LinkedHashSet<>(head(l, k)));
  }
}
