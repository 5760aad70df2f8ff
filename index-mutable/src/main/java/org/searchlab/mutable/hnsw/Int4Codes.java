package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Four bits per component, searched with a 4-bit query: the mutable store's {@code int4_hnsw}.
 *
 * <p>A vector {@code o} is rotated ({@link Rotation}: {@code y = P·o}, the same rotation as {@link
 * BinaryCodes}) and each rotated component rounded to 4 bits over the vector's own range, {@code
 * y_i ≈ lo + Δ·c_i} with {@code c_i} in [0, 15] ({@code lo} the smallest component, {@code Δ} a
 * fifteenth of the range): Intel's locally-adaptive vector quantization (LVQ, one range per
 * vector), after RaBitQ's rotation, which spreads a vector's energy over all components so that one
 * range fits them all. The query is rotated and rounded the same way ({@link BinaryCodes.Query}
 * does it, {@code z_i ≈ lo_q + Δ_q·u_i}), and then
 *
 * <pre>
 *   ⟨o, q⟩ = ⟨y, z⟩ ≈ D·lo·lo_q + lo·Δ_q·Σu + Δ·lo_q·Σc + Δ·Δ_q·⟨c, u⟩
 * </pre>
 *
 * where {@code ⟨c, u⟩ = Σ_a Σ_b 2^(a+b)·popcount(c_a ∧ u_b)} over the code's and the query's four
 * bit planes: sixteen AND and popcount passes over {@code D/64} longs, which {@link Query#dot} runs
 * as four passes over the code's lanes in vectors of longs ({@code VPOPCNTQ}): {@code D/2} bytes
 * read per vector, an eighth of its floats.
 *
 * <p>The error: each rounding is off by at most half a step, and after the rotation the offsets
 * behave as independent and uniform, so the estimate's error is close to normal with standard
 * deviation {@code √(‖o‖²·Δ_q² + ‖q‖²·Δ²) / √12} ({@link Query#bound}; Int4CodesTest measures its
 * coverage). At 384 dimensions that is about a fifth of a 1-bit code's ({@link BinaryCodes}), so a
 * beam over 4-bit codes ranks its candidates almost as the floats do.
 *
 * <p>Layout of a stored code, {@link #codeLength} bytes: the four bit planes word by word, {@code
 * plane a} of word {@code w} as the little-endian long {@code 4w + a} (bit {@code i mod 64} of word
 * {@code i/64} is bit {@code a} of {@code c_i}; the bits past {@code D} are 0), over an even number
 * of words so that a vector of eight longs holds two words' planes; then {@code lo}, {@code Δ}
 * (floats), {@code Σc} (int) and {@code ‖o‖²} (float). At {@code D = 384}: 192 + 16 = 208 bytes,
 * 13.5% of the floats' 1,536. Like a 1-bit code, a code depends on its vector alone (no centroid,
 * no range shared between vectors; {@link BinaryCodes} says why), so replay and snapshot loads
 * rebuild the same bytes.
 *
 * <p>Thread-safety: the static methods are stateless; a {@link Query} belongs to one thread.
 */
public final class Int4Codes {
  /** Bits per component, of the codes and of the query. */
  static final int BITS = 4;

  /** Bytes after the planes: {@code lo}, {@code Δ}, {@code Σc} and {@code ‖o‖²}. */
  static final int TAIL = 4 * Float.BYTES;

  private static final int TOP = (1 << BITS) - 1;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle FLOAT_LE =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private static final VectorSpecies<Long> LONGS = LongVector.SPECIES_PREFERRED;
  private static final VectorSpecies<Byte> BYTES =
      VectorSpecies.of(byte.class, LONGS.vectorShape());
  private static final int LANES = LONGS.length();

  /**
   * Whether {@link Query#dot} runs on vectors: their lanes must hold whole words' four planes (four
   * or eight longs); on narrower vectors it counts long by long.
   */
  static final boolean VECTORS = LANES >= BITS;

  // Lane i of a vector holds plane i mod 4: its popcounts weigh 2^(i mod 4).
  private static final LongVector PLANE_SHIFTS =
      LongVector.fromArray(LONGS, new long[] {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}, 0);

  private Int4Codes() {}

  /** Words of bits per plane: {@code ⌈dimension / 64⌉}, rounded up to an even number. */
  static int words(int dimension) {
    int words = BinaryCodes.words(dimension);
    return words + (words & 1);
  }

  /** Longs of the four planes: {@code 4 × }{@link #words}. */
  static int planeLongs(int dimension) {
    return BITS * words(dimension);
  }

  /** Bytes of a stored code: the planes, then {@link #TAIL}. */
  static int codeLength(int dimension) {
    return Long.BYTES * planeLongs(dimension) + TAIL;
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
    float min = Float.POSITIVE_INFINITY;
    float max = Float.NEGATIVE_INFINITY;
    for (int i = 0; i < dimension; i++) {
      min = Math.min(min, scratch[i]);
      max = Math.max(max, scratch[i]);
    }
    float delta = max > min ? (max - min) / TOP : 0f;
    float inverse = delta > 0 ? 1 / delta : 0f;
    byte[] code = new byte[length];
    long[] planes = new long[planeLongs(dimension)];
    int sum = BinaryCodes.roundToPlanes(scratch, dimension, min, inverse, planes, BITS, 1);
    for (int k = 0; k < planes.length; k++) {
      LONG_LE.set(code, k * Long.BYTES, planes[k]);
    }
    double squares = 0;
    for (float x : v) {
      squares += (double) x * x;
    }
    int at = Long.BYTES * planeLongs(dimension);
    FLOAT_LE.set(code, at, min == Float.POSITIVE_INFINITY ? 0f : min);
    FLOAT_LE.set(code, at + Float.BYTES, delta);
    INT_LE.set(code, at + 2 * Float.BYTES, sum);
    FLOAT_LE.set(code, at + 3 * Float.BYTES, (float) squares);
    return code;
  }

  /** Component {@code i} of a code, in [0, 15]. */
  static int component(byte[] code, int i) {
    int at = Long.BYTES * BITS * (i >>> 6);
    int c = 0;
    for (int a = 0; a < BITS; a++) {
      long plane = (long) LONG_LE.get(code, at + Long.BYTES * a);
      c |= (int) (plane >>> (i & 63) & 1) << a;
    }
    return c;
  }

  /** {@code lo}, the smallest rotated component, of a code of {@code dimension} components. */
  static float lo(byte[] code, int dimension) {
    return (float) FLOAT_LE.get(code, Long.BYTES * planeLongs(dimension));
  }

  /** {@code Δ}, the code's step. */
  static float delta(byte[] code, int dimension) {
    return (float) FLOAT_LE.get(code, Long.BYTES * planeLongs(dimension) + Float.BYTES);
  }

  /** {@code Σc}, the sum of the code's components. */
  static int sum(byte[] code, int dimension) {
    return (int) INT_LE.get(code, Long.BYTES * planeLongs(dimension) + 2 * Float.BYTES);
  }

  /** {@code ‖o‖²} of the vector a code stands for. */
  static float squares(byte[] code, int dimension) {
    return (float) FLOAT_LE.get(code, Long.BYTES * planeLongs(dimension) + 3 * Float.BYTES);
  }

  /**
   * {@code ⟨c, u⟩} long by long: {@code Σ_w Σ_a Σ_b 2^(a+b)·popcount(c_{a,w} ∧ u_{b,w})} for the
   * query's planes in {@link BinaryCodes.Query}'s layout ({@code planes[b·words + w]}). Exact; the
   * reference of the vector kernel, and its stand-in on narrow vectors.
   */
  static int dotScalar(long[] planes, int words, byte[] code) {
    int total = 0;
    for (int w = 0; w < words; w++) {
      int at = Long.BYTES * BITS * w;
      for (int a = 0; a < BITS; a++) {
        long c = (long) LONG_LE.get(code, at + Long.BYTES * a);
        for (int b = 0; b < BITS; b++) {
          total += Long.bitCount(c & planes[b * words + w]) << (a + b);
        }
      }
    }
    return total;
  }

  /**
   * {@code ⟨c, u⟩} on vectors: {@code expanded} holds, for each query plane {@code b}, a copy of
   * the code's plane layout with every lane set to the query's word ({@code expanded[b·P + 4w + a]
   * = u_{b,w}}, {@code P} = {@link #planeLongs}), so that one AND and popcount per vector of the
   * code serves all four of the code's planes; the lanes' counts are weighed by {@code 2^b} and
   * {@code 2^a} at the end. Exact, equal to {@link #dotScalar}.
   */
  static int dotVector(long[] expanded, int planeLongs, byte[] code) {
    LongVector a0 = LongVector.zero(LONGS);
    LongVector a1 = a0;
    LongVector a2 = a0;
    LongVector a3 = a0;
    for (int k = 0; k < planeLongs; k += LANES) {
      LongVector c = ByteVector.fromArray(BYTES, code, k << 3).reinterpretAsLongs();
      a0 =
          a0.add(
              c.and(LongVector.fromArray(LONGS, expanded, k)).lanewise(VectorOperators.BIT_COUNT));
      a1 =
          a1.add(
              c.and(LongVector.fromArray(LONGS, expanded, planeLongs + k))
                  .lanewise(VectorOperators.BIT_COUNT));
      a2 =
          a2.add(
              c.and(LongVector.fromArray(LONGS, expanded, 2 * planeLongs + k))
                  .lanewise(VectorOperators.BIT_COUNT));
      a3 =
          a3.add(
              c.and(LongVector.fromArray(LONGS, expanded, 3 * planeLongs + k))
                  .lanewise(VectorOperators.BIT_COUNT));
    }
    LongVector t =
        a0.add(a1.lanewise(VectorOperators.LSHL, 1))
            .add(a2.lanewise(VectorOperators.LSHL, 2))
            .add(a3.lanewise(VectorOperators.LSHL, 3));
    return (int) t.lanewise(VectorOperators.LSHL, PLANE_SHIFTS).reduceLanes(VectorOperators.ADD);
  }

  /**
   * A query rotated and rounded to 4 bits ({@link BinaryCodes.Query} does both, with the same
   * rotation), its planes laid out for {@link #dotVector}, and the constants of the estimate. One
   * per searcher thread; {@link #bind} rewrites it.
   */
  public static final class Query implements CodeQuery {
    private final BinaryCodes.Query rounded;
    private final int dimension;
    private final int words;
    private final int planeLongs;
    private final long[] expanded;
    // D·lo_q + Δ_q·Σu, lo_q, Δ_q, ‖q‖², and the bound's Δ_q² and ‖q‖² over 12.
    private float loTerm;
    private float lo;
    private float delta;
    private float squares;
    private double deltaSquares12;
    private double squares12;

    /** A query of {@code rotation}'s dimension, bound to nothing yet. */
    public Query(Rotation rotation) {
      this.rounded = new BinaryCodes.Query(rotation);
      this.dimension = rotation.dimension();
      this.words = BinaryCodes.words(dimension);
      this.planeLongs = Int4Codes.planeLongs(dimension);
      this.expanded = new long[BITS * planeLongs];
    }

    @Override
    public void bind(float[] q) {
      rounded.bind(q);
      for (int b = 0; b < BITS; b++) {
        for (int w = 0; w < words; w++) {
          long u = rounded.plane(b, w);
          int at = b * planeLongs + BITS * w;
          for (int a = 0; a < BITS; a++) {
            expanded[at + a] = u;
          }
        }
      }
      lo = rounded.lo();
      delta = rounded.delta();
      squares = rounded.squares();
      loTerm = dimension * lo + delta * rounded.sum();
      deltaSquares12 = (double) delta * delta / 12;
      squares12 = squares / 12.0;
    }

    /** {@code ⟨c, u⟩} of the bound query and {@code code}: exact, on vectors where they fit. */
    public int dotInt(byte[] code) {
      return VECTORS
          ? dotVector(expanded, planeLongs, code)
          : dotScalar(rounded.planes, words, code);
    }

    /** The same by {@link #dotScalar}, long by long: for tests, and JMH's comparison. */
    public int dotIntScalar(byte[] code) {
      return dotScalar(rounded.planes, words, code);
    }

    @Override
    public float dot(byte[] code) {
      int at = Long.BYTES * planeLongs;
      float codeLo = (float) FLOAT_LE.get(code, at);
      float codeDelta = (float) FLOAT_LE.get(code, at + Float.BYTES);
      int codeSum = (int) INT_LE.get(code, at + 2 * Float.BYTES);
      // D·lo·lo_q + lo·Δ_q·Σu + Δ·(lo_q·Σc + Δ_q·⟨c, u⟩)
      return codeLo * loTerm + codeDelta * (lo * codeSum + delta * dotInt(code));
    }

    @Override
    public float squareDistance(byte[] code) {
      return squares + Int4Codes.squares(code, dimension) - 2 * dot(code);
    }

    @Override
    public float bound(byte[] code, float epsilon) {
      float codeDelta = Int4Codes.delta(code, dimension);
      double variance =
          Int4Codes.squares(code, dimension) * deltaSquares12 + squares12 * codeDelta * codeDelta;
      return (float) (epsilon * Math.sqrt(variance));
    }

    @Override
    public float squareDistanceBound(byte[] code, float epsilon) {
      return 2 * bound(code, epsilon);
    }

    @Override
    public int codeLength() {
      return Int4Codes.codeLength(dimension);
    }
  }
}
