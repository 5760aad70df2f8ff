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
}
