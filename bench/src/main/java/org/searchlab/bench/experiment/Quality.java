package org.searchlab.bench.experiment;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Result-quality measures over lists of top hits. Stateless and thread-safe.
 *
 * <ul>
 *   <li>recall@k: |returned top-k ∩ exact top-k| / |exact top-k|, averaged over queries whose exact
 *       answer is not empty;
 *   <li>overlap@k: |A top-k ∩ B top-k| / max(|A|, |B|), averaged over queries where either side
 *       returned something (the benchmark's measure between the engines).
 * </ul>
 */
public final class Quality {
  private Quality() {}

  /** Mean recall@k of {@code returned} against {@code exact}, per query in the same order. */
  public static Double recall(List<List<String>> returned, List<List<String>> exact, int k) {
    double sum = 0;
    int n = 0;
    for (int i = 0; i < exact.size(); i++) {
      List<String> truth = head(exact.get(i), k);
      if (truth.isEmpty()) {
        continue;
      }
      Set<String> got = new HashSet<>(head(returned.get(i), k));
      long hit = truth.stream().filter(got::contains).count();
      sum += hit / (double) truth.size();
      n++;
    }
    return n == 0 ? null : sum / n;
  }

  /** Mean overlap@k between two result lists, per query in the same order. */
  public static Double overlap(List<List<String>> a, List<List<String>> b, int k) {
    double sum = 0;
    int n = 0;
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      List<String> x = head(a.get(i), k);
      List<String> y = head(b.get(i), k);
      int denom = Math.max(x.size(), y.size());
      if (denom == 0) {
        continue;
      }
      Set<String> ys = new HashSet<>(y);
      long common = x.stream().filter(ys::contains).count();
      sum += common / (double) denom;
      n++;
    }
    return n == 0 ? null : sum / n;
  }

  private static List<String> head(List<String> l, int k) {
    return l.size() <= k ? l : l.subList(0, k);
  }
}
