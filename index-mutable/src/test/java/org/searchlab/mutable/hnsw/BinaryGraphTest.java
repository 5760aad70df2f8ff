package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.TestSeeds;

/**
 * The graph over 1-bit codes ({@link VectorQuantization#BBQ}) against exact oracles: with a beam
 * that keeps every node the answer is the rerank rule applied to all of them, recall holds on
 * clustered vectors, inserts build on the floats (the same links as a float graph), and a snapshot
 * gives back the same codes and answers.
 */
class BinaryGraphTest {
  private static HnswConfig bbq() {
    return HnswConfig.builder().quantization(VectorQuantization.BBQ).buildThreads(1).build();
  }

  /**
   * ef = n − 1 (at n a search scans exactly instead): the beam keeps every node but the one with
   * the lowest estimate, so the hits are fixed by the rerank alone. The rerank takes nodes by
   * descending upper end and stops against the k-th int8 lower end, which is at most the k-th float
   * score, so it takes at least the nodes that stopping against the k-th float score takes (until
   * at least k × oversample are taken and the next upper end is below the k-th float score,
   * computed here from the codes directly), and its hits are the exact float top k of the nodes it
   * took: each hit scores at least what that rule's k hits score, and at most the exact top k's. (A
   * beam this wide on 500 clustered vectors visits every node: each has links from several others
   * in its cluster.)
   */
  @Test
  void withEveryNodeInTheBeamTheHitsAreTheRerankRule() {
    long seed = TestSeeds.seed("BinaryGraphTest.rule");
    SplittableRandom r = new SplittableRandom(seed);
    int n = 500;
    int dim = 96;
    int k = 10;
    float[][] data = TestVectors.clustered(r, n, dim, 8, 1.0);
    HnswConfig config = bbq();
    MutableHnswGraph g = QuantizedGraphTest.build(config, data);
    Rotation rotation = new Rotation(dim);
    BinaryCodes.Query query = new BinaryCodes.Query(rotation);
    int window = k * config.oversample();
    for (int t = 0; t < 30; t++) {
      float[] q = TestVectors.near(r, data[r.nextInt(n)], 1.0);
      GraphHits hits = g.search(q, k, n - 1);
      assertEquals(QueryPlan.HNSW, hits.plan(), "seed " + seed);
      query.bind(q);
      float[] estimate = new float[n];
      float[] upper = new float[n];
      int lowest = 0;
      for (int i = 0; i < n; i++) {
        byte[] code = BinaryCodes.encode(rotation, data[i]);
        estimate[i] = query.dot(code);
        upper[i] = estimate[i] + query.bound(code, config.rerankConfidence());
        if (estimate[i] < estimate[lowest]) {
          lowest = i;
        }
      }
      int dropped = lowest;
      Integer[] order =
          IntStream.range(0, n).filter(i -> i != dropped).boxed().toArray(Integer[]::new);
      Arrays.sort(order, (a, b) -> Float.compare(upper[b], upper[a]));
      float[] best = new float[k];
      Arrays.fill(best, Float.NEGATIVE_INFINITY); // ascending: best[0] is the k-th
      int depth = 0;
      for (int i : order) {
        if (depth >= window && upper[i] < best[0]) {
          break;
        }
        depth++;
        float s = VectorUtil.dotProduct(q, data[i]);
        if (s > best[0]) {
          best[0] = s;
          Arrays.sort(best);
        }
      }
      float[] expected = new float[k];
      for (int i = 0; i < k; i++) {
        expected[i] = (1 + best[k - 1 - i]) / 2; // dot_product's _score, best first
      }
      float[] truth = new float[n - 1];
      for (int i = 0; i < order.length; i++) {
        truth[i] = VectorUtil.dotProduct(q, data[order[i]]);
      }
      Arrays.sort(truth);
      assertEquals(k, hits.scores().length, "seed " + seed);
      for (int i = 0; i < k; i++) {
        float top = (1 + truth[n - 2 - i]) / 2;
        float s = hits.scores()[i];
        String where = "query " + t + ", hit " + i + ", seed " + seed;
        assertTrue(
            s >= expected[i] - 1e-6f, s + " below the float rule's " + expected[i] + ", " + where);
        assertTrue(s <= top + 1e-6f, s + " above the exact top k's " + top + ", " + where);
      }
      // Floats are read for the hits and the few whose int8 brackets reach the k-th lower end:
      // at least k, and fewer than the float rule read.
      assertTrue(
          hits.rescored() >= k && hits.rescored() <= depth + 2,
          "floats " + hits.rescored() + " against the float rule's " + depth + ", seed " + seed);
    }
  }

