package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * One bit per component, searched with a 4-bit query: RaBitQ's estimator (Gao &amp; Long, SIGMOD
 * 2024) without a centroid, the mutable store's {@code bbq_hnsw}.
 *
 * <p>A vector {@code o} is rotated ({@link Rotation}: {@code y = P·o}) and kept as the signs of
 * {@code y}: bit {@code b_i = 1} where {@code y_i > 0}. The bits stand for the unit vector {@code
 * x_b} with components {@code (2·b_i − 1)/√D}. A query {@code q} is rotated too ({@code z = P·q})
 * and rounded to 4 bits over its own range: {@code z̄_i = lo + Δ·u_i}, {@code u_i} in [0, 15]. Then
 *
 * <pre>
 *   ⟨o, q⟩ ≈ ‖o‖ · ⟨x_b, z̄⟩ / ⟨x_b, o/‖o‖⟩ = f · (2Δ·⟨b, u⟩ + (2|b| − D)·lo − Δ·Σu)
 * </pre>
 *
 * with {@code f = ‖o‖·‖y‖₂ / ‖y‖₁} stored per vector, {@code |b|} its count of ones, and {@code ⟨b,
 * u⟩ = Σ_j 2^j · popcount(b ∧ u_j)} over the query's four bit planes {@code u_j}: four AND and
 * popcount passes over {@code D/64} longs ({@link #dot}), instead of {@code D} multiplications of
 * floats. Divided by {@code ⟨x_b, o/‖o‖⟩} the estimate is unbiased over the rotation's randomness,
 * and RaBitQ's Theorem 3.2 bounds its error: with probability at least {@code 1 − 2·exp(−c₀·ε₀²)},
 * {@code |estimate − ⟨o, q⟩| ≤ ‖o‖·‖q‖ · √(1 − a²)/a · ε₀/√(D − 1)} where {@code a = ⟨x_b, o/‖o‖⟩}
 * (about 0.8 in high dimensions). The error is close to normal with that scale over {@code ε₀} as
 * its standard deviation, so {@code ε₀} counts standard deviations: at the paper's 1.9, 2.7% of
 * 5,000 estimates of 384-d gaussian pairs fell outside (BinaryCodesTest), at 3 none should beyond
 * chance. {@link #bound} adds the query's rounding, whose standard deviation is {@code Δ/√12} on
 * {@code ⟨x_b, z̄ − z⟩}. The estimate only ranks candidates; a search reorders them by their
 * floats.
 *
 * <p>Why no centroid, where RaBitQ and Lucene's binary quantization subtract one: the bound scales
 * with {@code ‖o − c‖·‖q − c‖}, and a segment can take {@code c} from its vectors when it is
 * written. A mutable index has no such moment (see {@link Int8Codes} for the same argument about
 * int8 ranges), and for sentence embeddings, whose pairwise cosines average about 0.1–0.2, the mean
 * vector is short: {@code ‖o − c‖} is about 0.9 of {@code ‖o‖}, so centring would narrow the bound
 * by about a fifth. Without it a code depends on its vector alone, and replay or a snapshot load
 * rebuilds the same bytes.
 *
 * <p>Layout of a stored code, {@link #codeLength} bytes: the bits as {@code W = ⌈D/64⌉}
 * little-endian longs (bit {@code i} of the vector is bit {@code i mod 64} of long {@code i/64};
 * the bits past {@code D} are 0), then four little-endian values: {@code f}, the error factor
 * {@code g = ‖o‖·√(1 − a²)/a} (floats), {@code ‖o‖²} (float, for {@code l2_norm}) and {@code |b|}
 * (int). At {@code D = 384} that is 48 + 16 = 64 bytes, 4.2% of the 1,536 bytes of the floats. A
 * code may head a longer array (a row with links, as {@link RowCodes} keeps int8 codes); the
 * readers take the dimension from the query.
 *
 * <p>Thread-safety: the static methods are stateless; a {@link Query} belongs to one thread.
 */
public final class BinaryCodes {
  /** Bits of the query's components. */
  public static final int QUERY_BITS = 4;

  /** Bytes after the bits: {@code f}, {@code g}, {@code ‖o‖²} and {@code |b|}. */
  static final int TAIL = 3 * Float.BYTES + Integer.BYTES;

  /** The lanes {@link #roundToPlanes} rounds at once: the float kernels' ({@link PanamaDots}). */
  private static final VectorSpecies<Float> ROUND_FLOATS = PanamaDots.SPECIES;

  private static final VectorSpecies<Integer> ROUND_INTS =
      VectorSpecies.of(int.class, ROUND_FLOATS.vectorShape());

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle FLOAT_LE =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private BinaryCodes() {}

  /** Longs of bits per code: {@code ⌈dimension / 64⌉}. */
  public static int words(int dimension) {
    return (dimension + 63) >>> 6;
  }

  /** Bytes of a stored code: the bits, then {@link #TAIL}. */
  static int codeLength(int dimension) {
    return Long.BYTES * words(dimension) + TAIL;
  }

  /** The stored code of {@code v}, rotated by {@code rotation}, in a new array of its length. */
  public static byte[] encode(Rotation rotation, float[] v) {
    return encode(rotation, v, new float[v.length], codeLength(v.length));
  }

  /**
   * {@link #encode(Rotation, float[])} at the head of a new array of {@code length} bytes (at least
   * {@link #codeLength}), the rest zero; {@code scratch} (at least {@code v.length}) receives the
   * rotated vector.
   */
  static byte[] encode(Rotation rotation, float[] v, float[] scratch, int length) {
    int dimension = v.length;
    assert rotation.dimension() == dimension : rotation.dimension() + " for " + dimension;
    assert length >= codeLength(dimension) : length + " bytes for dimension " + dimension;
    rotation.apply(v, scratch);
    byte[] code = new byte[length];
    int words = words(dimension);
    double l1 = 0;
    double squares = 0;
    int ones = 0;
    for (int w = 0; w < words; w++) {
      long bits = 0;
      for (int i = w << 6; i < Math.min(dimension, (w + 1) << 6); i++) {
        float y = scratch[i];
        l1 += Math.abs(y);
        squares += (double) y * y;
        if (y > 0) {
          bits |= 1L << (i & 63);
        }
      }
      ones += Long.bitCount(bits);
      LONG_LE.set(code, Long.BYTES * w, bits);
    }
    double rawSquares = 0;
    for (float x : v) {
      rawSquares += (double) x * x;
    }
    double norm = Math.sqrt(rawSquares);
    double f = 0;
    double g = 0;
    if (l1 > 0) {
      double rotatedNorm = Math.sqrt(squares);
      f = norm * rotatedNorm / l1;
      double a = Math.min(1, l1 / (Math.sqrt(dimension) * rotatedNorm));
      g = norm * Math.sqrt(Math.max(0, 1 - a * a)) / a;
    }
    int at = Long.BYTES * words;
    FLOAT_LE.set(code, at, (float) f);
    FLOAT_LE.set(code, at + Float.BYTES, (float) g);
    FLOAT_LE.set(code, at + 2 * Float.BYTES, (float) rawSquares);
    INT_LE.set(code, at + 3 * Float.BYTES, ones);
    return code;
  }

  /**
   * Word {@code w} of a code's bits (bit {@code i} of the vector is bit {@code i mod 64} of word
   * {@code i/64}).
   */
  public static long word(byte[] code, int w) {
    return (long) LONG_LE.get(code, Long.BYTES * w);
  }

  /** The bit of component {@code i} of a code: whether its rotated component is positive. */
  static boolean bit(byte[] code, int i) {
    long word = (long) LONG_LE.get(code, Long.BYTES * (i >>> 6));
    return (word >>> (i & 63) & 1) != 0;
  }

  /** {@code f = ‖o‖·‖y‖₂/‖y‖₁} of a code of {@code dimension} components. */
  public static float factor(byte[] code, int dimension) {
    return (float) FLOAT_LE.get(code, Long.BYTES * words(dimension));
  }

  /** The error factor {@code g = ‖o‖·√(1 − a²)/a} of a code of {@code dimension} components. */
  public static float errorFactor(byte[] code, int dimension) {
    return (float) FLOAT_LE.get(code, Long.BYTES * words(dimension) + Float.BYTES);
  }

  /** {@code ‖o‖²} of the vector a code of {@code dimension} components stands for. */
  static float squares(byte[] code, int dimension) {
    return (float) FLOAT_LE.get(code, Long.BYTES * words(dimension) + 2 * Float.BYTES);
  }

  /** {@code |b|}, the code's count of ones. */
  public static int ones(byte[] code, int dimension) {
    return (int) INT_LE.get(code, Long.BYTES * words(dimension) + 3 * Float.BYTES);
  }

  /**
   * {@code ⟨b, u⟩ = Σ_i b_i·u_i} for a code's bits {@code b} and the query's 4-bit components
   * {@code u}, from the query's bit planes ({@code planes[j·words + w]}, bit {@code j} of the
   * components of word {@code w}): {@code Σ_j 2^j · Σ_w popcount(b_w ∧ plane_{j,w})}. Exact.
   */
  static int dot(long[] planes, int words, byte[] code) {
    int p0 = 0;
    int p1 = 0;
    int p2 = 0;
    int p3 = 0;
    for (int w = 0; w < words; w++) {
      long b = (long) LONG_LE.get(code, Long.BYTES * w);
      p0 += Long.bitCount(b & planes[w]);
      p1 += Long.bitCount(b & planes[words + w]);
      p2 += Long.bitCount(b & planes[2 * words + w]);
      p3 += Long.bitCount(b & planes[3 * words + w]);
    }
    return p0 + (p1 << 1) + (p2 << 2) + (p3 << 3);
  }

  /**
   * Rounds {@code x[i]} (the first {@code dimension}) to 4 bits over {@code [min, min +
   * 15/inverse]}, {@code u_i = round((x_i − min)·inverse)} clamped to [0, 15], and writes the four
   * bit planes: bit {@code j} of the components of word {@code w} to {@code out[w·wordStep +
   * j·planeStep]} (a query's planes one after another: 1 and the word count; a 4-bit code's
   * interleaved: 4 and 1). One word of each plane at a time, on the Vector API: a vector's lanes
   * rounded at once and each plane's bits taken from a lane mask ({@link VectorMask#toLong}), the
   * components past the last whole vector one at a time as without {@code vectors}, to the same
   * bits. Returns {@code Σu}.
   */
  static int roundToPlanes(
      float[] x, int dimension, float min, float inverse, long[] out, int wordStep, int planeStep) {
    return roundToPlanes(x, dimension, min, inverse, out, wordStep, planeStep, true);
  }

  /**
   * {@link #roundToPlanes}, or without {@code vectors} one component at a time: the reference the
   * vector loop must equal to the bit (BinaryCodesTest).
   */
  static int roundToPlanes(
      float[] x,
      int dimension,
      float min,
      float inverse,
      long[] out,
      int wordStep,
      int planeStep,
      boolean vectors) {
    int top = (1 << QUERY_BITS) - 1;
    int lanes = vectors ? ROUND_FLOATS.length() : Integer.MAX_VALUE;
    int total = 0;
    for (int w = 0; w < words(dimension); w++) {
      long p0 = 0;
      long p1 = 0;
      long p2 = 0;
      long p3 = 0;
      int end = Math.min(dimension, (w + 1) << 6);
      int i = w << 6;
      for (; i <= end - lanes; i += lanes) {
        // The scalar loop below, lanes at a time: the same subtraction and product, then
        // Math.round of a non-negative t as floor(t) + (t − floor(t) ≥ ½), clamped as below.
        FloatVector t = FloatVector.fromArray(ROUND_FLOATS, x, i).sub(min).mul(inverse);
        IntVector floor = (IntVector) t.convert(VectorOperators.F2I, 0);
        VectorMask<Integer> up =
            t.sub((FloatVector) floor.convert(VectorOperators.I2F, 0))
                .compare(VectorOperators.GE, 0.5f)
                .cast(ROUND_INTS);
        IntVector u = floor.add(1, up).max(0).min(top);
        total += u.reduceLanes(VectorOperators.ADD);
        int shift = i & 63;
        p0 |= u.and(1).compare(VectorOperators.NE, 0).toLong() << shift;
        p1 |= u.and(2).compare(VectorOperators.NE, 0).toLong() << shift;
        p2 |= u.and(4).compare(VectorOperators.NE, 0).toLong() << shift;
        p3 |= u.and(8).compare(VectorOperators.NE, 0).toLong() << shift;
      }
      for (; i < end; i++) {
        int u = Math.max(0, Math.min(top, Math.round((x[i] - min) * inverse)));
        total += u;
        long bit = 1L << (i & 63);
        p0 |= -(long) (u & 1) & bit;
        p1 |= -(long) (u >>> 1 & 1) & bit;
        p2 |= -(long) (u >>> 2 & 1) & bit;
        p3 |= -(long) (u >>> 3 & 1) & bit;
      }
      int at = w * wordStep;
      out[at] = p0;
      out[at + planeStep] = p1;
      out[at + 2 * planeStep] = p2;
      out[at + 3 * planeStep] = p3;
    }
    return total;
  }

  /**
   * A query rotated and rounded to 4 bits, with what the estimates need: the bit planes, {@code
   * lo}, {@code Δ}, {@code Σu}, {@code ‖q‖} and {@code ‖q‖²}. One per searcher thread; {@link
   * #bind} rewrites it.
   */
  public static final class Query implements CodeQuery {
    private final Rotation rotation;
    private final int dimension;
    private final int words;
    private final float[] rotated;
    final long[] planes;
    private float lo;
    private float delta;
    private int sum;
    private float norm;
    private float squares;
    // The bound's scales of a code's error factor and of its factor: ‖q‖/√(D − 1) and √D·Δ/√12.
    private double codeScale;
    private double queryScale;

    /** A query of {@code rotation}'s dimension, bound to nothing yet. */
    public Query(Rotation rotation) {
      this.rotation = rotation;
      this.dimension = rotation.dimension();
      this.words = BinaryCodes.words(dimension);
      this.rotated = new float[dimension];
      this.planes = new long[QUERY_BITS * words];
    }

    /** Makes this the code of {@code q}. */
    @Override
    public void bind(float[] q) {
      assert q.length == dimension : q.length + " for dimension " + dimension;
      rotation.apply(q, rotated);
      float min = Float.POSITIVE_INFINITY;
      float max = Float.NEGATIVE_INFINITY;
      double s = 0;
      for (int i = 0; i < dimension; i++) {
        float z = rotated[i];
        min = Math.min(min, z);
        max = Math.max(max, z);
      }
      for (float x : q) {
        s += (double) x * x;
      }
      lo = min;
      int top = (1 << QUERY_BITS) - 1;
      delta = max > min ? (max - min) / top : 0f;
      float inverse = delta > 0 ? 1 / delta : 0f;
      sum = roundToPlanes(rotated, dimension, min, inverse, planes, 1, words);
      squares = (float) s;
      norm = (float) Math.sqrt(s);
      codeScale = norm / Math.sqrt(Math.max(1, dimension - 1));
      queryScale = Math.sqrt(dimension) * delta / Math.sqrt(12);
    }

    /**
     * Plane {@code j}'s word {@code w}: bit {@code j} of the 4-bit components of word {@code w}.
     */
    public long plane(int j, int w) {
      return planes[j * words + w];
    }

    /** The query's 4-bit component {@code i}, in [0, 15]. */
    int component(int i) {
      int u = 0;
      for (int j = 0; j < QUERY_BITS; j++) {
        u |= (int) (planes[j * words + (i >>> 6)] >>> (i & 63) & 1) << j;
      }
      return u;
    }

    /** The estimated dot product of the bound query and the vector {@code code} stands for. */
    @Override
    public float dot(byte[] code) {
      return estimate(
          BinaryCodes.dot(planes, words, code),
          factor(code, dimension),
          2 * ones(code, dimension) - dimension);
    }

    /**
     * {@link #dot} from its parts: {@code bu = ⟨b, u⟩} ({@link BinaryCodes#dot}), the code's factor
     * {@code f} and {@code t = 2|b| − D}, for callers that keep codes in another layout.
     */
    public float estimate(int bu, float f, float t) {
      return f * (2 * delta * bu + t * lo - delta * sum);
    }

    /** The estimated squared distance: {@code ‖q‖² + ‖o‖² − 2·}{@link #dot}. */
    @Override
    public float squareDistance(byte[] code) {
      return squares + BinaryCodes.squares(code, dimension) - 2 * dot(code);
    }

    /**
     * How far {@link #dot} may be from the float dot product for the vector {@code code} stands
     * for, at confidence {@code epsilon} (RaBitQ's {@code ε₀}, in standard deviations; 1.9 is its
     * paper's choice, with about 97% of estimates inside on 384-d vectors): {@code ε₀·(g·‖q‖/√(D −
     * 1) + f·√D·Δ/√12)}, the code's error and the query's rounding. Not a guarantee: a search that
     * reranks by it may miss a hit whose estimate fell further, as rarely as the confidence says.
     */
    @Override
    public float bound(byte[] code, float epsilon) {
      return bound(factor(code, dimension), errorFactor(code, dimension), epsilon);
    }

    /**
     * {@link #bound(byte[], float)} from a code's factor {@code f} and error factor {@code g}; the
     * query's two scales are computed once by {@link #bind}.
     */
    public float bound(float f, float g, float epsilon) {
      return (float) (epsilon * (g * codeScale + f * queryScale));
    }

    /**
     * The bound of {@link #squareDistance}: twice {@link #bound}, since the squared distance is
     * {@code ‖q‖² + ‖o‖² − 2·⟨o, q⟩}.
     */
    @Override
    public float squareDistanceBound(byte[] code, float epsilon) {
      return 2 * bound(code, epsilon);
    }

    @Override
    public int codeLength() {
      return BinaryCodes.codeLength(dimension);
    }

    public float lo() {
      return lo;
    }

    public float delta() {
      return delta;
    }

    public int sum() {
      return sum;
    }

    public float norm() {
      return norm;
    }

    public float squares() {
      return squares;
    }

    public int words() {
      return words;
    }
  }
}
