package org.searchlab.bench.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.core.VectorQuantization;
import org.searchlab.mutable.hnsw.BinaryCodes;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.mutable.hnsw.Rotation;

/**
 * {@link InlineCodesLevelZero} estimates from a row what the store's 1-bit codes estimate, for the
 * links the graph holds, and its search finds the neighbours: a copy that put a code in the wrong
 * slot, dropped a link or misread the transposed words would fail the first test, one whose beam or
 * rerank differed from the store's the second.
 */
class InlineCodesLevelZeroTest {
  @Test
  void aRowEstimatesWhatTheNeighboursOwnCodesEstimate() {
    long seed = Long.getLong("tests.seed", System.nanoTime());
    System.out.println("InlineCodesLevelZeroTest seed " + seed);
    // 200 dimensions: four words of bits, the last one partly used.
    BenchVectors v = BenchVectors.synthetic(seed, 2_000, 20, 200, true);
    MutableHnswGraph graph = FlatLevelZeroTest.build(v, seed, VectorQuantization.NONE);
    InlineCodesLevelZero inline = InlineCodesLevelZero.copy(graph, v.docs(), 8, 1.9f, 30);
    Rotation rotation = new Rotation(v.dimension());
    BinaryCodes.Query query = new BinaryCodes.Query(rotation);
    SplittableRandom random = new SplittableRandom(seed);
    int[] links = new int[16];
    for (int t = 0; t < 200; t++) {
      int node = random.nextInt(v.docs().length);
      float[] q = v.queries()[t % v.queries().length];
      float[] estimates = inline.neighbourEstimates(q, node, links);
      int[] expectedLinks = graph.neighbors(node, 0);
      assertArrayEquals(
          expectedLinks, Arrays.copyOf(links, estimates.length), "node " + node + ", seed " + seed);
      query.bind(q);
      for (int j = 0; j < estimates.length; j++) {
        float expected = query.dot(BinaryCodes.encode(rotation, v.docs()[expectedLinks[j]]));
        // The same integer dot product and factors; the float formula is rounded in another order.
        assertEquals(
            expected,
            estimates[j],
            1e-5f * (1 + Math.abs(expected)),
            "node " + node + ", slot " + j + ", seed " + seed);
      }
    }
  }

  /**
   * The copy searches as the store's own 1-bit search does (the same estimates, beam and rerank on
   * the same links; only where the codes are differs), so on one graph they find the same hits: a
   * graph built over 1-bit codes walks the floats while it builds, so it is the float graph.
   */
  @Test
  void itsSearchFindsWhatTheStoresOneBitSearchFinds() {
    long seed = Long.getLong("tests.seed", System.nanoTime());
    System.out.println("InlineCodesLevelZeroTest seed " + seed);
    BenchVectors v = BenchVectors.synthetic(seed, 3_000, 100, 384, true);
    MutableHnswGraph graph = FlatLevelZeroTest.build(v, seed, VectorQuantization.BBQ);
    InlineCodesLevelZero inline =
        InlineCodesLevelZero.copy(
            graph,
            v.docs(),
            8,
            graph.config().rerankConfidence(),
            10 * graph.config().oversample());
    // ef 64: above the store's rescoring window (k × oversample), which it would widen to.
    FlatLevelZeroTest.assertSameHits(
        v,
        seed,
        q -> graph.search(q, 10, 64).nodes(),
        q -> {
          int[] hits = inline.search(q, 10, 64);
          assertTrue(inline.rescored() >= 30, "the rerank reads at least its minimum depth");
          return hits;
        });
  }

  @Test
  void hnswBenchRunsTheCopyBesideTheGraph() throws Exception {
    JsonNode inline =
        FlatLevelZeroTest.benchLines("mutable,mutable-inline", "128").get("mutable-inline");
    assertNotNull(inline);
    assertTrue(inline.get("visitedPerQuery").asDouble() > 0, inline.toString());
    assertTrue(inline.get("rescoredPerQuery").asDouble() >= 10, inline.toString());
  }

  @Test
  void theCopyRefusesQuantizedGraphs() {
    String err = FlatLevelZeroTest.refusalOfInt8("mutable-inline", "64");
    assertTrue(err.contains("mutable-inline makes its own"), err);
  }
}
