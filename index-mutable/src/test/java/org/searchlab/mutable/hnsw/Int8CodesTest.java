package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * The int8 quantizer against exact arithmetic: every component within half a step of its float,
 * every dot product within the bound that follows from it, and the SIMD integer dot product equal
 * to a plain loop over the codes.
 */
class Int8CodesTest {
  private static final int DIM = 384;

  @Test
  void roundTripIsWithinHalfAStep() {
    SplittableRandom random = new SplittableRandom(TestSeeds.seed("Int8CodesTest.roundTrip"));
    for (int t = 0; t < 500; t++) {
      float[] v = vector(random, t);
      byte[] code = Int8Codes.encode(v);
      assertEquals(DIM + Int8Codes.TAIL, code.length);
      float scale = Int8Codes.scale(code);
      float max = 0;
      for (float x : v) {
        max = Math.max(max, Math.abs(x));
      }
      assertEquals(max / Int8Codes.MAX_CODE, scale, 0f, "the scale is max|x| / 127");
      float[] back = Int8Codes.decode(code);
      int largest = 0;
      for (int i = 0; i < DIM; i++) {
        assertTrue(code[i] >= -Int8Codes.MAX_CODE, "code " + code[i] + " below -127");
        largest = Math.max(largest, Math.abs(code[i]));
        // Half a step, plus the float rounding of v / s and of s * q.
        float bound = scale / 2 * (1 + 1e-5f) + Math.ulp(max) * 2;
        assertTrue(
            Math.abs(v[i] - back[i]) <= bound,
            "component " + i + ": " + v[i] + " came back as " + back[i] + ", bound " + bound);
      }
      assertEquals(Int8Codes.MAX_CODE, largest, "the largest component uses the full range");
    }
  }

  @Test
  void dotProductIsWithinTheQuantizationBound() {
    SplittableRandom random = new SplittableRandom(TestSeeds.seed("Int8CodesTest.dot"));
    byte[] query = new byte[DIM + Int8Codes.TAIL];
    double worstShare = 0;
    for (int t = 0; t < 500; t++) {
      float[] x = vector(random, t);
      float[] y = vector(random, t + 1);
      float qs = Int8Codes.encodeQuery(x, query);
      byte[] stored = Int8Codes.encode(y);
      float approx = Int8Codes.dot(query, qs, stored);
      double exact = exactDot(x, y);
      // x = x' + ex, y = y' + ey with |ex_i| <= sx/2, |ey_i| <= sy/2, so
      // |x·y - x'·y'| = |ex·y + x'·ey| <= ||ex||·||y|| + ||x'||·||ey||.
      double ex = Math.sqrt(DIM) * qs / 2;
      double ey = Math.sqrt(DIM) * Int8Codes.scale(stored) / 2;
      double bound = ex * norm(y) + (norm(x) + ex) * ey + 1e-5;
      double error = Math.abs(approx - exact);
      assertTrue(error <= bound, "error " + error + " > bound " + bound + " at trial " + t);
      worstShare = Math.max(worstShare, error / bound);
    }
    System.out.printf("int8 dot: worst error %.3f of the bound%n", worstShare);
  }

  /**
   * The bracket the exact plan prunes with: for every pair, the float dot product lies within
   * {@link Int8Codes#errorBound} of the code's, and the stored norm is the decoded vector's.
   */
  @Test
  void theErrorBoundBracketsTheFloatDotProduct() {
    long seed = TestSeeds.seed("Int8CodesTest.bracket");
    SplittableRandom random = new SplittableRandom(seed);
    byte[] query = new byte[DIM + Int8Codes.TAIL];
    double worstShare = 0;
    for (int t = 0; t < 2000; t++) {
      float[] x = vector(random, t);
      float[] y = t % 7 == 0 ? x.clone() : vector(random, t + 1);
      float qs = Int8Codes.encodeQuery(x, query);
      byte[] stored = Int8Codes.encode(y);
      assertEquals(norm(Int8Codes.decode(stored)), Int8Codes.norm(stored), 1e-6, "trial " + t);
      float bound = Int8Codes.errorBound(stored, Int8Codes.l1(x), Int8Codes.residual(x, query, qs));
      double error = Math.abs(Int8Codes.dot(query, qs, stored) - exactDot(x, y));
      assertTrue(
          error <= bound, "error " + error + " > bound " + bound + " at " + t + ", seed " + seed);
      worstShare = Math.max(worstShare, error / bound);
    }
    // The bound is a worst case over sign patterns; typical errors are far inside it.
    System.out.printf("int8 bracket: worst error %.3f of the bound%n", worstShare);
  }

  @Test
  void integerDotProductEqualsAPlainLoopAndIgnoresTheScaleBytes() {
    SplittableRandom random = new SplittableRandom(TestSeeds.seed("Int8CodesTest.simd"));
    byte[] query = new byte[DIM + Int8Codes.TAIL];
    for (int t = 0; t < 200; t++) {
      float[] x = vector(random, t);
      float[] y = vector(random, t + 3);
      float qs = Int8Codes.encodeQuery(x, query);
      byte[] stored = Int8Codes.encode(y);
      int plain = 0;
      for (int i = 0; i < DIM; i++) {
        plain += query[i] * stored[i];
      }
      assertEquals(plain, VectorUtil.dotProduct(query, stored), "trial " + t);
      assertEquals(plain * qs * Int8Codes.scale(stored), Int8Codes.dot(query, qs, stored), 0f);
      // The query code holds the same components a stored code of x would.
      byte[] asStored = Int8Codes.encode(x);
      for (int i = 0; i < DIM; i++) {
        assertEquals(asStored[i], query[i]);
      }
      assertEquals(Int8Codes.scale(asStored), qs, 0f);
    }
  }

  @Test
  void theZeroVectorEncodesToZeros() {
    byte[] code = Int8Codes.encode(new float[DIM]);
    assertArrayEquals(new byte[DIM + Int8Codes.TAIL], code);
    assertArrayEquals(new float[DIM], Int8Codes.decode(code));
  }

  @Test
  void aCodeIsAFunctionOfItsVectorAlone() {
    SplittableRandom random = new SplittableRandom(TestSeeds.seed("Int8CodesTest.pure"));
    float[] v = vector(random, 0);
    VectorStore a = VectorStore.create(DIM, org.searchlab.core.VectorQuantization.INT8);
    VectorStore b = VectorStore.create(DIM, org.searchlab.core.VectorQuantization.INT8);
    a.set(0, vector(random, 1));
    a.set(7, v);
    b.set(7, v);
    assertArrayEquals(a.code(7), b.code(7), "another vector stored first changes nothing");
    assertArrayEquals(Int8Codes.encode(v), a.code(7));
    a.remove(7);
    assertEquals(null, a.code(7));
    assertEquals(null, VectorStore.create(DIM).code(0));
  }

  /** Unit gaussian vectors, and every fifth one spiky (one large component) to stress the scale. */
  private static float[] vector(SplittableRandom random, int t) {
    float[] v = TestVectors.gaussianUnit(random, DIM);
    if (t % 5 == 4) {
      v[random.nextInt(DIM)] += 3f;
      v = VectorUtil.l2normalize(v);
    }
    return v;
  }

  private static double exactDot(float[] x, float[] y) {
    double s = 0;
    for (int i = 0; i < x.length; i++) {
      s += (double) x[i] * y[i];
    }
    return s;
  }

  private static double norm(float[] x) {
    return Math.sqrt(exactDot(x, x));
  }
}
