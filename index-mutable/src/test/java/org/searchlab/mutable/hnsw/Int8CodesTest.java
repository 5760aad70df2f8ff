package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
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

  /**
   * For {@code l2_norm}: the codes' squared distance is the squared distance between the vectors
   * the query code and the stored code decode to, and it ranks near vectors as the floats do more
   * often than not.
   */
  @Test
  void squareDistanceIsTheDecodedVectorsSquaredDistance() {
    long seed = TestSeeds.seed("Int8CodesTest.squares");
    SplittableRandom random = new SplittableRandom(seed);
    byte[] query = new byte[DIM + Int8Codes.TAIL];
    for (int t = 0; t < 500; t++) {
      float[] x = longVector(random, t);
      float[] y = t % 3 == 0 ? near(random, x) : longVector(random, t + 1);
      float qs = Int8Codes.encodeQuery(x, query);
      byte[] stored = Int8Codes.encode(y);
      float[] xd = Int8Codes.decode(Int8Codes.encode(x));
      float[] yd = Int8Codes.decode(stored);
      double decoded = exactSquareDistance(xd, yd);
      float approx = Int8Codes.squareDistance(query, qs, Int8Codes.squares(query, qs), stored);
      // The expansion loses what float rounding of ‖x'‖² + ‖y'‖² loses.
      double tolerance = 1e-5 * (exactDot(xd, xd) + exactDot(yd, yd));
      assertEquals(decoded, approx, tolerance, "trial " + t + ", seed " + seed);
    }
  }

  /**
   * The exact plan's l2_norm bracket: for every pair (copies, near copies, vectors of different
   * lengths), the float squared distance, as the kernels and VectorUtil compute it, lies within
   * {@link Int8Codes#squareDistanceBracket}.
   */
  @Test
  void theSquareDistanceBracketHoldsTheFloatSquaredDistance() {
    long seed = TestSeeds.seed("Int8CodesTest.squareBracket");
    SplittableRandom random = new SplittableRandom(seed);
    byte[] query = new byte[DIM + Int8Codes.TAIL];
    float[] bracket = new float[2];
    double widest = 0;
    for (int t = 0; t < 2000; t++) {
      float[] x = longVector(random, t);
      float[] y =
          switch (t % 7) {
            case 0 -> x.clone();
            case 1, 2 -> near(random, x);
            default -> longVector(random, t + 1);
          };
      float qs = Int8Codes.encodeQuery(x, query);
      byte[] stored = Int8Codes.encode(y);
      Int8Codes.squareDistanceBracket(
          query, qs, exactDot(x, x), Int8Codes.residual(x, query, qs), stored, bracket);
      String where = "trial " + t + ", seed " + seed + ": bracket " + Arrays.toString(bracket);
      assertTrue(bracket[0] <= bracket[1], where);
      for (float d :
          new float[] {
            VectorUtil.squareDistance(x, y),
            BulkDot.squareDistance(x, y, DIM),
            (float) exactSquareDistance(x, y)
          }) {
        assertTrue(bracket[0] <= d && d <= bracket[1], d + " outside, " + where);
      }
      widest = Math.max(widest, (Math.sqrt(bracket[1]) - Math.sqrt(bracket[0])) / norm(x));
    }
    System.out.printf(
        "int8 l2 bracket: widest %.4f of the query's length in distance, seed %d%n", widest, seed);
  }

  /**
   * For {@code max_inner_product}, whose vectors have any length: the bracket with the query's norm
   * holds the float dot product of long vectors, as the kernels and VectorUtil compute it.
   */
  @Test
  void theErrorBoundBracketsTheDotProductOfLongVectors() {
    long seed = TestSeeds.seed("Int8CodesTest.longBracket");
    SplittableRandom random = new SplittableRandom(seed);
    byte[] query = new byte[DIM + Int8Codes.TAIL];
    double worstShare = 0;
    for (int t = 0; t < 2000; t++) {
      float[] x = longVector(random, t);
      float[] y = t % 7 == 0 ? x.clone() : longVector(random, t + 1);
      float qs = Int8Codes.encodeQuery(x, query);
      byte[] stored = Int8Codes.encode(y);
      float bound =
          Int8Codes.errorBound(
              stored,
              Int8Codes.l1(x),
              Int8Codes.residual(x, query, qs),
              (float) Math.sqrt(exactDot(x, x)));
      float approx = Int8Codes.dot(query, qs, stored);
      for (double d :
          new double[] {VectorUtil.dotProduct(x, y), BulkDot.dot(x, y, DIM), exactDot(x, y)}) {
        double error = Math.abs(approx - d);
        assertTrue(
            error <= bound, "error " + error + " > bound " + bound + " at " + t + ", seed " + seed);
        worstShare = Math.max(worstShare, error / bound);
      }
    }
    System.out.printf("int8 bracket, long vectors: worst error %.3f of the bound%n", worstShare);
  }

  /** {@link #vector} scaled by a factor in [0.01, 100), as l2_norm and max_inner_product allow. */
  private static float[] longVector(SplittableRandom random, int t) {
    float[] v = vector(random, t);
    float factor = (float) Math.pow(10, random.nextDouble() * 4 - 2);
    for (int i = 0; i < v.length; i++) {
      v[i] *= factor;
    }
    return v;
  }

  /** {@code x} moved by a small fraction of its length in a random direction. */
  private static float[] near(SplittableRandom random, float[] x) {
    float[] noise = TestVectors.gaussianUnit(random, DIM);
    double step = norm(x) * Math.pow(10, -1 - 3 * random.nextDouble()); // 1e-4 to 1e-1 of ‖x‖
    float[] y = x.clone();
    for (int i = 0; i < DIM; i++) {
      y[i] += (float) (noise[i] * step);
    }
    return y;
  }

  private static double exactSquareDistance(float[] x, float[] y) {
    double s = 0;
    for (int i = 0; i < x.length; i++) {
      double d = (double) x[i] - y[i];
      s += d * d;
    }
    return s;
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
