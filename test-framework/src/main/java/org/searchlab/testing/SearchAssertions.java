package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Set;
import org.searchlab.core.Hit;
import org.searchlab.core.SearchResult;

/** Assertions that compare two rankings the way ties allow. Stateless and thread-safe. */
public final class SearchAssertions {
  /** Scores closer than this are equal (float summation order differs between stores). */
  public static final float SCORE_TOLERANCE = 1e-4f;

  private SearchAssertions() {}

  /**
   * How far two summation orders of the float dot product of {@code a} and {@code b} can be apart:
   * one rounding of at most 2^-24 of the terms' magnitudes per term. Lucene's {@code
   * VectorUtil.dotProduct} sums its lanes in one order when interpreted and another once C2 has
   * compiled it, and the graph's kernels in a third, so two computations of one dot product may
   * differ in their last bits; scores this close are ties.
   */
  public static double dotRoundingBound(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += Math.abs((double) a[i] * b[i]);
    }
    return a.length * 0x1p-24 * sum;
  }

  /**
   * Both results have the same length and the same score at every rank (within {@link
   * #SCORE_TOLERANCE}), and the same set of ids once each group of tied scores is complete: tied
   * documents may come in any order, but a store may not return a different document.
   */
  public static void assertSameScores(SearchResult expected, SearchResult actual, String what) {
    assertEquals(expected.hits().size(), actual.hits().size(), what + ": hit count");
    Set<String> e = new HashSet<>();
    Set<String> a = new HashSet<>();
    for (int i = 0; i < expected.hits().size(); i++) {
      Hit x = expected.hits().get(i);
      Hit y = actual.hits().get(i);
      assertEquals(x.score(), y.score(), SCORE_TOLERANCE, what + ": score at rank " + i);
      e.add(x.id());
      a.add(y.id());
      boolean groupEnds =
          i + 1 == expected.hits().size()
              || Math.abs(expected.hits().get(i + 1).score() - x.score()) > SCORE_TOLERANCE;
      if (groupEnds && i + 1 < expected.hits().size()) {
        assertEquals(e, a, what + ": ids up to rank " + i);
      }
    }
  }
}
