package org.searchlab.mutable.hnsw;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Four dot products against one query in a single pass, with the incubator vector API: each step
 * loads a slice of the query once and of each of the four vectors, so four independent memory
 * streams are in flight at once. Loaded only when the {@code jdk.incubator.vector} module is
 * present (see {@link BulkDot}).
 */
final class PanamaDot4 {
  private static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;

  private PanamaDot4() {}

  static void dot4(float[] q, float[] a, float[] b, float[] c, float[] d, float[] out, int at) {
    int n = q.length;
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
    float ra = sa.reduceLanes(VectorOperators.ADD);
    float rb = sb.reduceLanes(VectorOperators.ADD);
    float rc = sc.reduceLanes(VectorOperators.ADD);
    float rd = sd.reduceLanes(VectorOperators.ADD);
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
}
