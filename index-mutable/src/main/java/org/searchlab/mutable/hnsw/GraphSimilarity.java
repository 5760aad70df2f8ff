package org.searchlab.mutable.hnsw;

import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.mapping.VectorSimilarity;

/**
 * The graph's {@link VectorSimilarity} as its kernels compute it: the <em>raw score</em> that every
 * neighbour list, heap and beam orders by, higher is closer, and its conversion to the {@code
 * _score} a caller sees. The raw score is the dot product for {@link VectorSimilarity#DOT_PRODUCT},
 * {@link VectorSimilarity#COSINE} (whose vectors arrive normalised) and {@link
 * VectorSimilarity#MAX_INNER_PRODUCT}, and the negated squared Euclidean distance for {@link
 * VectorSimilarity#L2_NORM}; {@link #score} hands {@link VectorSimilarity#fromRaw} the dot product
 * or the (positive) squared distance.
 *
 * <p>Why a flag and not an interface with one implementation per similarity: the choice is made
 * once per call of a batch kernel (a beam's expansion scores all of a node's unvisited neighbours
 * in one call, the selection heuristic four kept neighbours per call), by one predictable branch on
 * a final field outside the kernels' loops, so the dot-product path runs the very kernels it ran
 * before the graph had a similarity, and no distance pays a virtual call or a branch of its own.
 * Only two kernels exist: max inner product differs from dot product in its scores alone.
 *
 * <p>Thread-safety: immutable.
 */
final class GraphSimilarity {
  private final VectorSimilarity similarity;
  private final boolean l2;

  GraphSimilarity(VectorSimilarity similarity) {
    this.similarity = similarity;
    this.l2 = similarity == VectorSimilarity.L2_NORM;
  }

  VectorSimilarity similarity() {
    return similarity;
  }

  /** Whether the raw score is the negated squared distance (else the dot product). */
  boolean l2() {
    return l2;
  }

  /**
   * The raw score of {@code a} and {@code b} over their first {@code n} floats, by the graph's
   * deterministic kernels ({@link BulkDot}).
   */
  float raw(float[] a, float[] b, int n) {
    return l2 ? -BulkDot.squareDistance(a, b, n) : BulkDot.dot(a, b, n);
  }

  /**
   * {@code scores[i]} = the raw score of {@code query} and {@code vectors[i]} over the first {@code
   * n} floats, for {@code i < count}, by {@link BulkDot}'s batched kernels.
   */
  void raw(float[] query, float[][] vectors, int n, float[] scores, int count) {
    if (l2) {
      BulkDot.squareDistances(query, vectors, n, scores, count);
      for (int i = 0; i < count; i++) {
        scores[i] = -scores[i];
      }
    } else {
      BulkDot.score(query, vectors, n, scores, count);
    }
  }

  /**
   * {@code scores[at + j]} = the raw score of {@code v} and {@code vectors[at + j]} for {@code j <
   * 4}, in one pass ({@link PanamaDots#dot4}, {@link PanamaSquares#square4}); only with {@link
   * BulkDot#BATCHED}.
   */
  void raw4(float[] v, float[][] vectors, int n, int at, float[] scores) {
    if (l2) {
      PanamaSquares.square4(v, vectors, n, at, scores);
      for (int j = at; j < at + 4; j++) {
        scores[j] = -scores[j];
      }
    } else {
      PanamaDots.dot4(v, vectors, n, at, scores);
    }
  }

  /**
   * The raw score of the query code {@code query} (scale {@code queryScale}, decoded squared norm
   * {@code querySquares}, see {@link Int8Codes#squares}) and the stored code {@code code}: {@link
   * Int8Codes#dot} or minus {@link Int8Codes#squareDistance}.
   */
  float raw(byte[] query, float queryScale, float querySquares, byte[] code) {
    return l2
        ? -Int8Codes.squareDistance(query, queryScale, querySquares, code)
        : Int8Codes.dot(query, queryScale, code);
  }

  /**
   * {@link #raw(byte[], float, float, byte[])} of {@code codes[i]} into {@code scores[i]}, the
   * integer dot products one code at a time into {@code ints} ({@link Int8Codes#dots}); the same
   * bits as one by one.
   */
  void raw(
      byte[] query,
      float queryScale,
      float querySquares,
      byte[][] codes,
      int[] ints,
      float[] scores,
      int n) {
    if (l2) {
      Int8Codes.negatedSquareDistances(query, queryScale, querySquares, codes, ints, scores, n);
    } else {
      Int8Codes.dots(query, queryScale, codes, ints, scores, n);
    }
  }

  /**
   * The raw score of a hit as it is reported, by Lucene's {@link VectorUtil#dotProduct} or {@link
   * VectorUtil#squareDistance} (the segmented store's functions), whatever kernel found it. Both
   * arrays have the vector's length.
   */
  float exact(float[] query, float[] v) {
    return l2 ? -VectorUtil.squareDistance(query, v) : VectorUtil.dotProduct(query, v);
  }

  /**
   * The {@code _score} of a raw score ({@link VectorSimilarity#fromRaw}). A raw L2 score above zero
   * (an int8 estimate of a tiny distance, reported only for a hit whose float vector vanished under
   * the search) counts as distance 0.
   */
  float score(float raw) {
    return similarity.fromRaw(l2 ? Math.max(0f, -raw) : raw);
  }
}
