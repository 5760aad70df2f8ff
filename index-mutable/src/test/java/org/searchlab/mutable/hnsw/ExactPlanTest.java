package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.mapping.VectorSimilarity;
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
    MutableHnswGraph graph = graphOf(data);
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
        exact[i] =
            notSevenths.accept(i) ? TestVectors.dot(query, data[i]) : Double.NEGATIVE_INFINITY;
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

  /**
   * The scan brackets each score by the int8 code and rescores by the floats only the nodes that
   * can still make the top k: far fewer than it scans, yet the hits are the exact top k, with ties
   * at the k-th place (exact copies, and vectors one float step apart) kept as the float scan keeps
   * them.
   */
  @Test
  void theScanRescoresOnlyTheNodesWhoseBracketReachesTheKthLowerEnd() {
    long seed = TestSeeds.seed("ExactPlanTest.codes");
    SplittableRandom r = new SplittableRandom(seed);
    float[][] data = TestVectors.clustered(r, 4000, DIM, 16, 1.0);
    for (int i = 3; i < data.length; i += 4) {
      data[i] = data[i - 1].clone();
      if (i % 8 == 7) {
        data[i][r.nextInt(DIM)] = Math.nextUp(data[i][0]); // a near copy
      }
    }
    MutableHnswGraph graph = graphOf(data);
    HnswSearcher searcher =
        new HnswSearcher(graph.adjacency(), graph.vectors(), HnswConfig.DEFAULT);
    FilterThresholds exactOnly = new FilterThresholds(1, 1);
    long scanned = 0;
    long rescored = 0;
    for (int q = 0; q < 40; q++) {
      float[] query = TestVectors.near(r, data[r.nextInt(data.length)], 0.1);
      int k = q % 2 == 0 ? 10 : 100;
      // Nearly every node, or two in three.
      AcceptBits accept = q % 3 == 0 ? node -> node % 50 != 0 : node -> node % 3 != 1;
      int accepted = (int) IntStream.range(0, data.length).filter(accept::accept).count();
      GraphHits got = searcher.search(query, k, k, accept, accepted, exactOnly, 0, k);
      String where = "query " + q + ", k " + k + ", seed " + seed;
      assertEquals(QueryPlan.EXACT, got.plan(), where);
      // The float scan, one VectorUtil dot product after another, ties by the higher node.
      Integer[] order = new Integer[data.length];
      for (int i = 0; i < order.length; i++) {
        order[i] = i;
      }
      float[] exact = new float[data.length];
      for (int i = 0; i < data.length; i++) {
        exact[i] = VectorUtil.dotProduct(query, data[i]);
      }
      Arrays.sort(
          order, (a, b) -> exact[a] != exact[b] ? Float.compare(exact[b], exact[a]) : b - a);
      double kth =
          Arrays.stream(order)
              .filter(accept::accept)
              .skip(k - 1)
              .findFirst()
              .map(i -> TestVectors.dot(query, data[i]))
              .orElseThrow();
      for (int i = 0; i < k; i++) {
        int node = got.nodes()[i];
        assertTrue(accept.accept(node), where);
        assertTrue(
            TestVectors.dot(query, data[node]) >= kth - TOLERANCE,
            where + ": node " + node + " is not in the top k");
        assertEquals(VectorScores.fromDot(exact[node]), got.scores()[i], TOLERANCE, where);
      }
      scanned += accepted;
      rescored += searcher.rescored();
      assertTrue(searcher.rescored() >= k, where);
    }
    System.out.printf(
        "exact plan by codes: rescored %d of %d scanned (%.1f%%), seed %d%n",
        rescored, scanned, 100.0 * rescored / scanned, seed);
    assertTrue(
        rescored * 4 < scanned, "rescored " + rescored + " of " + scanned + ", seed " + seed);
  }

  /**
   * A caller that shows fewer hits than k (a vector-only page) gets the full exact top k's first
   * hits, score for score, and the count of all k, while the scan rescores fewer floats: what it
   * skips is only the order and the exact scores of hits nobody reads.
   */
  @Test
  void fewerShownHitsAreTheTopKsFirstAndTheRestAreCounted() {
    long seed = TestSeeds.seed("ExactPlanTest.shown");
    SplittableRandom r = new SplittableRandom(seed);
    float[][] data = TestVectors.clustered(r, 3000, DIM, 16, 1.0);
    for (int i = 5; i < data.length; i += 7) {
      data[i] = data[i - 1].clone(); // ties at any place
    }
    MutableHnswGraph graph = graphOf(data);
    HnswSearcher searcher =
        new HnswSearcher(graph.adjacency(), graph.vectors(), HnswConfig.DEFAULT);
    FilterThresholds exactOnly = new FilterThresholds(1, 1);
    long rescoredAll = 0;
    long rescoredShown = 0;
    for (int q = 0; q < 30; q++) {
      float[] query = TestVectors.near(r, data[r.nextInt(data.length)], 0.1);
      int k = 100;
      int shown = 1 + r.nextInt(20);
      // Most nodes, or fewer than k.
      int mod = q % 5 == 0 ? 40 : 2;
      AcceptBits accept = node -> node % mod == 0;
      int accepted = (int) IntStream.range(0, data.length).filter(accept::accept).count();
      String where = "query " + q + ", shown " + shown + ", seed " + seed;
      GraphHits all = searcher.search(query, k, k, accept, accepted, exactOnly, 0, k);
      rescoredAll += searcher.rescored();
      GraphHits page = searcher.search(query, k, k, accept, accepted, exactOnly, 0, shown);
      rescoredShown += searcher.rescored();
      assertEquals(QueryPlan.EXACT, page.plan(), where);
      assertEquals(Math.min(k, accepted), all.found(), where);
      assertEquals(all.found(), page.found(), where);
      assertEquals(Math.min(shown, accepted), page.size(), where);
      for (int i = 0; i < page.size(); i++) {
        assertEquals(all.nodes()[i], page.nodes()[i], where + ", hit " + i);
        assertEquals(all.scores()[i], page.scores()[i], where + ", hit " + i);
      }
    }
    System.out.printf(
        "exact plan, shown hits only: rescored %d floats against %d for all k, seed %d%n",
        rescoredShown, rescoredAll, seed);
    assertTrue(rescoredShown < rescoredAll, "seed " + seed);
  }

  /**
   * The brackets of {@code l2_norm} and {@code max_inner_product} over vectors of various lengths:
   * the scan still finds the exact top k (checked in double precision) while rescoring a small
   * share of the floats.
   */
  @Test
  void theBracketsOfTheOtherSimilaritiesFindTheExactTopKAndSpareMostFloats() {
    for (VectorSimilarity similarity :
        new VectorSimilarity[] {VectorSimilarity.L2_NORM, VectorSimilarity.MAX_INNER_PRODUCT}) {
      long seed = TestSeeds.seed("ExactPlanTest.similarity." + similarity);
      SplittableRandom r = new SplittableRandom(seed);
      float[][] data = TestVectors.clustered(r, 3000, DIM, 16, 1.0);
      for (int i = 0; i < data.length; i++) {
        float length = (float) Math.pow(4, r.nextDouble() * 2 - 1); // 1/4 to 4
        for (int d = 0; d < DIM; d++) {
          data[i][d] *= length;
        }
        if (i % 9 == 8) {
          data[i] = data[i - 1].clone(); // ties
        }
      }
      HnswConfig config = HnswConfig.builder().similarity(similarity).build();
      MutableHnswGraph graph = MutableHnswGraph.create(VectorStore.create(DIM), config);
      graph.insertAll(IntStream.range(0, data.length).toArray(), data);
      HnswSearcher searcher = new HnswSearcher(graph.adjacency(), graph.vectors(), config);
      FilterThresholds exactOnly = new FilterThresholds(1, 1);
      long scanned = 0;
      long rescored = 0;
      for (int q = 0; q < 30; q++) {
        float[] query = TestVectors.near(r, data[r.nextInt(data.length)], 0.1);
        float length = (float) Math.pow(4, r.nextDouble() * 2 - 1);
        for (int d = 0; d < DIM; d++) {
          query[d] *= length;
        }
        int k = q % 2 == 0 ? 10 : 100;
        AcceptBits accept = q % 3 == 0 ? node -> node % 50 != 0 : node -> node % 3 != 1;
        int accepted = (int) IntStream.range(0, data.length).filter(accept::accept).count();
        GraphHits got = searcher.search(query, k, k, accept, accepted, exactOnly, 0, k);
        String where = similarity + ", query " + q + ", k " + k + ", seed " + seed;
        assertEquals(QueryPlan.EXACT, got.plan(), where);
        assertEquals(k, got.size(), where);
        double[] raw = new double[data.length];
        double[] sorted = new double[accepted];
        for (int i = 0, j = 0; i < data.length; i++) {
          raw[i] = accept.accept(i) ? raw(similarity, query, data[i]) : Double.NEGATIVE_INFINITY;
          if (accept.accept(i)) {
            sorted[j++] = raw[i];
          }
        }
        Arrays.sort(sorted);
        double kth = sorted[accepted - k];
        for (int i = 0; i < k; i++) {
          int node = got.nodes()[i];
          assertTrue(accept.accept(node), where);
          assertTrue(
              raw[node] >= kth - 1e-5 * Math.abs(kth),
              where + ": node " + node + " is not in the top k");
          float expected = similarity.score(query, data[node]);
          assertEquals(expected, got.scores()[i], 1e-5f * Math.abs(expected), where);
        }
        scanned += accepted;
        rescored += searcher.rescored();
      }
      System.out.printf(
          "exact plan by codes, %s: rescored %d of %d scanned (%.1f%%), seed %d%n",
          similarity, rescored, scanned, 100.0 * rescored / scanned, seed);
      assertTrue(
          rescored * 4 < scanned,
          similarity + ": rescored " + rescored + " of " + scanned + ", seed " + seed);
    }
  }

  /** The raw score in double precision: the dot product, or minus the squared distance. */
  private static double raw(VectorSimilarity similarity, float[] q, float[] v) {
    if (similarity != VectorSimilarity.L2_NORM) {
      return TestVectors.dot(q, v);
    }
    double s = 0;
    for (int i = 0; i < q.length; i++) {
      double d = (double) q[i] - v[i];
      s += d * d;
    }
    return -s;
  }

  /** A default graph of {@code data}, node i holding data[i]. */
  private static MutableHnswGraph graphOf(float[][] data) {
    MutableHnswGraph graph = MutableHnswGraph.create(VectorStore.create(DIM), HnswConfig.DEFAULT);
    int[] ids = new int[data.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    graph.insertAll(ids, data);
    return graph;
  }
}
