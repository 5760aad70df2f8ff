package org.searchlab.core.scoring;

import org.apache.lucene.util.VectorUtil;

/**
 * Vector closeness as Lucene's {@code VectorSimilarityFunction.DOT_PRODUCT} scores it: (1 + dot) /
 * 2, clamped at 0, for unit vectors. The dot product is Lucene's SIMD {@link VectorUtil}. Stateless
 * and thread-safe.
 */
public final class VectorScores {
  private VectorScores() {}

  /** The closeness score of two unit vectors, in [0, 1]; higher is closer. */
  public static float closeness(float[] a, float[] b) {
    return fromDot(VectorUtil.dotProduct(a, b));
  }

  /** The closeness score for a dot product, as Lucene computes it. */
  public static float fromDot(float dot) {
    return Math.max((1 + dot) / 2, 0);
  }
}
