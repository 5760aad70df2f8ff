package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MutableHnswGraphRecallTest {
  static final int N = 20_000;
  static final int DIM = 384;
  static long seed;
  static float[][] data;
  static float[][] queries;
  static MutableHnswGraph graph;

  @BeforeAll
  static void build() {
    seed = TestVectors.seed("MutableHnswGraphRecallTest");
    SplittableRandom r = new SplittableRandom(seed);
    data = TestVectors.clustered(r, N, DIM, 50, 1.0);
    queries = new float[200][];
    for (int q = 0; q < queries.length; q++) {
      queries[q] = TestVectors.near(r, data[r.nextInt(N)], 0.5);
    }
    graph =
        MutableHnswGraph.create(VectorStore.create(DIM), HnswConfig.DEFAULT.withBuildThreads(2));
    int[] ids = new int[N];
    for (int i = 0; i < N; i++) {
      ids[i] = i;
    }
    long t0 = System.nanoTime();
    graph.insertAll(ids, data);
    System.out.printf("built %d in %.1fs%n", N, (System.nanoTime() - t0) / 1e9);
  }

  @Test
  void recallAtEf100() {
    double sum = 0;
    long visited = 0;
    for (float[] q : queries) {
      GraphHits hits = graph.search(q, 10, 100);
      sum += TestVectors.recall(hits, TestVectors.exactScores(q, data, i -> true), 10);
      visited += hits.visited();
    }
    System.out.printf(
        "recall@10 ef=100: %.4f visited %d%n", sum / queries.length, visited / queries.length);
    assertEquals(N, graph.size());
  }
}
