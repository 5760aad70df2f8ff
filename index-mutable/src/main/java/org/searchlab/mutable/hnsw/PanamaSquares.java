package org.searchlab.mutable.hnsw;

import static org.searchlab.mutable.hnsw.PanamaDots.SPECIES;
import static org.searchlab.mutable.hnsw.PanamaDots.sum;

import jdk.incubator.vector.FloatVector;

/**
 * Squared Euclidean distances of one query with one, two, three, four or eight vectors in a single
 * pass: {@link PanamaDots}' kernels for the {@code l2_norm} similarity, with the same structure
 * (the query slice loaded once per step, one accumulator per vector, four for a lone vector), the
 * same species and the same fixed lane sum, for the same reasons: as many memory streams in flight
 * as there are vectors, and the same bits in every JIT tier so that a graph built twice from the
 * same vectors and seed is the same graph. Each step subtracts the query slice from the vector's
 * and accumulates the difference's square with a fused multiply-add. Loaded only when the {@code
 * jdk.incubator.vector} module is present (see {@link BulkDot}).
 *
 * <p>Why not {@link org.apache.lucene.util.VectorUtil#squareDistance}: its lanes are summed by
 * {@code reduceLanes}, whose order differs between the interpreter and C2 (see {@link PanamaDots}),
 * and it scores one vector per call. Hits are still reported with it ({@link
 * GraphSimilarity#exact}), as dot-product hits are with {@code VectorUtil.dotProduct}.
 *
 * <p>Thread-safety: stateless.
 */
final class PanamaSquares {
  private PanamaSquares() {}

  /** {@code ‖q − v‖²} over their first {@code n} floats, with four accumulators. */
  static float square1(float[] q, float[] v, int n) {
    int step = SPECIES.length();
    int i = 0;
    FloatVector s0 = FloatVector.zero(SPECIES);
    FloatVector s1 = FloatVector.zero(SPECIES);
    FloatVector s2 = FloatVector.zero(SPECIES);
    FloatVector s3 = FloatVector.zero(SPECIES);
    for (; i + 4 * step <= n; i += 4 * step) {
      FloatVector d0 =
          FloatVector.fromArray(SPECIES, v, i).sub(FloatVector.fromArray(SPECIES, q, i));
      FloatVector d1 =
          FloatVector.fromArray(SPECIES, v, i + step)
              .sub(FloatVector.fromArray(SPECIES, q, i + step));
      FloatVector d2 =
          FloatVector.fromArray(SPECIES, v, i + 2 * step)
              .sub(FloatVector.fromArray(SPECIES, q, i + 2 * step));
      FloatVector d3 =
          FloatVector.fromArray(SPECIES, v, i + 3 * step)
              .sub(FloatVector.fromArray(SPECIES, q, i + 3 * step));
      s0 = d0.fma(d0, s0);
      s1 = d1.fma(d1, s1);
      s2 = d2.fma(d2, s2);
      s3 = d3.fma(d3, s3);
    }
    for (; i + step <= n; i += step) {
      FloatVector d0 =
          FloatVector.fromArray(SPECIES, v, i).sub(FloatVector.fromArray(SPECIES, q, i));
      s0 = d0.fma(d0, s0);
    }
    float r = sum(s0.add(s1).add(s2.add(s3)));
    for (; i < n; i++) {
      float d = v[i] - q[i];
      r = Math.fma(d, d, r);
    }
    return r;
  }

