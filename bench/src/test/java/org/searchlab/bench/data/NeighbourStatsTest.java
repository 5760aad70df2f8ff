package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/** {@link NeighbourStats} against a sort of every distance, on corpora of a few hundred vectors. */
class NeighbourStatsTest {
  static float[][] corpus(int n, int dim, SplittableRandom r) {
    float[][] v = new float[n][dim];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < dim; j++) {
        v[i][j] = (float) r.nextGaussian();
      }
      VectorUtil.l2normalize(v[i]);
    }
    // Exact copies and near-copies, as libfoo1 and libfoo-dev make in the real catalogue.
    for (int i = 0; i < n / 10; i++) {
      int a = r.nextInt(n);
      int b = r.nextInt(n);
      v[b] = v[a].clone();
      if (i % 2 == 0) {
        v[b][0] += 0.01f;
        VectorUtil.l2normalize(v[b]);
      }
    }
    return v;
  }

  /** Every other document's (dot, ordinal), best first, ties by the lower ordinal. */
  static List<double[]> ranked(float[][] v, int self) {
    List<double[]> all = new ArrayList<>();
    for (int j = 0; j < v.length; j++) {
      if (j != self) {
        all.add(new double[] {VectorUtil.dotProduct(v[self], v[j]), j});
      }
    }
    all.sort(Comparator.<double[]>comparingDouble(x -> -x[0]).thenComparingDouble(x -> x[1]));
    return all;
  }

  @Test
  void distancesLidAndNearCopiesMatchASortOfEveryDistance() {
    long seed = TestSeeds.seed("NeighbourStatsTest.oracle");
    SplittableRandom r = new SplittableRandom(seed);
    float[][] v = corpus(400, 8, r);
    int[] queries = QuerySampler.sample(v.length, 60, seed);
    NeighbourStats one = NeighbourStats.compute(v, queries, 1);
    NeighbourStats three = NeighbourStats.compute(v, queries, 3);
    int copies = 0;
    for (int q = 0; q < queries.length; q++) {
      List<double[]> all = ranked(v, queries[q]);
      double d1 = Math.sqrt(Math.max(0, 2 - 2 * all.get(0)[0]));
      double d10 = Math.sqrt(Math.max(0, 2 - 2 * all.get(9)[0]));
      double d100 = Math.sqrt(Math.max(0, 2 - 2 * all.get(99)[0]));
      assertEquals(d1, one.d1()[q], 1e-6, "1st of query " + q);
      assertEquals(d10, one.d10()[q], 1e-6, "10th of query " + q);
      assertEquals(d100, one.d100()[q], 1e-6, "100th of query " + q);
      // LID: -1 / mean over the top 100 of ln(r_i / r_100), distances floored at 1e-4.
      double sum = 0;
      for (int i = 0; i < 100; i++) {
        double d = Math.max(1e-4, Math.sqrt(Math.max(0, 2 - 2 * all.get(i)[0])));
        sum += Math.log(d / Math.max(1e-4, d100));
      }
      assertEquals(-100 / sum, one.lid()[q], 1e-3 * (-100 / sum), "LID of query " + q);
      if (all.get(0)[0] >= 0.99) {
        copies++;
      }
      assertEquals(one.d10()[q], three.d10()[q], "threads do not change the answer");
      assertEquals(one.lid()[q], three.lid()[q]);
    }
    assertTrue(copies > 0, "the corpus has near-copies among the queries' neighbours");
    assertEquals((double) copies / queries.length, one.nearCopyShare(), 1e-12);
  }

  @Test
  void aCorpusSmallerThanTheTopHundredLeavesTheDeepRanksUndefined() {
    long seed = TestSeeds.seed("NeighbourStatsTest.small");
    float[][] v = corpus(30, 4, new SplittableRandom(seed));
    NeighbourStats s = NeighbourStats.compute(v, new int[] {0, 7}, 2);
    for (int q = 0; q < 2; q++) {
      List<double[]> all = ranked(v, q == 0 ? 0 : 7);
      assertEquals(Math.sqrt(Math.max(0, 2 - 2 * all.get(9)[0])), s.d10()[q], 1e-6);
      assertTrue(Double.isNaN(s.d100()[q]));
      assertTrue(Double.isNaN(s.lid()[q]));
    }
  }

  @Test
  void quantilesInterpolateAndKsMeasuresTheLargestGap() {
    assertEquals(2.5, NeighbourStats.quantile(new double[] {4, 1, 3, 2, Double.NaN}, 0.5), 1e-12);
    assertEquals(1.3, NeighbourStats.quantile(new double[] {1, 2, 3, 4}, 0.1), 1e-12);
    assertEquals(4, NeighbourStats.quantile(new double[] {1, 2, 3, 4}, 1), 1e-12);
    assertTrue(Double.isNaN(NeighbourStats.quantile(new double[] {Double.NaN}, 0.5)));
    assertEquals(0, NeighbourStats.ks(new double[] {1, 2, 3}, new double[] {3, 2, 1}), 1e-12);
    assertEquals(1, NeighbourStats.ks(new double[] {1, 2}, new double[] {5, 6, 7}), 1e-12);
    // F_a jumps to 1/2 at 1 and 1 at 3; F_b is 1/4 at 2, 3/4 at 3: the widest gap is 1/2 at 1.
    assertEquals(0.5, NeighbourStats.ks(new double[] {1, 3}, new double[] {2, 3, 3, 4}), 1e-12);
  }
}
