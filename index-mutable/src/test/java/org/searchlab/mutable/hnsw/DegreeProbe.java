package org.searchlab.mutable.hnsw;

import org.junit.jupiter.api.Test;
import org.searchlab.core.data.SyntheticCorpus;

class DegreeProbe {
  @Test
  void probe() {
    int n = Integer.getInteger("probe.n", 20000);
    SyntheticCorpus c = new SyntheticCorpus(42, 384);
    float[][] d = new float[n][];
    for (int i = 0; i < n; i++) {
      d[i] = c.document(i).embedding();
    }
    MutableHnswGraph g = MutableHnswGraph.create(VectorStore.create(384), HnswConfig.DEFAULT);
    int[] ids = new int[n];
    for (int i = 0; i < n; i++) ids[i] = i;
    g.insertAll(ids, d);
    long sum = 0;
    int[] hist = new int[33];
    for (int i = 0; i < n; i++) {
      int deg = g.neighbors(i, 0).length;
      sum += deg;
      hist[deg]++;
    }
    System.out.println("avg level-0 degree " + (sum / (double) n));
    System.out.println("hist " + java.util.Arrays.toString(hist));
    double r = 0;
    for (int q = 0; q < 300; q++) {
      float[] qv = d[(q * 7919) % n];
      r += TestVectors.recall(g.search(qv, 10, 16), TestVectors.exactScores(qv, d, x -> true), 10);
    }
    System.out.println("doc-query recall ef16 " + r / 300);
  }
}