  /** Inserts search the floats: one build thread gives the float graph's links, node for node. */
  @Test
  void insertsBuildOnTheFloats() {
    long seed = TestSeeds.seed("BinaryGraphTest.build");
    SplittableRandom r = new SplittableRandom(seed);
    int n = 400;
    float[][] data = TestVectors.clustered(r, n, 64, 8, 1.0);
    long graphSeed = r.nextLong();
    MutableHnswGraph floats =
        QuantizedGraphTest.build(HnswConfig.builder().seed(graphSeed).build(), data);
    MutableHnswGraph codes =
        QuantizedGraphTest.build(bbq().toBuilder().seed(graphSeed).build(), data);
    assertEquals(floats.entryNode(), codes.entryNode(), "seed " + seed);
    for (int node = 0; node < n; node++) {
      assertArrayEquals(
          floats.adjacency().links(node, 0),
          codes.adjacency().links(node, 0),
          "level 0 of node " + node + ", seed " + seed);
    }
  }

  @Test
  void recallOnClusteredVectors() {
    long seed = TestSeeds.seed("BinaryGraphTest.recall");
    SplittableRandom r = new SplittableRandom(seed);
    int n = 5000;
    int dim = 384;
    float[][] data = TestVectors.clustered(r, n, dim, 32, 1.0);
    MutableHnswGraph g = QuantizedGraphTest.build(bbq(), data);
    double sum = 0;
    long rescored = 0;
    int queries = 100;
    for (int t = 0; t < queries; t++) {
      float[] q = TestVectors.near(r, data[r.nextInt(n)], 1.0);
      GraphHits hits = g.search(q, 10, 100);
      rescored += hits.rescored();
      sum += TestVectors.recall(hits, TestVectors.exactScores(q, data, i -> true), 10);
    }
    double recall = sum / queries;
    System.out.printf(
        "bbq recall@10 ef=100 over %d vectors: %.4f, %.1f rescored per query (seed %d)%n",
        n, recall, rescored / (double) queries, seed);
    assertTrue(recall >= 0.95, "recall " + recall + ", seed " + seed);
  }

  @Test
  void snapshotGivesBackTheSameCodesAndAnswers(@TempDir Path dir) throws IOException {
    long seed = TestSeeds.seed("BinaryGraphTest.snapshot");
    SplittableRandom r = new SplittableRandom(seed);
    int n = 600;
    int dim = 32;
    float[][] data = TestVectors.clustered(r, n, dim, 8, 1.0);
    HnswConfig config = bbq();
    MutableHnswGraph g = QuantizedGraphTest.build(config, data);
    g.remove(5);
    Path file = dir.resolve("g.snap");
    g.writeSnapshot(file);
    MutableHnswGraph loaded = MutableHnswGraph.load(file, config);
    int codeLength = BinaryCodes.codeLength(dim);
    for (int i = 0; i < n; i++) {
      byte[] a = g.vectors().lowBitCode(i);
      byte[] b = loaded.vectors().lowBitCode(i);
      assertEquals(a == null, b == null, "presence of " + i);
      if (a != null) {
        assertArrayEquals(
            Arrays.copyOf(a, codeLength), Arrays.copyOf(b, codeLength), "code of " + i);
      }
    }
    for (int t = 0; t < 20; t++) {
      float[] q = TestVectors.near(r, data[r.nextInt(n)], 1.0);
      GraphHits a = g.search(q, 10, 40);
      GraphHits b = loaded.search(q, 10, 40);
      assertArrayEquals(a.nodes(), b.nodes(), "seed " + seed);
      assertArrayEquals(a.scores(), b.scores(), "seed " + seed);
    }
  }
}
