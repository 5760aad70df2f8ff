package org.searchlab.mutable.hnsw;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * Dot products of one query with two, three, four or eight vectors in a single pass, with the
 * incubator vector API: each step loads a slice of the query once and of every vector, so as many
 * independent memory streams are in flight as there are vectors. Loaded only when the {@code
 * jdk.incubator.vector} module is present (see {@link BulkDot}).
 *
 * <p>Eight accumulators, the query slice and the loads fit AVX2's sixteen registers; more would
 * spill.
 *
 * <p>Deterministic: an accumulator's lanes are summed in a fixed order ({@link #sum}), not by
 * {@code reduceLanes(ADD)}, whose order is unspecified and does differ between the interpreter and
 * C2's intrinsic. With {@code reduceLanes} a near-tie between two candidates could go either way
 * depending on whether the kernel was compiled yet, so two builds of the same vectors with the same
 * seed in one JVM gave different graphs ({@code
 * MutableHnswGraphTest.oneBuildThreadEqualsSequentialInserts…} failed at one seed in some tens).
 * Lane-wise adds and multiplies are exact IEEE operations in every tier.
 *
 * <p>{@link PanamaSquares} has the same kernels for squared distances, with this class's species
 * and lane sum.
 */
final class PanamaDots {
  /**
   * At most 256 bits, unless {@code -Dsearchlab.hnsw.vectorBits=512} asks for more. On an AVX-512
   * machine (AMD EPYC, 2 cores) searches on the synthetic 100,000 (384-d) were 4–6% faster with
   * 256-bit vectors than with the preferred 512 bits, at ef 128, 256 and 512 (20 paired passes on
   * one graph): a search waits on memory, not on arithmetic, and a heap {@code float[]} starts 16
   * bytes into its object, so every 64-byte load of the row straddles two cache lines, where only
   * every other 32-byte load does. On AVX2 machines 256 bits is the preferred size anyway. The
   * cost: the one-thread build of the Debian graph (62,665 vectors) was about 4% slower than with
   * 512 bits, in alternating builds; the synthetic build about 2% faster.
   */
  static final VectorSpecies<Float> SPECIES =
      species(Integer.getInteger("searchlab.hnsw.vectorBits", 256));

  private static final int LANES = SPECIES.length();

  private static VectorSpecies<Float> species(int maxBits) {
    VectorSpecies<Float> preferred = FloatVector.SPECIES_PREFERRED;
    if (preferred.vectorBitSize() <= maxBits) {
      return preferred;
    }
    return maxBits >= 512
        ? FloatVector.SPECIES_512
        : maxBits >= 256 ? FloatVector.SPECIES_256 : FloatVector.SPECIES_128;
  }

  /** The number of float lanes the kernels use (the tests model their summation order with it). */
  static int lanes() {
    return LANES;
  }

  private PanamaDots() {}

  // Rotations by half, a quarter, … of the lanes (lane i takes lane i + k, wrapping).
  private static final VectorShuffle<Float> ROT8 = VectorShuffle.iota(SPECIES, 8, 1, true);
  private static final VectorShuffle<Float> ROT4 = VectorShuffle.iota(SPECIES, 4, 1, true);
  private static final VectorShuffle<Float> ROT2 = VectorShuffle.iota(SPECIES, 2, 1, true);
  private static final VectorShuffle<Float> ROT1 = VectorShuffle.iota(SPECIES, 1, 1, true);

  /**
   * The lanes of {@code v} summed as a fixed tree: add the vector rotated by half its lanes, then
   * by a quarter, and so on, and take lane 0 (for eight lanes, ((a0 + a4) + (a2 + a6)) + ((a1 + a5)
   * + (a3 + a7))). Lane-wise adds give the same bits in every JIT tier; the tree costs three
   * shuffles and three adds on AVX2 where summing lane by lane cost eight extractions and seven
   * dependent adds.
   */
  static float sum(FloatVector v) {
    if (LANES >= 16) {
      v = v.add(v.rearrange(ROT8));
    }
    if (LANES >= 8) {
      v = v.add(v.rearrange(ROT4));
    }
    if (LANES >= 4) {
      v = v.add(v.rearrange(ROT2));
    }
    if (LANES >= 2) {
      v = v.add(v.rearrange(ROT1));
    }
    return v.lane(0);
  }

