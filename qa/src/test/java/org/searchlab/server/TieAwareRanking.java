package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compares a ranking a tool received with the exact one, letting documents of equal score come in
 * any order: the i-th score must equal the exact i-th score, and each id must be a document whose
 * exact score is that score, each within {@link #TOLERANCE}. Stateless.
 */
final class TieAwareRanking {
  /** Scores agree to this: float arithmetic in a different order, printed and parsed again. */
  static final double TOLERANCE = 1e-4;

  private TieAwareRanking() {}

  /** A document and its score. */
  record Scored(String id, double score) {}

  /**
   * Asserts {@code actual} is the top {@code k} of {@code exact}.
   *
   * @param exact every candidate with its exact score, best first
   * @param actual the hits received, best first
   */
  static void assertSameTop(String where, List<Scored> exact, List<Scored> actual, int k) {
    assertEquals(Math.min(k, exact.size()), actual.size(), where + ": hits " + actual);
    Map<String, Double> exactScores = new HashMap<>();
    for (Scored s : exact) {
      exactScores.put(s.id(), s.score());
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < actual.size(); i++) {
      Scored a = actual.get(i);
      String at =
          where + ": hit " + i + " " + a + " (exact " + exact.subList(0, actual.size()) + ")";
      assertTrue(seen.add(a.id()), at + " repeats an id");
      assertEquals(exact.get(i).score(), a.score(), TOLERANCE, at + ": score at this rank");
      Double own = exactScores.get(a.id());
      assertTrue(own != null, at + " is not a candidate");
      assertEquals(own, a.score(), TOLERANCE, at + ": the document's own exact score");
    }
  }

  /**
   * Asserts {@code actual} is a reciprocal rank fusion of the exact {@code lists}, each cut at its
   * window: {@code sum 1 / (constant + rank)} over the lists a document is in. Where a list holds
   * documents of equal score, their order, and so their ranks, may be any; each document then has a
   * range of possible ranks in each list, and its fused score a range. Every hit's score must be in
   * its own range, the scores must not increase, and a document left out must not be certain to
   * beat the last hit.
   *
   * @param lists each list's candidates with their exact scores, best first, uncut
   * @param windows how many of each list take part
   */
  static void assertRrf(
      String where,
      List<List<Scored>> lists,
      List<Integer> windows,
      int constant,
      List<Scored> actual,
      int k) {
    Map<String, double[]> bounds = new HashMap<>();
    for (int l = 0; l < lists.size(); l++) {
      List<Scored> list = lists.get(l);
      int window = windows.get(l);
      for (int i = 0; i < list.size(); i++) {
        int lo = i;
        int hi = i;
        while (lo > 0 && Math.abs(list.get(lo - 1).score() - list.get(i).score()) <= 1e-6) {
          lo--;
        }
        while (hi + 1 < list.size()
            && Math.abs(list.get(hi + 1).score() - list.get(i).score()) <= 1e-6) {
          hi++;
        }
        if (lo >= window) {
          continue;
        }
        double best = 1.0 / (constant + lo + 1);
        double worst = hi >= window ? 0 : 1.0 / (constant + hi + 1);
        double[] b = bounds.computeIfAbsent(list.get(i).id(), id -> new double[2]);
        b[0] += worst;
        b[1] += best;
      }
    }
    assertEquals(Math.min(k, bounds.size()), actual.size(), where + ": hits " + actual);
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < actual.size(); i++) {
      Scored a = actual.get(i);
      String at = where + ": hit " + i + " " + a;
      assertTrue(seen.add(a.id()), at + " repeats an id");
      double[] b = bounds.get(a.id());
      assertTrue(b != null, at + " is in no list's window");
      assertTrue(
          a.score() >= b[0] - TOLERANCE && a.score() <= b[1] + TOLERANCE,
          at + ": fused score outside [" + b[0] + ", " + b[1] + "]");
      if (i > 0) {
        assertTrue(a.score() <= actual.get(i - 1).score() + TOLERANCE, at + ": order");
      }
    }
    double last = actual.isEmpty() ? 0 : actual.get(actual.size() - 1).score();
    for (Map.Entry<String, double[]> e : bounds.entrySet()) {
      if (!seen.contains(e.getKey()) && actual.size() == k) {
        assertTrue(
            e.getValue()[0] <= last + TOLERANCE,
            where + ": " + e.getKey() + " is left out but fuses to at least " + e.getValue()[0]);
      }
    }
  }
}