  /**
   * {@code out[at + j] = ‖q − v[at + j]‖²} for {@code j < 8}, over the first {@code n} floats of
   * each (a vector may be the head of a longer row, {@link RowFloatSlots}).
   */
  static void square8(float[] q, float[][] v, int n, int at, float[] out) {
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
      FloatVector da = FloatVector.fromArray(SPECIES, a, i).sub(qv);
      sa = da.fma(da, sa);
      FloatVector db = FloatVector.fromArray(SPECIES, b, i).sub(qv);
      sb = db.fma(db, sb);
      FloatVector dc = FloatVector.fromArray(SPECIES, c, i).sub(qv);
      sc = dc.fma(dc, sc);
      FloatVector dd = FloatVector.fromArray(SPECIES, d, i).sub(qv);
      sd = dd.fma(dd, sd);
      FloatVector de = FloatVector.fromArray(SPECIES, e, i).sub(qv);
      se = de.fma(de, se);
      FloatVector df = FloatVector.fromArray(SPECIES, f, i).sub(qv);
      sf = df.fma(df, sf);
      FloatVector dg = FloatVector.fromArray(SPECIES, g, i).sub(qv);
      sg = dg.fma(dg, sg);
      FloatVector dh = FloatVector.fromArray(SPECIES, h, i).sub(qv);
      sh = dh.fma(dh, sh);
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
      ra = fmaSquare(a[i] - qi, ra);
      rb = fmaSquare(b[i] - qi, rb);
      rc = fmaSquare(c[i] - qi, rc);
      rd = fmaSquare(d[i] - qi, rd);
      re = fmaSquare(e[i] - qi, re);
      rf = fmaSquare(f[i] - qi, rf);
      rg = fmaSquare(g[i] - qi, rg);
      rh = fmaSquare(h[i] - qi, rh);
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

  /** {@code out[at + j] = ‖q − v[at + j]‖²} for {@code j < 4}. */
  static void square4(float[] q, float[][] v, int n, int at, float[] out) {
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
      FloatVector da = FloatVector.fromArray(SPECIES, a, i).sub(qv);
      sa = da.fma(da, sa);
      FloatVector db = FloatVector.fromArray(SPECIES, b, i).sub(qv);
      sb = db.fma(db, sb);
      FloatVector dc = FloatVector.fromArray(SPECIES, c, i).sub(qv);
      sc = dc.fma(dc, sc);
      FloatVector dd = FloatVector.fromArray(SPECIES, d, i).sub(qv);
      sd = dd.fma(dd, sd);
    }
    float ra = sum(sa);
    float rb = sum(sb);
    float rc = sum(sc);
    float rd = sum(sd);
    for (; i < n; i++) {
      float qi = q[i];
      ra = fmaSquare(a[i] - qi, ra);
      rb = fmaSquare(b[i] - qi, rb);
      rc = fmaSquare(c[i] - qi, rc);
      rd = fmaSquare(d[i] - qi, rd);
    }
    out[at] = ra;
    out[at + 1] = rb;
    out[at + 2] = rc;
    out[at + 3] = rd;
  }

  /** {@code out[at + j] = ‖q − v[at + j]‖²} for {@code j < 3}. */
  static void square3(float[] q, float[][] v, int n, int at, float[] out) {
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
      FloatVector da = FloatVector.fromArray(SPECIES, a, i).sub(qv);
      sa = da.fma(da, sa);
      FloatVector db = FloatVector.fromArray(SPECIES, b, i).sub(qv);
      sb = db.fma(db, sb);
      FloatVector dc = FloatVector.fromArray(SPECIES, c, i).sub(qv);
      sc = dc.fma(dc, sc);
    }
    float ra = sum(sa);
    float rb = sum(sb);
    float rc = sum(sc);
    for (; i < n; i++) {
      float qi = q[i];
      ra = fmaSquare(a[i] - qi, ra);
      rb = fmaSquare(b[i] - qi, rb);
      rc = fmaSquare(c[i] - qi, rc);
    }
    out[at] = ra;
    out[at + 1] = rb;
    out[at + 2] = rc;
  }

  /** {@code out[at + j] = ‖q − v[at + j]‖²} for {@code j < 2}. */
  static void square2(float[] q, float[][] v, int n, int at, float[] out) {
    float[] a = v[at];
    float[] b = v[at + 1];
    FloatVector sa = FloatVector.zero(SPECIES);
    FloatVector sb = FloatVector.zero(SPECIES);
    int i = 0;
    int bound = SPECIES.loopBound(n);
    for (; i < bound; i += SPECIES.length()) {
      FloatVector qv = FloatVector.fromArray(SPECIES, q, i);
      FloatVector da = FloatVector.fromArray(SPECIES, a, i).sub(qv);
      sa = da.fma(da, sa);
      FloatVector db = FloatVector.fromArray(SPECIES, b, i).sub(qv);
      sb = db.fma(db, sb);
    }
    float ra = sum(sa);
    float rb = sum(sb);
    for (; i < n; i++) {
      float qi = q[i];
      ra = fmaSquare(a[i] - qi, ra);
      rb = fmaSquare(b[i] - qi, rb);
    }
    out[at] = ra;
    out[at + 1] = rb;
  }

  /** {@code d² + acc}, fused: the scalar tail's step, in the kernels' order. */
  private static float fmaSquare(float d, float acc) {
    return Math.fma(d, d, acc);
  }
}
