package org.searchlab.mutable.hnsw;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
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

  private PanamaInt8() {}

  /** The bytes a step reads per operand (the tests choose lengths around it). */
  static int step() {
    return STEP;
  }

  private static ShortVector shorts(byte[] a, int at) {
    return (ShortVector)
        ByteVector.fromArray(BYTES, a, at).convertShape(VectorOperators.B2S, SHORTS, 0);
  }

  private static IntVector widen(ShortVector pairSums, IntVector acc) {
    return acc.add((IntVector) pairSums.convertShape(VectorOperators.S2I, INTS, 0))
        .add((IntVector) pairSums.convertShape(VectorOperators.S2I, INTS, 1));
  }

  /** {@code Σ q[i]·v[i]} over {@code i < n}. */
  static int dot1(byte[] q, byte[] v, int n) {
    IntVector acc = IntVector.zero(INTS);
    int i = 0;
    for (; i + STEP <= n; i += STEP) {
      ShortVector p =
          shorts(q, i).mul(shorts(v, i)).add(shorts(q, i + SLICE).mul(shorts(v, i + SLICE)));
      acc = widen(p, acc);
    }
    int r = acc.reduceLanes(VectorOperators.ADD);
    for (; i < n; i++) {
      r += q[i] * v[i];
    }
    return r;
  }
}
