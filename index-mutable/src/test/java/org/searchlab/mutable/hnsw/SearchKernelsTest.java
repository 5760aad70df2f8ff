package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * The search loop's two kernels against plain references: the batched dot product, the visited set.
 */
class SearchKernelsTest {
  @Test
  void fourWayKernelRunsUnderTheProjectsFlags() {
    // Surefire runs with --add-modules jdk.incubator.vector, as the launcher does.
    assertTrue(BulkDot.FOUR_WAY, "the four-way kernel is off: is jdk.incubator.vector missing?");
  }

  @Test
  void bulkScoresEqualVectorUtilWithinRounding() {
    long seed = TestSeeds.seed("SearchKernelsTest.bulk");
    SplittableRandom random = new SplittableRandom(seed);
    for (int dim : new int[] {1, 3, 15, 16, 17, 64, 100, 384, 385, 768}) {
      int count = 1 + random.nextInt(40);
      float[] query = TestVectors.gaussianUnit(random, dim);
      float[][] vectors = new float[count][];
      for (int i = 0; i < count; i++) {
        vectors[i] = TestVectors.gaussianUnit(random, dim);
      }
      float[] scores = new float[count];
      BulkDot.score(query, vectors, scores, count);
      for (int i = 0; i < count; i++) {
        float expected = VectorUtil.dotProduct(query, vectors[i]);
        assertEquals(expected, scores[i], 1e-5f, "dim " + dim + ", vector " + i + " of " + count);
      }
    }
  }

  @Test
  void visitedSetMatchesABitSetAcrossResetsAndGrowth() {
    long seed = TestSeeds.seed("SearchKernelsTest.visited");
    SplittableRandom random = new SplittableRandom(seed);
    VisitedSet visited = new VisitedSet();
    int capacity = 100;
    for (int search = 0; search < 200; search++) {
      if (search % 40 == 39) {
        capacity = capacity * 3 + random.nextInt(100); // the graph grew between searches
      }
      visited.reset(capacity);
      BitSet reference = new BitSet();
      int visits = random.nextInt(search % 2 == 0 ? 20 : capacity * 2);
      for (int v = 0; v < visits; v++) {
        int node = random.nextInt(capacity + 10); // some beyond the capacity
        boolean expected = node < capacity && !reference.get(node);
        assertEquals(expected, visited.visit(node), "search " + search + ", node " + node);
        if (node < capacity) {
          reference.set(node);
        }
      }
      for (int node = 0; node < capacity + 10; node++) {
        assertEquals(reference.get(node), visited.contains(node), "search " + search);
      }
    }
  }
}
