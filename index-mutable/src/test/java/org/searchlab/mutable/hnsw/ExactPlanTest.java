package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.scoring.VectorScores;
import org.searchlab.testing.TestSeeds;

/**
 * The exact plan scores its scan in batches with the graph's kernels. It must return the exact top
 * k of the accepted nodes, whichever batch (full or the last, partial one) they fall in, with exact
 * duplicates tied at the k-th place. Float sums in different orders differ in their last bits (as
 * {@link VectorUtil#dotProduct}'s own do between JIT tiers), so hits are checked against scores
 * computed in double precision, tie-aware within a rounding tolerance.
 */
class ExactPlanTest {
  private static final int DIM = 384;

  /** Far above the rounding of a 384-term float sum of unit vectors, far below the gaps here. */
  private static final double TOLERANCE = 1e-5;

  @Test
  void theBatchedScanFindsTheExactTopKInEveryBatch() {
    long seed = TestSeeds.seed("ExactPlanTest.batches");
    SplittableRandom r = new SplittableRandom(seed);
    // 1,000 clustered vectors (857 accepted: 26 full batches of 32 and a partial one); every fifth
    // is an exact copy of the one before it, a tie broken by node id.
    float[][] data = TestVectors.clustered(r, 1000, DIM, 8, 1.0);
    for (int i = 4; i < data.length; i += 5) {
      data[i] = data[i - 1].clone();
    }
    MutableHnswGraph graph = MutableHnswGraph.create(VectorStore.create(DIM), HnswConfig.DEFAULT);
    int[] ids = new int[data.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    graph.insertAll(ids, data);
    AcceptBits notSevenths = node -> node % 7 != 3;
    int accepted = 0;
    for (int i = 0; i < data.length; i++) {
      accepted += notSevenths.accept(i) ? 1 : 0;
    }
    FilterThresholds exactOnly = new FilterThresholds(1, 1);
    for (int q = 0; q < 60; q++) {
      // Queries near the first and the last nodes too, whose batches are the edge cases.
      int centre = q == 0 ? 0 : q == 1 ? data.length - 1 : r.nextInt(data.length);
      float[] query = TestVectors.near(r, data[centre], 0.05);
      int k = 1 + r.nextInt(30);
      GraphHits got = graph.search(query, k, k, notSevenths, accepted, exactOnly);
      String where = "query " + q + ", k " + k + ", seed " + seed;
      assertEquals(QueryPlan.EXACT, got.plan(), where);
      assertEquals(k, got.size(), where);
      double[] exact = new double[data.length];
      double[] sorted = new double[accepted];
      for (int i = 0, j = 0; i < data.length; i++) {
        exact[i] = notSevenths.accept(i) ? dot(query, data[i]) : Double.NEGATIVE_INFINITY;
        if (notSevenths.accept(i)) {
          sorted[j++] = exact[i];
        }
      }
      Arrays.sort(sorted);
      double kth = sorted[accepted - k];
      for (int i = 0; i < k; i++) {
        int node = got.nodes()[i];
        assertTrue(notSevenths.accept(node), where);
        assertTrue(
            exact[node] >= kth - TOLERANCE, where + ": node " + node + " is not in the top k");
        assertEquals(VectorScores.fromDot((float) exact[node]), got.scores()[i], TOLERANCE, where);
        if (i > 0) {
          assertTrue(got.scores()[i - 1] >= got.scores()[i], where);
        }
      }
      assertEquals(k, Arrays.stream(got.nodes()).distinct().count(), where);
    }
  }

  private static double dot(float[] a, float[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += (double) a[i] * b[i];
    }
    return s;
  }
}
