package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The bounded heap behind the ground truth, against a full sort. */
class TopKTest {
  @Test
  void keepsTheBestWithTiesToTheLowerOrdinal() {
    SplittableRandom random = new SplittableRandom(TestSeeds.seed("TopKTest"));
    for (int round = 0; round < 50; round++) {
      int n = 1 + random.nextInt(500);
      int k = 1 + random.nextInt(120);
      float[] scores = new float[n];
      for (int i = 0; i < n; i++) {
        scores[i] = random.nextInt(40) / 40f; // many ties
      }
      TopK top = new TopK(k);
      for (int i = 0; i < n; i++) {
        top.offer(scores[i], i);
      }
      float[][] got = new float[1][];
      int[] ords = top.drainBestFirst(got);
      int[] expected =
          IntStream.range(0, n)
              .boxed()
              .sorted(
                  Comparator.comparingDouble((Integer i) -> -scores[i])
                      .thenComparingInt(Integer::intValue))
              .limit(k)
              .mapToInt(Integer::intValue)
              .toArray();
      assertArrayEquals(expected, ords, "n=" + n + " k=" + k);
      float[] expectedScores = new float[expected.length];
      for (int i = 0; i < expected.length; i++) {
        expectedScores[i] = scores[expected[i]];
      }
      assertArrayEquals(expectedScores, got[0]);
    }
  }
}
