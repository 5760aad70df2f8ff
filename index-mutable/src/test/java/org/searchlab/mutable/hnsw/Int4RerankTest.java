package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.TestSeeds;

/**
 * The rerank of a graph over 4-bit codes ({@link VectorQuantization#INT4}) replayed from the codes:
 * at {@link HnswSearcher#OWN_BRACKETS_DIMENSION} dimensions each node of the beam is bracketed by
 * its own code, {@code estimate ± margin} at the rerank confidence (no int8 tier), and the hits
 * must be exactly the float top k of the nodes that rule keeps.
 */
class Int4RerankTest {
  /**
   * ef = n − 1 keeps every node in the beam but the one with the lowest estimate (as in {@link
   * BinaryGraphTest}), so the hits depend on the rerank alone: nodes taken by descending upper end
   * until at least {@code k × oversample} are taken and the next upper end is below the k-th lower
   * end; of those, the ones whose upper end reaches the final k-th lower end are scored by their
   * floats, and the best k of those are the hits, score for score.
   */
  @Test
  void theHitsAreTheFloatTopKOfTheNodesTheOwnBracketsKeep() {
    long seed = TestSeeds.seed("Int4RerankTest.rule");
    SplittableRandom r = new SplittableRandom(seed);
    int n = 500;
    int dim = HnswSearcher.OWN_BRACKETS_DIMENSION;
    int k = 10;
    float[][] data = TestVectors.clustered(r, n, dim, 8, 1.0);
    HnswConfig config =
        HnswConfig.builder().quantization(VectorQuantization.INT4).buildThreads(1).build();
    MutableHnswGraph g = QuantizedGraphTest.build(config, data);
    Rotation rotation = new Rotation(dim);
    Int4Codes.Query query = new Int4Codes.Query(rotation);
    float epsilon = config.rerankConfidence();
    int window = k * config.oversample();
    byte[][] codes = new byte[n][];
    for (int i = 0; i < n; i++) {
      codes[i] = Int4Codes.encode(rotation, data[i]);
    }
    long differentFromTheFloatTopK = 0;
    for (int t = 0; t < 30; t++) {
      float[] q = TestVectors.near(r, data[r.nextInt(n)], 1.0);
      query.bind(q);
      float[] estimate = new float[n];
      float[] margin = new float[n];
      float[] upper = new float[n];
      int lowest = 0;
      for (int i = 0; i < n; i++) {
        estimate[i] = query.dot(codes[i]);
        margin[i] = query.bound(codes[i], epsilon);
        upper[i] = estimate[i] + margin[i];
        lowest = estimate[i] < estimate[lowest] ? i : lowest;
      }
      GraphHits hits = g.search(q, k, n - 1);
      assertEquals(QueryPlan.HNSW, hits.plan(), "seed " + seed);
      List<Integer> order = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (i != lowest) {
          order.add(i);
        }
      }
      // Descending upper end, ties by descending node, as the searcher's sorted codes give them.
      order.sort(
          Comparator.<Integer>comparingDouble(i -> upper[i]).thenComparingInt(i -> i).reversed());
      PriorityQueue<Float> lowers = new PriorityQueue<>(); // the k best lower ends, worst first
      float kth = Float.NEGATIVE_INFINITY;
      List<Integer> kept = new ArrayList<>();
      int taken = 0;
      for (int i : order) {
        if (taken >= window && lowers.size() >= k && upper[i] < kth) {
          break;
        }
        taken++;
        if (upper[i] < kth) {
          continue;
        }
        lowers.add(upper[i] - 2 * margin[i]);
        if (lowers.size() > k) {
          lowers.poll();
        }
        if (lowers.size() >= k) {
          kth = lowers.peek();
        }
        kept.add(i);
      }
      List<Float> floats = new ArrayList<>();
      for (int i : kept) {
        if (upper[i] >= kth) {
          floats.add(VectorUtil.dotProduct(q, data[i]));
        }
      }
      floats.sort(Comparator.reverseOrder());
      List<Float> all = new ArrayList<>();
      for (float[] v : data) {
        all.add(VectorUtil.dotProduct(q, v));
      }
      all.sort(Comparator.reverseOrder());
      String where = "query " + t + ", seed " + seed;
      assertEquals(floats.size(), hits.rescored(), "floats read, " + where);
      assertEquals(k, hits.scores().length, where);
      for (int i = 0; i < k; i++) {
        assertEquals((1 + floats.get(i)) / 2, hits.scores()[i], 1e-6f, "hit " + i + ", " + where);
        if (!floats.get(i).equals(all.get(i))) {
          differentFromTheFloatTopK++;
        }
      }
    }
    System.out.printf(
        "int4 rerank (seed %d): %d of %d hits differ from the exact float top k%n",
        seed, differentFromTheFloatTopK, 30 * k);
  }
}
