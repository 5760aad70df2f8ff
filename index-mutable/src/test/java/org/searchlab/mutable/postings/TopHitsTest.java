package org.searchlab.mutable.postings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * {@link TopHits#sorted}'s primitive keys order hits as the comparator they replace did: {@link
 * Float#compare} descending, then the lower id, over scores with many ties, both zeros, negatives
 * and the extremes, and the score comes back bit for bit; a heap smaller than the hits keeps the
 * best.
 */
class TopHitsTest {
  private static final float[] SPECIAL = {
    0f,
    -0f,
    1f,
    -1f,
    Float.MIN_VALUE,
    -Float.MIN_VALUE,
    Float.MAX_VALUE,
    -Float.MAX_VALUE,
    Float.POSITIVE_INFINITY,
    Float.NEGATIVE_INFINITY,
    3.5f
  };

  @Test
  void sortedOrdersByScoreThenIdAsTheComparatorDid() {
    long seed = TestSeeds.seed("TopHitsTest.sorted");
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 200; round++) {
      int n = 1 + r.nextInt(300);
      // The heap compares with ==, where -0 equals 0, so which of the two a full heap keeps is
      // its own rule; rounds that hold every hit include -0 to check the sort alone.
      boolean keepsAll = r.nextBoolean();
      int k = keepsAll ? n + r.nextInt(5) : 1 + r.nextInt(n);
      int[] docs = r.ints(n * 4L, 0, Integer.MAX_VALUE).distinct().limit(n).toArray();
      n = docs.length;
      float[] scores = new float[n];
      for (int i = 0; i < n; i++) {
        scores[i] =
            r.nextInt(3) == 0 && keepsAll
                ? SPECIAL[r.nextInt(SPECIAL.length)]
                : (r.nextInt(40) - 20) * 0.25f; // never -0
      }
      TopHits top = new TopHits(k);
      for (int i = 0; i < n; i++) {
        top.insert(docs[i], scores[i]);
      }
      Integer[] order = new Integer[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      Comparator<Integer> best =
          (a, b) -> {
            int c = Float.compare(scores[b], scores[a]);
            return c != 0 ? c : Integer.compare(docs[a], docs[b]);
          };
      Arrays.sort(order, best);
      int m = Math.min(k, n);
      int[] wantDocs = new int[m];
      float[] wantScores = new float[m];
      for (int i = 0; i < m; i++) {
        wantDocs[i] = docs[order[i]];
        wantScores[i] = scores[order[i]];
      }
      TopHits.Sorted got = top.sorted();
      String what = "seed " + seed + " round " + round;
      assertArrayEquals(wantDocs, got.docs(), what);
      assertEquals(m, got.size(), what);
      for (int i = 0; i < m; i++) {
        assertEquals(
            Float.floatToRawIntBits(wantScores[i]),
            Float.floatToRawIntBits(got.scores()[i]),
            what + " score at " + i);
      }
    }
  }
}
