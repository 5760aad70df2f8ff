package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * A parallel build (neighbour searches on build threads, linking on the writer, in the store's
 * batches) against a serial one of the same vectors: tie-aware recall@10 against exact kNN must
 * agree within 0.005. 1,000 queries at a recall near 0.99 put the difference's standard error near
 * 0.0015, so 0.005 is more than three of them: a failure means the parallel path builds a worse
 * graph, not bad luck.
 */
class ParallelBuildRecallTest {
  static final int N = 10_000;
  static final int DIM = 96;
  static final int K = 10;
  static final int QUERIES = 1_000;

  /** Nodes per insertAll call, as the store's writer batches hand them over. */
  static final int STORE_BATCH = 1_000;

  @Test
  void parallelBuildHasTheRecallOfASerialOne() {
    long seed = TestSeeds.seed("ParallelBuildRecallTest");
    SplittableRandom random = new SplittableRandom(seed);
    float[][] data = TestVectors.clustered(random, N, DIM, 32, 1.0);
    float[][] queries = new float[QUERIES][];
    for (int q = 0; q < QUERIES; q++) {
      queries[q] = TestVectors.near(random, data[random.nextInt(N)], 1.0);
    }
    HnswConfig serial = HnswConfig.builder().efConstruction(100).seed(seed).build();
    double one = recall(build(serial, data), data, queries);
    double two = recall(build(serial.toBuilder().buildThreads(2).build(), data), data, queries);
    System.out.printf("recall@10 ef=64: serial %.4f, 2 build threads %.4f%n", one, two);
    assertTrue(Math.abs(one - two) <= 0.005, "serial " + one + " vs parallel " + two);
  }

  private static MutableHnswGraph build(HnswConfig config, float[][] data) {
    MutableHnswGraph g = MutableHnswGraph.create(VectorStore.create(DIM), config);
    for (int from = 0; from < N; from += STORE_BATCH) {
      int n = Math.min(STORE_BATCH, N - from);
      int[] ids = new int[n];
      float[][] vecs = new float[n][];
      for (int i = 0; i < n; i++) {
        ids[i] = from + i;
        vecs[i] = data[from + i];
      }
      g.insertAll(ids, vecs);
    }
    return g;
  }

  private static double recall(MutableHnswGraph g, float[][] data, float[][] queries) {
    double sum = 0;
    for (float[] q : queries) {
      GraphHits hits = g.search(q, K, 64);
      sum += TestVectors.recall(hits, TestVectors.exactScores(q, data, i -> true), K);
    }
    return sum / queries.length;
  }
}
