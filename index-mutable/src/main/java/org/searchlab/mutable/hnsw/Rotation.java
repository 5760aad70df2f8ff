package org.searchlab.mutable.hnsw;

import java.util.SplittableRandom;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * A fixed random orthogonal transform of {@code dimension}-component vectors, applied before a
 * vector is reduced to one bit per component ({@link BinaryCodes}): sign bits of the raw components
 * carry little where a few components hold most of the variance (sentence embeddings have such
 * components), and after a random rotation every component holds about the same share, which is
 * what RaBitQ's estimator and its error bound assume (Gao &amp; Long, SIGMOD 2024).
 *
 * <p>How: {@value #ROUNDS} rounds of a random sign flip of every component, then a normalised
 * Walsh–Hadamard transform of the first {@code T} components and, when {@code T < dimension}, of
 * the last {@code T}, where {@code T} is the largest power of two not above {@code dimension} (256
 * for 384: the two blocks overlap in 128 components, which mixes the whole vector). Each step is
 * orthogonal, so the product is: it keeps norms and dot products up to float rounding. It costs
 * {@code O(dimension · log dimension)} per vector (about 12,000 additions at 384) where a dense
 * random matrix costs {@code dimension²} multiplications (147,456), which a query pays once per
 * search. The RaBitQ library's {@code FhtKacRotator} does the same for dimensions that are not
 * powers of two, with Givens rotations where this uses the second block.
 *
 * <p>The signs come from a fixed seed, so every run and every replica rotates alike; nothing
 * durable depends on it, because stores keep the floats and compute the codes when they load.
 *
 * <p>Thread-safety: immutable; {@link #apply} writes only its output array.
 */
public final class Rotation {
  /**
   * Rounds of sign flips and transforms: three, as {@code FhtKacRotator}'s default of four less
   * one.
   */
  static final int ROUNDS = 3;

  private static final long SEED = 0x6c8e9cf570932bd5L;

  private final int dimension;
  private final int block;
  private final float inverseRootBlock;
  // signs[r][i] is ±1: the flip of component i in round r.
  private final float[][] signs;

  /** The rotation of {@code dimension}-component vectors (the same for every instance). */
  public Rotation(int dimension) {
    if (dimension < 1) {
      throw new IllegalArgumentException("dimension " + dimension + " is below 1");
    }
    this.dimension = dimension;
    this.block = Integer.highestOneBit(dimension);
    this.inverseRootBlock = (float) (1 / Math.sqrt(block));
    SplittableRandom random = new SplittableRandom(SEED);
    this.signs = new float[ROUNDS][dimension];
    for (float[] round : signs) {
      for (int i = 0; i < dimension; i++) {
        round[i] = random.nextBoolean() ? 1f : -1f;
      }
    }
  }

  /** The number of components it rotates. */
  public int dimension() {
    return dimension;
  }

  /** {@code out = P · v} ({@code out} may be {@code v}); both at least {@link #dimension} long. */
  public void apply(float[] v, float[] out) {
    if (out != v) {
      System.arraycopy(v, 0, out, 0, dimension);
    }
    for (float[] round : signs) {
      for (int i = 0; i < dimension; i++) {
        out[i] *= round[i];
      }
      hadamard(out, 0);
      if (block < dimension) {
        hadamard(out, dimension - block);
      }
    }
  }

  /** The vector lanes of the butterflies ({@link PanamaDots#SPECIES}). */
  private static final VectorSpecies<Float> SPECIES = PanamaDots.SPECIES;

  /** Butterfly stages narrower than a vector: halves 1, 2, 4, … below the lane count. */
  private static final int NARROW = Integer.numberOfTrailingZeros(SPECIES.length());

  // Per narrow stage s (half h = 2^s): lane i takes lane i ^ h, and the lanes with bit h set.
  private static final VectorShuffle<Float>[] PARTNER = partners();
  private static final VectorMask<Float>[] UPPER = uppers();

  @SuppressWarnings("unchecked")
  private static VectorShuffle<Float>[] partners() {
    VectorShuffle<Float>[] out = new VectorShuffle[NARROW];
    for (int s = 0; s < NARROW; s++) {
      int h = 1 << s;
      out[s] = VectorShuffle.fromOp(SPECIES, i -> i ^ h);
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static VectorMask<Float>[] uppers() {
    VectorMask<Float>[] out = new VectorMask[NARROW];
    int lanes = SPECIES.length();
    for (int s = 0; s < NARROW; s++) {
      boolean[] bits = new boolean[lanes];
      for (int i = 0; i < lanes; i++) {
        bits[i] = (i & (1 << s)) != 0;
      }
      out[s] = VectorMask.fromArray(SPECIES, bits, 0);
    }
    return out;
  }

  /**
   * The normalised Walsh–Hadamard transform of {@code x[from, from + block)}, in place, on the
   * Vector API: the stages narrower than a vector inside each vector (lane {@code i} pairs with
   * lane {@code i ^ half}: the lower lane takes the sum, the upper the difference), then the wide
   * ones across vectors. The same additions and subtractions in the same order as the scalar
   * butterflies, so the same floats to the bit (BinaryCodesTest compares them).
   */
  private void hadamard(float[] x, int from) {
    int lanes = SPECIES.length();
    if (block < lanes) {
      hadamardScalar(x, from);
      return;
    }
    for (int i = from; i < from + block; i += lanes) {
      FloatVector v = FloatVector.fromArray(SPECIES, x, i);
      for (int s = 0; s < NARROW; s++) {
        FloatVector p = v.rearrange(PARTNER[s]);
        v = v.add(p).blend(p.sub(v), UPPER[s]);
      }
      v.intoArray(x, i);
    }
    for (int half = lanes; half < block; half <<= 1) {
      for (int start = from; start < from + block; start += half << 1) {
        for (int i = start; i < start + half; i += lanes) {
          FloatVector a = FloatVector.fromArray(SPECIES, x, i);
          FloatVector b = FloatVector.fromArray(SPECIES, x, i + half);
          a.add(b).intoArray(x, i);
          a.sub(b).intoArray(x, i + half);
        }
      }
    }
    for (int i = from; i < from + block; i++) {
      x[i] *= inverseRootBlock;
    }
  }

  /** {@link #hadamard} one butterfly at a time, for blocks narrower than a vector. */
  private void hadamardScalar(float[] x, int from) {
    for (int half = 1; half < block; half <<= 1) {
      for (int start = from; start < from + block; start += half << 1) {
        for (int i = start; i < start + half; i++) {
          float a = x[i];
          float b = x[i + half];
          x[i] = a + b;
          x[i + half] = a - b;
        }
      }
    }
    for (int i = from; i < from + block; i++) {
      x[i] *= inverseRootBlock;
    }
  }
}
