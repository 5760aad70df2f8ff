package org.searchlab.core.mapping;

import java.util.Locale;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.InvalidRequestException;

/**
 * How a {@code dense_vector} field compares vectors, with Elasticsearch's names and its {@code
 * _score} for each (the score both stores return, and the one exact search defines):
 *
 * <ul>
 *   <li>{@link #L2_NORM}: 1 / (1 + ‖q − v‖²);
 *   <li>{@link #DOT_PRODUCT}: (1 + q·v) / 2 over unit vectors, which it requires of documents and
 *       queries alike;
 *   <li>{@link #COSINE}: (1 + cos(q, v)) / 2; zero vectors are refused. Both stores index the
 *       normalised vector and compare by dot product, as Elasticsearch does for {@code cosine}
 *       since 8.x, so the score is (1 + q̂·v̂) / 2;
 *   <li>{@link #MAX_INNER_PRODUCT}: q·v + 1 when q·v ≥ 0, else 1 / (1 − q·v) (Lucene's scaling,
 *       which keeps scores positive).
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public enum VectorSimilarity {
  L2_NORM("l2_norm", VectorSimilarityFunction.EUCLIDEAN),
  DOT_PRODUCT("dot_product", VectorSimilarityFunction.DOT_PRODUCT),
  COSINE("cosine", VectorSimilarityFunction.DOT_PRODUCT),
  MAX_INNER_PRODUCT("max_inner_product", VectorSimilarityFunction.MAXIMUM_INNER_PRODUCT);

  /**
   * Tolerance on the squared magnitude of a {@code dot_product} vector, as Elasticsearch checks it:
   * {@code |‖v‖² − 1| ≤ 1e-4}.
   */
  public static final float UNIT_TOLERANCE = 1e-4f;

  private final String esName;
  private final VectorSimilarityFunction lucene;

  VectorSimilarity(String esName, VectorSimilarityFunction lucene) {
    this.esName = esName;
    this.lucene = lucene;
  }

  /** The name in an Elasticsearch mapping ({@code "similarity": "l2_norm"}). */
  public String esName() {
    return esName;
  }

  /**
   * The Lucene function a segment indexes the (for {@link #COSINE}, normalised) vectors with; its
   * {@code compare} is this similarity's score.
   */
  public VectorSimilarityFunction lucene() {
    return lucene;
  }

  /** Parses an Elasticsearch similarity name; a 400 naming the value and the choices otherwise. */
  public static VectorSimilarity parse(String name) {
    for (VectorSimilarity s : values()) {
      if (s.esName.equals(name == null ? null : name.toLowerCase(Locale.ROOT))) {
        return s;
      }
    }
    throw new InvalidRequestException(
        "unknown vector similarity ["
            + name
            + "]; expected l2_norm, dot_product, cosine or max_inner_product");
  }

  /**
   * The vector as the index keeps it: a normalised copy for {@link #COSINE}, the vector itself
   * otherwise. Call after {@link #check}.
   */
  public float[] indexed(float[] v) {
    if (this != COSINE) {
      return v;
    }
    float[] copy = v.clone();
    return VectorUtil.l2normalize(copy);
  }

  /**
   * The score of document vector {@code v} for query {@code q}, both as given (not normalised):
   * Elasticsearch's {@code _score} for this similarity.
   */
  public float score(float[] q, float[] v) {
    return switch (this) {
      case COSINE -> lucene.compare(indexed(q), indexed(v));
      default -> lucene.compare(q, v);
    };
  }

  /**
   * The score for a raw comparison value as the graph computes it: a dot product for {@link
   * #DOT_PRODUCT}, {@link #COSINE} (over normalised vectors) and {@link #MAX_INNER_PRODUCT}, a
   * squared distance for {@link #L2_NORM}.
   */
  public float fromRaw(float raw) {
    return switch (this) {
      case L2_NORM -> 1 / (1 + raw);
      case DOT_PRODUCT, COSINE -> Math.max((1 + raw) / 2, 0);
      case MAX_INNER_PRODUCT -> VectorUtil.scaleMaxInnerProductScore(raw);
    };
  }

  /**
   * Rejects a vector this similarity cannot compare: NaN or infinite components, a zero vector for
   * {@link #COSINE}, a vector that is not unit length (within {@link #UNIT_TOLERANCE}) for {@link
   * #DOT_PRODUCT}. The message names {@code what}, the value and the limit.
   */
  public float[] check(String what, float[] v) {
    double squared = 0;
    for (int i = 0; i < v.length; i++) {
      float x = v[i];
      if (!Float.isFinite(x)) {
        throw new InvalidRequestException(
            what + "[" + i + "] is " + x + "; only finite values are allowed");
      }
      squared += (double) x * x;
    }
    if (this == COSINE && squared == 0) {
      throw new InvalidRequestException(
          what + " has magnitude 0; the [cosine] similarity does not support zero vectors");
    }
    if (this == DOT_PRODUCT && Math.abs(squared - 1.0) > UNIT_TOLERANCE) {
      throw new InvalidRequestException(
          what
              + " has squared magnitude "
              + (float) squared
              + "; the [dot_product] similarity needs unit vectors (|‖v‖² − 1| ≤ "
              + UNIT_TOLERANCE
              + ")");
    }
    if (!Double.isFinite(squared)) {
      throw new InvalidRequestException(
          what + " has an infinite magnitude; its components are too large to compare");
    }
    return v;
  }
}
