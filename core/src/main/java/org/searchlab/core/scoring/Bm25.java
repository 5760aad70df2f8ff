package org.searchlab.core.scoring;

import org.apache.lucene.util.SmallFloat;

/**
 * BM25 exactly as Lucene 10's {@code BM25Similarity} computes it, in the same float arithmetic, so
 * that a store implementing it by hand scores the same documents as Lucene to within rounding.
 *
 * <ul>
 *   <li>idf = ln(1 + (N − n + 0.5) / (n + 0.5)), N = documents with the field, n = documents with
 *       the term;
 *   <li>the field length is stored in one byte ({@link SmallFloat#intToByte4}), so long fields lose
 *       precision exactly as in Lucene;
 *   <li>score = w − w / (1 + tf · normInverse), w = boost · idf, normInverse = 1 / (k1 · (1 − b + b
 *       · dl / avgdl)), which equals w · tf / (tf + k1 · (1 − b + b · dl / avgdl)).
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class Bm25 {
  /** Term-frequency saturation; Lucene's and Elasticsearch's default. */
  public static final float K1 = 1.2f;

  /** Length normalisation; Lucene's and Elasticsearch's default. */
  public static final float B = 0.75f;

  /** Decoded field length for every norm byte, as Lucene's {@code LENGTH_TABLE}. */
  private static final float[] LENGTH_TABLE = new float[256];

  static {
    for (int i = 0; i < 256; i++) {
      LENGTH_TABLE[i] = SmallFloat.byte4ToInt((byte) i);
    }
  }

  private Bm25() {}

  /** Lucene's idf. */
  public static float idf(long docFreq, long docCount) {
    return (float) Math.log(1 + (docCount - docFreq + 0.5D) / (docFreq + 0.5D));
  }

  /** The average field length: sum of total term frequencies / documents with the field. */
  public static float avgFieldLength(long sumTotalTermFreq, long docCount) {
    return (float) (sumTotalTermFreq / (double) docCount);
  }

  /** The one-byte norm Lucene stores for a field of {@code length} tokens. */
  public static byte encodeNorm(int length) {
    return (byte) SmallFloat.intToByte4(length);
  }

  /**
   * 1 / (k1 · (1 − b + b · dl / avgdl)) for every norm byte, as Lucene caches it per query term.
   */
  public static float[] normInverseCache(float avgdl) {
    return normInverseCache(avgdl, K1, B);
  }

  /** {@link #normInverseCache(float)} with a field's own {@code k1} and {@code b}. */
  public static float[] normInverseCache(float avgdl, float k1, float b) {
    float[] cache = new float[256];
    for (int i = 0; i < cache.length; i++) {
      cache[i] = 1f / (k1 * ((1 - b) + b * LENGTH_TABLE[i] / avgdl));
    }
    return cache;
  }

  /**
   * The norm byte Lucene scores a field without norms by ({@code keyword}): 1, a length of one
   * token.
   */
  public static final byte NO_NORMS = 1;

  /** The score of one term in one document, given w = boost · idf. */
  public static float score(float weight, float freq, float normInverse) {
    return weight - weight / (1f + freq * normInverse);
  }

  /**
   * An upper bound of {@link #score} for any frequency ≤ {@code maxFreq} and any norm ≥ {@code
   * minNorm}: BM25 grows with frequency and shrinks with length. Used for block-max pruning.
   */
  public static float upperBound(
      float weight, float[] normInverseCache, int maxFreq, byte minNorm) {
    return score(weight, maxFreq, normInverseCache[minNorm & 0xFF]);
  }
}
