package org.searchlab.mutable.hnsw;

import org.apache.lucene.util.VectorUtil;

/**
 * Dot products of one query with a batch of vectors. With the {@code jdk.incubator.vector} module
 * present, four vectors are scored per pass ({@link PanamaDot4}), as Lucene's own off-heap scorer
 * does in its {@code bulkScore}; Lucene offers that kernel only for memory-mapped vectors, not for
 * heap arrays, so the graph carries its own. The remainder, and every batch without the module (or
 * with {@code -Dsearchlab.hnsw.bulkDot=false}), goes through {@link VectorUtil#dotProduct}.
 *
 * <p>The two paths sum in different orders, so a score may differ from {@link
 * VectorUtil#dotProduct} in the last bits; {@link HnswSearcher} rescores its final hits with {@link
 * VectorUtil#dotProduct} so that reported scores never depend on the path.
 *
 * <p>Thread-safety: stateless.
 */
final class BulkDot {
  /** Whether the four-way kernel is in use. */
  static final boolean FOUR_WAY =
      ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
          && Boolean.parseBoolean(System.getProperty("searchlab.hnsw.bulkDot", "true"));

  private BulkDot() {}

  /** {@code scores[i] = query · vectors[i]} for {@code i < count}. */
  static void score(float[] query, float[][] vectors, float[] scores, int count) {
    int i = 0;
    if (FOUR_WAY) {
      for (; i + 4 <= count; i += 4) {
        PanamaDot4.dot4(
            query, vectors[i], vectors[i + 1], vectors[i + 2], vectors[i + 3], scores, i);
      }
    }
    for (; i < count; i++) {
      scores[i] = VectorUtil.dotProduct(query, vectors[i]);
    }
  }
}
