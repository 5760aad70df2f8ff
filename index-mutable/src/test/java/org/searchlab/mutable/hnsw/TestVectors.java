package org.searchlab.mutable.hnsw;

import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;

/** Seeded clustered unit vectors and brute-force nearest neighbours for the graph tests. */
final class TestVectors {
  private TestVectors() {}

  /**
   * {@code n} unit vectors around {@code clusters} random centres: each is centre + gaussian noise
   * of the given spread per coordinate, normalised.
   */
  static float[][] clustered(SplittableRandom random, int n, int dim, int clusters, double spread) {
    float[][] centres = new float[clusters][];
    for (int c = 0; c < clusters; c++) {
      centres[c] = gaussianUnit(random, dim);
    }
    float[][] out = new float[n][];
    for (int i = 0; i < n; i++) {
      out[i] = near(random, centres[random.nextInt(clusters)], spread);
    }
    return out;
  }

  static float[] near(SplittableRandom random, float[] centre, double spread) {
    float[] v = new float[centre.length];
    double sigma = spread / Math.sqrt(centre.length);
    for (int d = 0; d < v.length; d++) {
      v[d] = (float) (centre[d] + gaussian(random) * sigma);
    }
    return VectorUtil.l2normalize(v);
  }

  static float[] gaussianUnit(SplittableRandom random, int dim) {
    float[] v = new float[dim];
    for (int d = 0; d < dim; d++) {
      v[d] = (float) gaussian(random);
    }
    return VectorUtil.l2normalize(v);
  }

  /** {@code dim} components drawn by {@link SplittableRandom#nextGaussian()}, not normalised. */
  static float[] gaussian(SplittableRandom random, int dim) {
    float[] v = new float[dim];
    for (int i = 0; i < dim; i++) {
      v[i] = (float) random.nextGaussian();
    }
    return v;
  }

  /** The dot product summed in doubles: the exact reference the code estimates are held to. */
  static double dot(float[] a, float[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += (double) a[i] * b[i];
    }
    return s;
  }

  private static double gaussian(SplittableRandom random) {
    double u = 1 - random.nextDouble();
    double w = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * w);
  }

  /** Exact dot products of {@code query} against every present vector, -inf where absent. */
  static float[] exactScores(float[] query, float[][] vectors, java.util.function.IntPredicate ok) {
    float[] s = new float[vectors.length];
    for (int i = 0; i < vectors.length; i++) {
      s[i] =
          vectors[i] != null && ok.test(i)
              ? VectorUtil.dotProduct(query, vectors[i])
              : Float.NEGATIVE_INFINITY;
    }
    return s;
  }

  /** The k-th highest value of {@code scores}. */
  static float kthBest(float[] scores, int k) {
    float[] copy = scores.clone();
    java.util.Arrays.sort(copy);
    return copy[copy.length - k];
  }

  /**
   * Tie-aware recall: the fraction of the {@code k} wanted hits whose exact dot product is at least
   * the exact k-th best (within float rounding), so that any of several equally close duplicates
   * counts as correct.
   */
  static double recall(GraphHits hits, float[] exact, int k) {
    float kth = kthBest(exact, k);
    int good = 0;
    for (int node : hits.nodes()) {
      if (exact[node] >= kth - 1e-6f) {
        good++;
      }
    }
    return good / (double) k;
  }

  /** How many nodes are reachable from the entry point over the links of every level. */
  static int reachableFromEntry(MutableHnswGraph graph, int idBound) {
    int count = 0;
    for (boolean r : reachable(graph, idBound)) {
      count += r ? 1 : 0;
    }
    return count;
  }

  /** Which nodes are reachable from the entry point over the links of every level. */
  static boolean[] reachable(MutableHnswGraph graph, int idBound) {
    boolean[] seen = new boolean[idBound];
    if (graph.entryNode() < 0) {
      return seen;
    }
    java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();
    seen[graph.entryNode()] = true;
    queue.add(graph.entryNode());
    while (!queue.isEmpty()) {
      int node = queue.poll();
      for (int level = 0; level <= graph.level(node); level++) {
        for (int n : graph.neighbors(node, level)) {
          if (!seen[n]) {
            seen[n] = true;
            queue.add(n);
          }
        }
      }
    }
    return seen;
  }
}