  /**
   * {@code q · v} over their first {@code n} floats, with four accumulators (so that the additions
   * do not wait on one another), combined lane-wise in a fixed order, then {@link #sum}.
   */
  static float dot1(float[] q, float[] v, int n) {
    int step = SPECIES.length();
    int i = 0;
    FloatVector s0 = FloatVector.zero(SPECIES);
    FloatVector s1 = FloatVector.zero(SPECIES);
    FloatVector s2 = FloatVector.zero(SPECIES);
    FloatVector s3 = FloatVector.zero(SPECIES);
    for (; i + 4 * step <= n; i += 4 * step) {
      s0 = FloatVector.fromArray(SPECIES, v, i).fma(FloatVector.fromArray(SPECIES, q, i), s0);
      s1 =
          FloatVector.fromArray(SPECIES, v, i + step)
              .fma(FloatVector.fromArray(SPECIES, q, i + step), s1);
      s2 =
          FloatVector.fromArray(SPECIES, v, i + 2 * step)
              .fma(FloatVector.fromArray(SPECIES, q, i + 2 * step), s2);
      s3 =
          FloatVector.fromArray(SPECIES, v, i + 3 * step)
              .fma(FloatVector.fromArray(SPECIES, q, i + 3 * step), s3);
    }
    for (; i + step <= n; i += step) {
      s0 = FloatVector.fromArray(SPECIES, v, i).fma(FloatVector.fromArray(SPECIES, q, i), s0);
    }
    float r = sum(s0.add(s1).add(s2.add(s3)));
    for (; i < n; i++) {
      r = Math.fma(q[i], v[i], r);
    }
    return r;
  }

  /**
   * {@code out[at + j] = q · v[at + j]} for {@code j < 8}, over the first {@code n} floats of each
   * (a vector may be the head of a longer row, {@link RowFloatSlots}).
   */
  static void dot8(float[] q, float[][] v, int n, int at, float[] out) {
    float[] a = v[at];
    float[] b = v[at + 1];
    float[] c = v[at + 2];
    float[] d = v[at + 3];
    float[] e = v[at + 4];
    float[] f = v[at + 5];
    float[] g = v[at + 6];
    float[] h = v[at + 7];
    FloatVector sa = FloatVector.zero(SPECIES);
    FloatVector sb = FloatVector.zero(SPECIES);
    FloatVector sc = FloatVector.zero(SPECIES);
    FloatVector sd = FloatVector.zero(SPECIES);
    FloatVector se = FloatVector.zero(SPECIES);
    FloatVector sf = FloatVector.zero(SPECIES);
    FloatVector sg = FloatVector.zero(SPECIES);
    FloatVector sh = FloatVector.zero(SPECIES);
    int i = 0;
    int bound = SPECIES.loopBound(n);
    for (; i < bound; i += SPECIES.length()) {
      FloatVector qv = FloatVector.fromArray(SPECIES, q, i);
      sa = FloatVector.fromArray(SPECIES, a, i).fma(qv, sa);
      sb = FloatVector.fromArray(SPECIES, b, i).fma(qv, sb);
      sc = FloatVector.fromArray(SPECIES, c, i).fma(qv, sc);
      sd = FloatVector.fromArray(SPECIES, d, i).fma(qv, sd);
      se = FloatVector.fromArray(SPECIES, e, i).fma(qv, se);
      sf = FloatVector.fromArray(SPECIES, f, i).fma(qv, sf);
      sg = FloatVector.fromArray(SPECIES, g, i).fma(qv, sg);
      sh = FloatVector.fromArray(SPECIES, h, i).fma(qv, sh);
    }
    float ra = sum(sa);
    float rb = sum(sb);
    float rc = sum(sc);
    float rd = sum(sd);
    float re = sum(se);
    float rf = sum(sf);
    float rg = sum(sg);
    float rh = sum(sh);
    for (; i < n; i++) {
      float qi = q[i];
      ra = Math.fma(qi, a[i], ra);
      rb = Math.fma(qi, b[i], rb);
      rc = Math.fma(qi, c[i], rc);
      rd = Math.fma(qi, d[i], rd);
      re = Math.fma(qi, e[i], re);
      rf = Math.fma(qi, f[i], rf);
      rg = Math.fma(qi, g[i], rg);
      rh = Math.fma(qi, h[i], rh);
    }
    out[at] = ra;
    out[at + 1] = rb;
    out[at + 2] = rc;
    out[at + 3] = rd;
    out[at + 4] = re;
    out[at + 5] = rf;
    out[at + 6] = rg;
    out[at + 7] = rh;
  }

