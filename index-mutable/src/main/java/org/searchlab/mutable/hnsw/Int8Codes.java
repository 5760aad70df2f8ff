package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.lucene.util.VectorUtil;

/**
 * int8 scalar quantization with one scale per vector: component {@code x[i]} becomes {@code q[i] =
 * round(x[i] / s)} with {@code s = max|x| / 127}, so {@code q[i]} is in [−127, 127] and {@code
 * |x[i] − s·q[i]| ≤ s / 2}. A dot product is then {@code x·y ≈ s_x·s_y·(q_x·q_y)}, the integer part
 * computed by {@link Int8Dots} (SIMD with the vector module; Lucene's {@link
 * VectorUtil#dotProduct(byte[], byte[])} gives the same integer but takes two arrays of one length,
 * and a stored code may head a longer row of {@link RowCodes}).
 *
 * <p>Why one scale per vector, where Lucene's {@code ScalarQuantizer} takes one interval per
 * segment from confidence-interval quantiles: a segment is written once, so Lucene can calibrate it
 * on its own vectors and calibrates again at every merge. A mutable index has no such moment: a
 * range fixed from an early sample would stay fixed while refeeds move the distribution, and
 * re-quantizing everything is a rebuild. A per-vector scale needs no sample and no recalibration;
 * the code of a vector depends on that vector alone, so the write-ahead log's replay and a snapshot
 * load (which store the floats and recompute the codes) give back the same bytes whatever the order
 * or batching of the writes. The price is eight bytes per vector (the scale and the norm).
 *
 * <p>The similarities: Lucene's codes share one offset per segment, so its int8 dot product needs a
 * correction term per vector (for {@code DOT_PRODUCT} and {@code MAXIMUM_INNER_PRODUCT}), while its
 * squared distance needs none, the offset cancelling in a difference, only the squared step as a
 * factor. Codes here are symmetric (no offset), so the dot product needs no correction for vectors
 * of any length: {@link #dot} serves {@code dot_product} and {@code max_inner_product} alike. A
 * squared distance cannot be taken over the codes directly, since a query and a vector have
 * different scales; it is the squared distance between the decoded vectors, expanded as {@code
 * ‖s_v·p‖² + ‖s_x·c‖² − 2·s_v·s_x·(p·c)} ({@link #squareDistance}): the same integer dot product,
 * the stored norm, and the query's decoded squared norm computed once per query ({@link #squares}).
 * The alternative, the exact float norms with the codes' dot product, would need a third float per
 * code, and ranked no better: over 5,000 vectors (random gaussian at 64 and 384 dimensions with
 * lengths equal or spread over 16×, clustered at 64 and 384) the codes' top 10 held 98.2–99.1% of
 * the float top 10 either way, within 0.5 points of each other, and the float top 1 always. The
 * codes only need to rank, since a search rescores its hits by the floats.
 *
 * <p>Layout: a stored code is {@code dimension + 8} bytes: the components, the scale, and the
 * Euclidean norm of the vector the code stands for ({@code ‖s·q‖}, rounded up), both as
 * little-endian floats, so one immutable array holds all three and a reader never pairs a code with
 * another vector's scale. A query code has the same length with the last eight bytes zero (so that
 * an integer dot product over the whole arrays equals the one over the components); the kernels
 * read the components only, and take the dimension from the query's length, so a stored code may be
 * followed by more bytes: in a quantized store it heads its node's row of links ({@link RowCodes}),
 * and {@link #scale(byte[], int)} and {@link #norm(byte[], int)} read its tail at the dimension,
 * not at the array's end.
 *
 * <p>The norm is there for {@link #errorBound}: with it a dot product over the codes brackets the
 * float one, so an exact scan can read the codes and rescore by the floats only the vectors whose
 * bracket reaches the k-th best lower end ({@code HnswSearcher}'s exact plan).
 *
 * <p>Thread-safety: stateless; the arrays it returns are new.
 */
