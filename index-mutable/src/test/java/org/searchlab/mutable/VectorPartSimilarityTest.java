package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.mutable.hnsw.AcceptBits;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.mutable.postings.TopHits;
import org.searchlab.testing.TestSeeds;

/**
 * The vector part scores by its config's similarity on both paths: the exact {@code scan} (a
 * request's {@code approximate = false}) and the graph search return the exact top k by {@link
 * VectorSimilarity#score}, with that score, and agree with each other hit for hit.
 */
class VectorPartSimilarityTest {
  private static final int DIM = 16;
  private static final int N = 300;
  private static final int K = 10;

  @Test
  void scanAndSearchScoreByTheConfiguredSimilarity() {
    for (VectorSimilarity similarity : VectorSimilarity.values()) {
      long seed = TestSeeds.seed("VectorPartSimilarityTest." + similarity);
      SplittableRandom random = new SplittableRandom(seed);
      boolean unit = similarity == VectorSimilarity.DOT_PRODUCT;
      float[][] data = new float[N][];
      VectorPart part = VectorPart.create(DIM, HnswConfig.builder().similarity(similarity).build());
      for (int d = 0; d < N; d++) {
        data[d] = similarity.indexed(vector(random, unit));
        part.insert(d, data[d]);
      }
      assertEquals(similarity, part.similarity());
      for (int q = 0; q < 20; q++) {
        float[] query = similarity.indexed(vector(random, unit));
        String where = similarity + ", query " + q + ", seed " + seed;
        Integer[] order = IntStream.range(0, N).boxed().toArray(Integer[]::new);
        Arrays.sort(
            order,
            Comparator.comparingDouble((Integer d) -> similarity.score(query, data[d])).reversed());
        int[] next = {0};
        TopHits.Sorted scanned =
            part.scan(query, K, () -> next[0] < N ? next[0]++ : -1, d -> true).sorted();
        // A beam as wide as the part: the graph scans it exactly, by its own path.
        VectorPart.Result searched =
            part.search(query, K, N, AcceptBits.ALL, N, FilterThresholds.INDEX_DEFAULT, 0, K);
        assertEquals(QueryPlan.EXACT, searched.plan(), where);
        for (int i = 0; i < K; i++) {
          float expected = similarity.score(query, data[order[i]]);
          float tolerance = 1e-5f * Math.abs(expected);
          assertEquals(expected, scanned.scores()[i], tolerance, where + ", scan rank " + i);
          assertEquals(expected, searched.scores()[i], tolerance, where + ", search rank " + i);
        }
        assertArrayEquals(scanned.docs(), searched.docs(), where);
      }
    }
  }

  /** A gaussian vector: unit length for dot product, else of length about 1 to 4. */
  private static float[] vector(SplittableRandom random, boolean unit) {
    float[] v = new float[DIM];
    double length = 0;
    for (int i = 0; i < DIM; i++) {
      double u = 1 - random.nextDouble();
      v[i] = (float) (Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble()));
      length += (double) v[i] * v[i];
    }
    double scale = unit ? 1 / Math.sqrt(length) : (1 + 3 * random.nextDouble()) / Math.sqrt(length);
    for (int i = 0; i < DIM; i++) {
      v[i] = (float) (v[i] * scale);
    }
    return v;
  }
}
