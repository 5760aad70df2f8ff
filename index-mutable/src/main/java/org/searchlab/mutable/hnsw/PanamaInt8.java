package org.searchlab.mutable.hnsw;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * Integer dot products of int8 codes whose components lie in [−127, 127] ({@link Int8Codes}), of
 * one query with one code per call, over the first {@code n} bytes of each: a code may head a
 * longer row ({@link RowCodes}), which Lucene's {@code VectorUtil.dotProduct(byte[], byte[])}
 * cannot read, as it takes two arrays of one length. Loaded only when the {@code
 * jdk.incubator.vector} module is present (see {@link Int8Dots}).
 *
 * <p>How a step works: two slices of bytes of each operand are widened to shorts, multiplied, and
 * the two products added as shorts before they are widened to ints. That is exact because a product
 * of two components in [−127, 127] is at most 16,129 in magnitude, and two of them at most 32,258,
 * inside a short. Lucene's kernel widens every product to ints, twice as many widenings per byte;
 * one of −128 would overflow the pair, which is why the codes are symmetric. Integer sums are exact
 * in any order, so unlike the float kernels ({@link PanamaDots}) the lanes may be reduced by {@code
 * reduceLanes}: every JIT tier gives the same result.
 *
 * <p>Widths: 512-bit short and int vectors (32 bytes loaded per slice) where the machine's
 * preferred species is 512 bits wide, else 256-bit ones (16 bytes per slice). Unlike the float
 * kernels ({@link PanamaDots#SPECIES}) a 512-bit step loads only 32 bytes per operand, so it does
 * not straddle cache lines more often than a 256-bit float load. At d = 384 on a 2-core AMD EPYC
 * (AVX-512), JMH ({@code Int8DotBenchmark}): 53.4 dots per µs at 512 bits, 43.1 at 256, Lucene's
 * {@code dotProduct(byte[], byte[])} 48.0, its float dot product 40.7. A kernel of four codes per
 * pass (four accumulators) measured 0.5–1.7 per µs, slower than the plain loop, so there is none.
 *
 * <p>Also the encoder's two loops ({@link #maxAbs}, {@link #round}): the largest magnitude and the
 * rounding of each component, which the plain loops did one component at a time (a JFR profile of
 * an int8 server at beam 10 had the query's encoding at 3% of its CPU).
 *
 * <p>Thread-safety: stateless.
 */
final class PanamaInt8 {
  private static final VectorSpecies<Short> SHORTS =
      IntVector.SPECIES_PREFERRED.vectorBitSize() >= 512
          ? ShortVector.SPECIES_512
          : ShortVector.SPECIES_256;
  private static final VectorSpecies<Integer> INTS =
      SHORTS.vectorBitSize() == 512 ? IntVector.SPECIES_512 : IntVector.SPECIES_256;
  private static final VectorSpecies<Byte> BYTES =
      SHORTS.vectorBitSize() == 512 ? ByteVector.SPECIES_256 : ByteVector.SPECIES_128;

  /** Bytes of one slice: as many as a short vector has lanes. */
  private static final int SLICE = BYTES.length();

  /** Bytes consumed per step: two slices. */
  private static final int STEP = 2 * SLICE;

  private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
  // Ints and bytes with one lane per float lane, for the rounding and its narrowing store.
  private static final VectorSpecies<Integer> FLOAT_INTS =
      VectorSpecies.of(int.class, FLOATS.vectorShape());
  private static final VectorSpecies<Byte> FLOAT_BYTES =
      VectorSpecies.of(byte.class, VectorShape.forBitSize(FLOATS.length() * Byte.SIZE));

  private PanamaInt8() {}

  /** The bytes a step reads per operand (the tests choose lengths around it). */
  static int step() {
    return STEP;
  }

  /**
   * {@code Σ q[i]·v[i]} over {@code i < n}. One method with no vector crossing a call: when its
   * steps were helpers taking and returning vectors ({@code shorts}, {@code widen}), an
   * experiment's int8 server ran them compiled on their own, not inlined, where the Vector API's
   * operations fell back to their Java implementations (a JFR profile: arrays allocated by {@code
   * IntVector.lanewiseTemplate} and {@code convert0} under this method, 6 to 10 times the young
   * collections of the float server, and 0.73 of its QPS per core), while the same build fed and
   * searched in another order compiled them inline.
   */
  static int dot1(byte[] q, byte[] v, int n) {
    IntVector acc = IntVector.zero(INTS);
    int i = 0;
    for (; i + STEP <= n; i += STEP) {
      ShortVector q0 =
          (ShortVector)
              ByteVector.fromArray(BYTES, q, i).convertShape(VectorOperators.B2S, SHORTS, 0);
      ShortVector v0 =
          (ShortVector)
              ByteVector.fromArray(BYTES, v, i).convertShape(VectorOperators.B2S, SHORTS, 0);
      ShortVector q1 =
          (ShortVector)
              ByteVector.fromArray(BYTES, q, i + SLICE)
                  .convertShape(VectorOperators.B2S, SHORTS, 0);
      ShortVector v1 =
          (ShortVector)
              ByteVector.fromArray(BYTES, v, i + SLICE)
                  .convertShape(VectorOperators.B2S, SHORTS, 0);
      ShortVector p = q0.mul(v0).add(q1.mul(v1));
      acc =
          acc.add((IntVector) p.convertShape(VectorOperators.S2I, INTS, 0))
              .add((IntVector) p.convertShape(VectorOperators.S2I, INTS, 1));
    }
    int r = acc.reduceLanes(VectorOperators.ADD);
    for (; i < n; i++) {
      r += q[i] * v[i];
    }
    return r;
  }

  /** {@code max |v[i]|}, as {@link Int8Dots#scalarMaxAbs} (NaN when a component is). */
  static float maxAbs(float[] v) {
    FloatVector acc = FloatVector.zero(FLOATS);
    int i = 0;
    for (int bound = FLOATS.loopBound(v.length); i < bound; i += FLOATS.length()) {
      acc = acc.max(FloatVector.fromArray(FLOATS, v, i).abs());
    }
    float max = acc.reduceLanes(VectorOperators.MAX);
    for (; i < v.length; i++) {
      max = Math.max(max, Math.abs(v[i]));
    }
    return max;
  }

  /**
   * {@code code[i] = clamp(Math.round(v[i] * inverse), −127, 127)}, bit for bit {@link
   * Int8Dots#scalarRound}: with {@code y = v[i] * inverse}, {@code t} its truncation and {@code f =
   * y − t} (exact below 2²³ in magnitude, where |y| ≤ 127 here), {@code Math.round(y) = ⌊y + ½⌋ = t
   * + 1} when {@code f ≥ ½}, {@code t − 1} when {@code f < −½}, else {@code t}. Adding ½ in floats
   * instead would round up values just below ½ ({@code 0.49999997f}).
   */
  static void round(float[] v, float inverse, byte[] code) {
    int i = 0;
    for (int bound = FLOATS.loopBound(v.length); i < bound; i += FLOATS.length()) {
      FloatVector y = FloatVector.fromArray(FLOATS, v, i).mul(inverse);
      IntVector t = (IntVector) y.convert(VectorOperators.F2I, 0);
      FloatVector f = y.sub((FloatVector) t.convert(VectorOperators.I2F, 0));
      VectorMask<Integer> up = f.compare(VectorOperators.GE, 0.5f).cast(FLOAT_INTS);
      VectorMask<Integer> down = f.compare(VectorOperators.LT, -0.5f).cast(FLOAT_INTS);
      t = t.add(1, up).sub(1, down).max(-Int8Codes.MAX_CODE).min(Int8Codes.MAX_CODE);
      ((ByteVector) t.convertShape(VectorOperators.I2B, FLOAT_BYTES, 0)).intoArray(code, i);
    }
    for (; i < v.length; i++) {
      code[i] = Int8Dots.round(v[i], inverse);
    }
  }
}
