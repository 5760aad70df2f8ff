package org.searchlab.mutable.hnsw;

import org.apache.lucene.util.VectorUtil;

/**
 * Dot products, or squared Euclidean distances, of one query with a batch of vectors. With the
 * {@code jdk.incubator.vector} module present, the batch is scored eight vectors per pass, then
 * four, then the last two or three together ({@link PanamaDots}), as Lucene's own off-heap scorer
 * scores four per pass in its {@code bulkScore}; Lucene offers that kernel only for memory-mapped
 * vectors, not for heap arrays, so the graph carries its own. A search is bound by the cache misses
 * of the vectors it reads, and every vector of a pass is a memory stream in flight at once: on the
 * synthetic 100,000 (384-d, one graph, paired passes) eight-then-four-then-the-rest searched 0–12%
 * faster than four at a time with the leftovers one by one, with the same hits. A single leftover,
 * and every batch without the module (or with {@code -Dsearchlab.hnsw.bulkDot=false}), goes through
 * {@link #dot}.
 *
 * <p>The squared distances ({@link #squareDistances}, {@link #squareDistance}, for the {@code
 * l2_norm} similarity) take the same paths through {@link PanamaSquares}' kernels.
 *
 * <p>Every path gives the same bits whether or not the JIT compiled it, so a graph built twice from
 * the same vectors and seed is the same graph. The paths sum in different orders, so a score may
 * differ from {@link VectorUtil#dotProduct} (or {@link VectorUtil#squareDistance}) in the last
 * bits; {@link HnswSearcher} rescores its final hits with those ({@link GraphSimilarity#exact}), so
 * that reported scores never depend on the path and match the segmented store's.
 *
 * <p>Thread-safety: stateless.
 */
final class BulkDot {
  /** Whether the multi-vector kernels are in use. */
  static final boolean BATCHED =
      ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
          && Boolean.parseBoolean(System.getProperty("searchlab.hnsw.bulkDot", "true"));

  private BulkDot() {}

  /**
   * {@code scores[i]} = the dot product of the first {@code n} floats of {@code query} and {@code
   * vectors[i]}, for {@code i < count}: a vector may head a longer row, as in {@link
   * RowFloatSlots}.
   */
  static void score(float[] query, float[][] vectors, int n, float[] scores, int count) {
    int i = 0;
    if (BATCHED) {
      for (; i + 8 <= count; i += 8) {
        PanamaDots.dot8(query, vectors, n, i, scores);
      }
      if (i + 4 <= count) {
        PanamaDots.dot4(query, vectors, n, i, scores);
        i += 4;
      }
      if (i + 3 == count) {
        PanamaDots.dot3(query, vectors, n, i, scores);
        return;
      }
      if (i + 2 == count) {
        PanamaDots.dot2(query, vectors, n, i, scores);
        return;
      }
    }
    for (; i < count; i++) {
      scores[i] = dot(query, vectors[i], n);
    }
  }

  /**
   * {@code a · b}, the same bits in every JIT tier: the graph scores with this instead of {@link
   * VectorUtil#dotProduct}, whose Panama path sums its lanes by {@code reduceLanes}, in an order
   * that differs between the interpreter and C2 (see {@link PanamaDots}). Without the module, a
   * plain loop (C2 keeps the order of float additions). Over the first {@code n} floats of each: a
   * vector may head a longer row ({@link RowFloatSlots}).
   */
  static float dot(float[] a, float[] b, int n) {
    if (BATCHED) {
      return PanamaDots.dot1(a, b, n);
    }
    float s = 0;
    for (int i = 0; i < n; i++) {
      s = Math.fma(a[i], b[i], s);
    }
    return s;
  }

  /**
   * {@code distances[i]} = the squared Euclidean distance between the first {@code n} floats of
   * {@code query} and {@code vectors[i]}, for {@code i < count}: {@link #score}'s batches, with
   * {@link PanamaSquares}' kernels.
   */
  static void squareDistances(
      float[] query, float[][] vectors, int n, float[] distances, int count) {
    int i = 0;
    if (BATCHED) {
      for (; i + 8 <= count; i += 8) {
        PanamaSquares.square8(query, vectors, n, i, distances);
      }
      if (i + 4 <= count) {
        PanamaSquares.square4(query, vectors, n, i, distances);
        i += 4;
      }
      if (i + 3 == count) {
        PanamaSquares.square3(query, vectors, n, i, distances);
        return;
      }
      if (i + 2 == count) {
        PanamaSquares.square2(query, vectors, n, i, distances);
        return;
      }
    }
    for (; i < count; i++) {
      distances[i] = squareDistance(query, vectors[i], n);
    }
  }

  /**
   * {@code ‖a − b‖²} over the first {@code n} floats of each, the same bits in every JIT tier, as
   * {@link #dot} is.
   */
  static float squareDistance(float[] a, float[] b, int n) {
    if (BATCHED) {
      return PanamaSquares.square1(a, b, n);
    }
    float s = 0;
    for (int i = 0; i < n; i++) {
      float d = b[i] - a[i];
      s = Math.fma(d, d, s);
    }
    return s;
  }
}