  /** {@code out[at + j] = q · v[at + j]} for {@code j < 4}. */
  static void dot4(float[] q, float[][] v, int n, int at, float[] out) {
    float[] a = v[at];
    float[] b = v[at + 1];
    float[] c = v[at + 2];
    float[] d = v[at + 3];
    FloatVector sa = FloatVector.zero(SPECIES);
    FloatVector sb = FloatVector.zero(SPECIES);
    FloatVector sc = FloatVector.zero(SPECIES);
    FloatVector sd = FloatVector.zero(SPECIES);
    int i = 0;
    int bound = SPECIES.loopBound(n);
    for (; i < bound; i += SPECIES.length()) {
      FloatVector qv = FloatVector.fromArray(SPECIES, q, i);
      sa = FloatVector.fromArray(SPECIES, a, i).fma(qv, sa);
      sb = FloatVector.fromArray(SPECIES, b, i).fma(qv, sb);
      sc = FloatVector.fromArray(SPECIES, c, i).fma(qv, sc);
      sd = FloatVector.fromArray(SPECIES, d, i).fma(qv, sd);
    }
    float ra = sum(sa);
    float rb = sum(sb);
    float rc = sum(sc);
    float rd = sum(sd);
    for (; i < n; i++) {
      float qi = q[i];
      ra = Math.fma(qi, a[i], ra);
      rb = Math.fma(qi, b[i], rb);
      rc = Math.fma(qi, c[i], rc);
      rd = Math.fma(qi, d[i], rd);
    }
    out[at] = ra;
    out[at + 1] = rb;
    out[at + 2] = rc;
    out[at + 3] = rd;
  }

  /** {@code out[at + j] = q · v[at + j]} for {@code j < 3}. */
  static void dot3(float[] q, float[][] v, int n, int at, float[] out) {
    float[] a = v[at];
    float[] b = v[at + 1];
    float[] c = v[at + 2];
    FloatVector sa = FloatVector.zero(SPECIES);
    FloatVector sb = FloatVector.zero(SPECIES);
    FloatVector sc = FloatVector.zero(SPECIES);
    int i = 0;
    int bound = SPECIES.loopBound(n);
    for (; i < bound; i += SPECIES.length()) {
      FloatVector qv = FloatVector.fromArray(SPECIES, q, i);
      sa = FloatVector.fromArray(SPECIES, a, i).fma(qv, sa);
      sb = FloatVector.fromArray(SPECIES, b, i).fma(qv, sb);
      sc = FloatVector.fromArray(SPECIES, c, i).fma(qv, sc);
    }
    float ra = sum(sa);
    float rb = sum(sb);
    float rc = sum(sc);
    for (; i < n; i++) {
      float qi = q[i];
      ra = Math.fma(qi, a[i], ra);
      rb = Math.fma(qi, b[i], rb);
      rc = Math.fma(qi, c[i], rc);
    }
    out[at] = ra;
    out[at + 1] = rb;
    out[at + 2] = rc;
  }

  /** {@code out[at + j] = q · v[at + j]} for {@code j < 2}. */
  static void dot2(float[] q, float[][] v, int n, int at, float[] out) {
    float[] a = v[at];
    float[] b = v[at + 1];
    FloatVector sa = FloatVector.zero(SPECIES);
    FloatVector sb = FloatVector.zero(SPECIES);
    int i = 0;
    int bound = SPECIES.loopBound(n);
    for (; i < bound; i += SPECIES.length()) {
      FloatVector qv = FloatVector.fromArray(SPECIES, q, i);
      sa = FloatVector.fromArray(SPECIES, a, i).fma(qv, sa);
      sb = FloatVector.fromArray(SPECIES, b, i).fma(qv, sb);
    }
    float ra = sum(sa);
    float rb = sum(sb);
    for (; i < n; i++) {
      float qi = q[i];
      ra = Math.fma(qi, a[i], ra);
      rb = Math.fma(qi, b[i], rb);
    }
    out[at] = ra;
    out[at + 1] = rb;
  }
}
