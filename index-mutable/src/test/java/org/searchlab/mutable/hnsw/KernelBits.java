package org.searchlab.mutable.hnsw;

import java.util.SplittableRandom;

/**
 * Prints the bits of the graph's kernels for seeded vectors, one score per line: run by {@link
 * SearchKernelsTest} (dot products) and {@link SquareKernelsTest} (squared distances, with a second
 * argument {@code squares}) in a child JVM with {@code -Xint}, so that the interpreter's results
 * can be compared with C2's.
 */
public final class KernelBits {
  private KernelBits() {}

  /** The scores {@link #main} prints: a batch of 13 (eight, four, one), then each alone. */
  static int[] bits(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int dim = 75; // with 8 lanes: two four-accumulator steps, one single step, a tail of 3
    // Plain uniform floats: no library call (VectorUtil.l2normalize sums by reduceLanes too) and
    // no Math.log or cos, so the inputs are the same bits in every tier.
    float[] query = uniform(random, dim);
    float[][] vectors = new float[13][];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = uniform(random, dim);
    }
    float[] scores = new float[vectors.length];
    BulkDot.score(query, vectors, query.length, scores, vectors.length);
    int[] out = new int[2 * vectors.length];
    for (int i = 0; i < vectors.length; i++) {
      out[i] = Float.floatToIntBits(scores[i]);
      out[vectors.length + i] = Float.floatToIntBits(BulkDot.dot(query, vectors[i], query.length));
    }
    return out;
  }

  /** As {@link #bits}, for the squared-distance kernels. */
  static int[] squareBits(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int dim = 75;
    float[] query = uniform(random, dim);
    float[][] vectors = new float[13][];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = uniform(random, dim);
    }
    float[] distances = new float[vectors.length];
    BulkDot.squareDistances(query, vectors, query.length, distances, vectors.length);
    int[] out = new int[2 * vectors.length];
    for (int i = 0; i < vectors.length; i++) {
      out[i] = Float.floatToIntBits(distances[i]);
      out[vectors.length + i] =
          Float.floatToIntBits(BulkDot.squareDistance(query, vectors[i], query.length));
    }
    return out;
  }

  private static float[] uniform(SplittableRandom random, int dim) {
    float[] v = new float[dim];
    for (int d = 0; d < dim; d++) {
      v[d] = (float) (random.nextDouble() * 2 - 1);
    }
    return v;
  }

  public static void main(String[] args) {
    long seed = Long.parseLong(args[0]);
    boolean squares = args.length > 1 && args[1].equals("squares");
    for (int b : squares ? squareBits(seed) : bits(seed)) {
      System.out.println(b);
    }
  }
}