final class Int8Codes {
  /** The largest code magnitude: 127, so codes are symmetric and −128 never occurs. */
  static final int MAX_CODE = 127;

  /** Bytes after the components: the scale, then the norm. */
  static final int TAIL = 2 * Float.BYTES;

  private static final VarHandle FLOAT_LE =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);

  private Int8Codes() {}

  /** The stored code of {@code v}: components, then the scale, then the norm. */
  static byte[] encode(float[] v) {
    return encode(v, v.length + TAIL);
  }

  /**
   * {@link #encode(float[])} at the head of a new array of {@code length} bytes (at least {@code
   * v.length + TAIL}), the rest zero: a row of {@link RowCodes}.
   */
  static byte[] encode(float[] v, int length) {
    assert length >= v.length + TAIL : length + " bytes for dimension " + v.length;
    byte[] code = new byte[length];
    float scale = quantize(v, code);
    FLOAT_LE.set(code, v.length, scale);
    double squares = 0;
    for (int i = 0; i < v.length; i++) {
      double c = (double) scale * code[i];
      squares += c * c;
    }
    FLOAT_LE.set(code, v.length + Float.BYTES, roundUp(Math.sqrt(squares)));
    return code;
  }

  /**
   * The query code of {@code v} into {@code code} (length {@code v.length + TAIL}, tail zeroed);
   * returns the query's scale.
   */
  static float encodeQuery(float[] v, byte[] code) {
    assert code.length == v.length + TAIL : code.length + " for dimension " + v.length;
    float scale = quantize(v, code);
    FLOAT_LE.set(code, v.length, 0f);
    FLOAT_LE.set(code, v.length + Float.BYTES, 0f);
    return scale;
  }

  /**
   * How far {@code v · x} can be from {@link #dot dot(query, queryScale, code)} for any vector
   * {@code x} whose stored code is {@code code}, where {@code query} and {@code queryScale} encode
   * {@code v}: {@code s_x·l1/2 + residual·norm_x}, given {@code l1 = ‖v‖₁} and {@code residual = ‖v
   * − queryScale·p‖₂} ({@link #residual}).
   *
   * <p>Why: write {@code v = s_v·p + f} and {@code x = s_x·c + e} with {@code |e_i| ≤ s_x/2}. Then
   * {@code v·x − s_v·s_x·(p·c) = v·e + f·(s_x·c)}; the first term is at most {@code ‖v‖₁·s_x/2},
   * the second at most {@code ‖f‖₂·‖s_x·c‖₂} (Cauchy–Schwarz), and {@code ‖s_x·c‖₂} is the stored
   * norm. A relative and an absolute margin cover the float rounding of the scales, of {@code v /
   * s} and of the sums on either side (about 1e-6 for unit vectors of a few hundred components).
   */
  static float errorBound(byte[] code, float l1, float residual) {
    return errorBound(code, l1, residual, 0f);
  }

  /**
   * {@link #errorBound(byte[], float, float)} for a query of Euclidean norm {@code vNorm}: the
   * absolute margin, sized for unit vectors, grows with {@code vNorm·norm_x} when that is above 1,
   * as the rounding of a float dot product grows with the lengths of its vectors ({@code
   * max_inner_product} compares vectors of any length).
   */
  static float errorBound(byte[] code, float l1, float residual, float vNorm) {
    return errorBound(code, code.length - TAIL, l1, residual, vNorm);
  }

  /**
   * {@link #errorBound(byte[], float, float, float)} for a code of {@code dimension} components at
   * the head of a longer array (a row of {@link RowCodes}).
   */
  static float errorBound(byte[] code, int dimension, float l1, float residual, float vNorm) {
    float s = scale(code, dimension);
    float norm = norm(code, dimension);
    return (s * 0.5f * l1 + residual * norm) * 1.001f + 1e-5f * Math.max(1f, vNorm * norm);
  }

  /**
   * Bounds on {@code ‖v − x‖²} for any vector {@code x} whose stored code is {@code code}, where
   * {@code query} and {@code queryScale} encode {@code v}: {@code out[0]} the lower, {@code out[1]}
   * the upper, given {@code vSquares = ‖v‖²} and {@code residual = ‖v − queryScale·p‖₂} ({@link
   * #residual}).
   *
   * <p>Why: write {@code x = x' + e} with {@code x' = s_x·c} the decoded code ({@code ‖x'‖ ≤
   * norm_x}) and {@code |e_i| ≤ s_x/2}, so {@code ‖e‖ ≤ s_x·√d/2}; and {@code v = v' + f} with
   * {@code ‖f‖ = residual}. Then {@code ‖v − x'‖² = ‖v‖² + ‖x'‖² − 2(v'·x' + f·x')}, where {@code
   * v'·x'} is the codes' dot product ({@link #dot}) and {@code |f·x'| ≤ residual·norm_x}
   * (Cauchy–Schwarz); and {@code ‖v − x‖} is within {@code ‖e‖} of {@code ‖v − x'‖} (the triangle
   * inequality). The sums are in double; margins cover the rounding of the stored norm (rounded up,
   * so {@code ‖x'‖²} is at least {@code norm_x²·(1 − 1e-6)}), of the components' codes (a step's
   * half is taken as {@code 0.5005·s_x}) and, relatively ({@code 1e-3}), of a float kernel's sum of
   * {@code d} positive squares.
   */
  static void squareDistanceBracket(
      byte[] query, float queryScale, double vSquares, float residual, byte[] code, float[] out) {
    assert tailIsZero(query) : "a query code must end in eight zero bytes";
    int dimension = query.length - TAIL;
    double s = scale(code, dimension);
    double norm = norm(code, dimension);
    double dot = (double) Int8Dots.dot(query, code, dimension) * queryScale * s;
    double cross = 2 * residual * norm;
    double centre = vSquares - 2 * dot;
    double high = centre + norm * norm + cross;
    double low = centre + norm * norm * (1 - 1e-6) - cross;
    double e = 0.5005 * s * Math.sqrt(dimension);
    double lo = Math.max(0, Math.sqrt(Math.max(0, low)) - e);
    double hi = Math.sqrt(Math.max(0, high)) + e;
    out[0] = (float) (lo * lo * (1 - 1e-3));
    out[1] = (float) (hi * hi * (1 + 1e-3));
  }

  /**
   * {@code ‖s·p‖²}, the squared norm of the vector the query code {@code query} (scale {@code
   * scale}) stands for: the query's term of {@link #squareDistance}, computed once per query.
   */
  static float squares(byte[] query, float scale) {
    assert tailIsZero(query) : "a query code must end in eight zero bytes";
    return VectorUtil.dotProduct(query, query) * scale * scale;
  }

  /** {@code ‖v − scale·p‖₂} for the query code {@code p} of {@code v}, rounded up. */
  static float residual(float[] v, byte[] p, float scale) {
    double squares = 0;
    for (int i = 0; i < v.length; i++) {
      double f = v[i] - (double) scale * p[i];
      squares += f * f;
    }
    return roundUp(Math.sqrt(squares));
  }

  /** {@code ‖v‖₁}, rounded up. */
  static float l1(float[] v) {
    double sum = 0;
    for (float x : v) {
      sum += Math.abs(x);
    }
    return roundUp(sum);
  }

  private static float roundUp(double x) {
    float f = (float) x;
    return f < x ? Math.nextUp(f) : f;
  }

  /** Writes the components' codes; returns the scale ({@code 0} for the zero vector). */
  private static float quantize(float[] v, byte[] code) {
    float max = Int8Dots.maxAbs(v);
    if (max == 0) {
      return 0f; // every code stays 0; any scale reconstructs the zero vector
    }
    float scale = max / MAX_CODE;
    float inverse = MAX_CODE / max;
    Int8Dots.round(v, inverse, code);
    return scale;
  }

  /** The scale stored at the end of a stored code. */
  static float scale(byte[] code) {
    return scale(code, code.length - TAIL);
  }

  /** The scale of a code of {@code dimension} components, which may head a longer row. */
  static float scale(byte[] code, int dimension) {
    return (float) FLOAT_LE.get(code, dimension);
  }

  /** The norm stored at the end of a stored code: {@code ‖s·q‖₂}, rounded up. */
  static float norm(byte[] code) {
    return norm(code, code.length - TAIL);
  }

  /** The norm of a code of {@code dimension} components, which may head a longer row. */
  static float norm(byte[] code, int dimension) {
    return (float) FLOAT_LE.get(code, dimension + Float.BYTES);
  }

  /** The components a code stands for: {@code scale · q[i]}. */
  static float[] decode(byte[] code) {
    float s = scale(code);
    float[] v = new float[code.length - TAIL];
    for (int i = 0; i < v.length; i++) {
      v[i] = s * code[i];
    }
    return v;
  }

  /**
   * The approximate dot product of a query code (scale {@code queryScale}) and a stored code, which
   * may head a longer row ({@link RowCodes}): the query's length gives the dimension.
   */
  static float dot(byte[] query, float queryScale, byte[] stored) {
    assert tailIsZero(query) : "a query code must end in eight zero bytes";
    int dimension = query.length - TAIL;
    return Int8Dots.dot(query, stored, dimension) * queryScale * scale(stored, dimension);
  }

  /**
   * {@link #dot} of {@code codes[i]} into {@code scores[i]} for {@code i < count}, the integer
   * parts one code at a time ({@link Int8Dots#dots}) into {@code ints} (at least {@code count}
   * long); the same bits as {@link #dot} one by one.
   */
  static void dots(
      byte[] query, float queryScale, byte[][] codes, int[] ints, float[] scores, int count) {
    assert tailIsZero(query) : "a query code must end in eight zero bytes";
    int dimension = query.length - TAIL;
    Int8Dots.dots(query, codes, dimension, ints, count);
    for (int i = 0; i < count; i++) {
      scores[i] = ints[i] * queryScale * scale(codes[i], dimension);
    }
  }

  /**
   * {@link #squareDistance} of {@code codes[i]}, negated, into {@code scores[i]} for {@code i <
   * count}: the raw {@code l2_norm} scores, the integer parts one code at a time, as {@link #dots}.
   */
  static void negatedSquareDistances(
      byte[] query,
      float queryScale,
      float querySquares,
      byte[][] codes,
      int[] ints,
      float[] scores,
      int count) {
    assert tailIsZero(query) : "a query code must end in eight zero bytes";
    int dimension = query.length - TAIL;
    Int8Dots.dots(query, codes, dimension, ints, count);
    for (int i = 0; i < count; i++) {
      float norm = norm(codes[i], dimension);
      float dot = ints[i] * queryScale * scale(codes[i], dimension);
      scores[i] = -(querySquares + norm * norm - 2 * dot);
    }
  }

  /**
   * The approximate squared distance of a query code (scale {@code queryScale}, decoded squared
   * norm {@code querySquares} from {@link #squares}) and a stored code: the squared distance of the
   * vectors they decode to, {@code querySquares + norm² − 2·}{@link #dot}. It may come out slightly
   * negative for two nearly equal vectors (float rounding); it only ranks.
   */
  static float squareDistance(byte[] query, float queryScale, float querySquares, byte[] stored) {
    float norm = norm(stored, query.length - TAIL);
    return querySquares + norm * norm - 2 * dot(query, queryScale, stored);
  }

  private static boolean tailIsZero(byte[] query) {
    for (int i = query.length - TAIL; i < query.length; i++) {
      if (query[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
