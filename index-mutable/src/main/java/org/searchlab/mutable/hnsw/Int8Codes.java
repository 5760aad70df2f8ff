package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import org.apache.lucene.util.VectorUtil;

/**
 * int8 scalar quantization with one scale per vector: component {@code x[i]} becomes {@code q[i] =
 * round(x[i] / s)} with {@code s = max|x| / 127}, so {@code q[i]} is in [−127, 127] and {@code
 * |x[i] − s·q[i]| ≤ s / 2}. A dot product is then {@code x·y ≈ s_x·s_y·(q_x·q_y)}, the integer part
 * computed by Lucene's {@link VectorUtil#dotProduct(byte[], byte[])} (SIMD with the vector module).
 *
 * <p>Why one scale per vector, where Lucene's {@code ScalarQuantizer} takes one interval per
 * segment from confidence-interval quantiles: a segment is written once, so Lucene can calibrate it
 * on its own vectors and calibrates again at every merge. A mutable index has no such moment: a
 * range fixed from an early sample would stay fixed while refeeds move the distribution, and
 * re-quantizing everything is a rebuild. A per-vector scale needs no sample and no recalibration;
 * the code of a vector depends on that vector alone, so the write-ahead log's replay and a snapshot
 * load (which store the floats and recompute the codes) give back the same bytes whatever the order
 * or batching of the writes. The price is four bytes per vector. Symmetric codes (no offset) need
 * no correction terms for the dot product, which is the only similarity of the schema.
 *
 * <p>Layout: a stored code is {@code dimension + 4} bytes, the components then the scale as a
 * little-endian float, so one immutable array holds both and a reader never pairs a code with
 * another vector's scale. A query code has the same length with the last four bytes zero, so that
 * the integer dot product over the whole arrays equals the one over the components; {@link
 * #dot(byte[], float, byte[])} relies on that and asserts it.
 *
 * <p>Thread-safety: stateless; the arrays it returns are new.
 */
final class Int8Codes {
  /** The largest code magnitude: 127, so codes are symmetric and −128 never occurs. */
  static final int MAX_CODE = 127;

  private static final VarHandle FLOAT_LE =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);

  private Int8Codes() {}

  /** The stored code of {@code v}: components, then the scale. */
  static byte[] encode(float[] v) {
    byte[] code = new byte[v.length + Float.BYTES];
    float scale = quantize(v, code);
    FLOAT_LE.set(code, v.length, scale);
    return code;
  }

  /**
   * The query code of {@code v} into {@code code} (length {@code v.length + 4}, tail zeroed);
   * returns the query's scale.
   */
  static float encodeQuery(float[] v, byte[] code) {
    assert code.length == v.length + Float.BYTES : code.length + " for dimension " + v.length;
    float scale = quantize(v, code);
    FLOAT_LE.set(code, v.length, 0f);
    return scale;
  }

  /** Writes the components' codes; returns the scale ({@code 0} for the zero vector). */
  private static float quantize(float[] v, byte[] code) {
    float max = 0;
    for (float x : v) {
      max = Math.max(max, Math.abs(x));
    }
    if (max == 0) {
      return 0f; // every code stays 0; any scale reconstructs the zero vector
    }
    float scale = max / MAX_CODE;
    float inverse = MAX_CODE / max;
    for (int i = 0; i < v.length; i++) {
      int q = Math.round(v[i] * inverse);
      code[i] = (byte) Math.max(-MAX_CODE, Math.min(MAX_CODE, q));
    }
    return scale;
  }

  /** The scale stored at the end of a stored code. */
  static float scale(byte[] code) {
    return (float) FLOAT_LE.get(code, code.length - Float.BYTES);
  }

  /** The components a code stands for: {@code scale · q[i]}. */
  static float[] decode(byte[] code) {
    float s = scale(code);
    float[] v = new float[code.length - Float.BYTES];
    for (int i = 0; i < v.length; i++) {
      v[i] = s * code[i];
    }
    return v;
  }

  /** The approximate dot product of a query code (scale {@code queryScale}) and a stored code. */
  static float dot(byte[] query, float queryScale, byte[] stored) {
    assert tailIsZero(query) : "a query code must end in four zero bytes";
    return VectorUtil.dotProduct(query, stored) * queryScale * scale(stored);
  }

  private static boolean tailIsZero(byte[] query) {
    for (int i = query.length - Float.BYTES; i < query.length; i++) {
      if (query[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
