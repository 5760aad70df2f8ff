package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * The 1-bit codes against exact arithmetic: the rotation keeps norms and dot products, the popcount
 * kernel equals a loop over bits and 4-bit components, the estimate equals its formula, it stays
 * inside RaBitQ's bound about as often as the theorem says, and reranking by the bound finds the
 * exact top 10 while reading the floats of a small share of the vectors.
 */
class BinaryCodesTest {
  private static final int[] DIMENSIONS = {1, 7, 63, 64, 100, 384, 768};

  @Test
  void theVectorRoundingGivesTheScalarPlanesToTheBit() {
    long seed = TestSeeds.seed("BinaryCodesTest.roundToPlanes");
    SplittableRandom random = new SplittableRandom(seed);
    for (int dimension : DIMENSIONS) {
      int words = BinaryCodes.words(dimension);
      for (int trial = 0; trial < 200; trial++) {
        float[] x = new float[dimension];
        float min = (float) random.nextGaussian();
        float inverse = trial == 0 ? 0f : (float) (0.5 + 10 * random.nextDouble());
        for (int i = 0; i < dimension; i++) {
          double u = random.nextDouble() * 15.2;
          // Every third component on or just beside a half step, where rounding ties are decided;
          // 0.49999997f is the one float whose scalar rounding a plain floor(t + 0.5) gets wrong.
          switch (random.nextInt(3)) {
            case 0 -> x[i] = min + (float) (Math.floor(u) + 0.5) / inverse;
            case 1 -> x[i] = min + Math.nextDown(0.5f) / inverse;
            default -> x[i] = min + (float) u / Math.max(inverse, 1e-3f);
          }
        }
        for (int[] layout : new int[][] {{1, words}, {4, 1}}) {
          long[] expected = new long[4 * words];
          long[] actual = new long[4 * words];
          int expectedSum =
              BinaryCodes.roundToPlanes(
                  x, dimension, min, inverse, expected, layout[0], layout[1], false);
          int actualSum =
              BinaryCodes.roundToPlanes(x, dimension, min, inverse, actual, layout[0], layout[1]);
          String where = "dimension " + dimension + " trial " + trial + ", seed " + seed;
          assertEquals(expectedSum, actualSum, "sum, " + where);
          assertEquals(Arrays.toString(expected), Arrays.toString(actual), "planes, " + where);
        }
      }
    }
  }

  @Test
  void theRotationKeepsNormsAndDotProducts() {
    long seed = TestSeeds.seed("BinaryCodesTest.rotation");
    SplittableRandom random = new SplittableRandom(seed);
    for (int dim : DIMENSIONS) {
      Rotation rotation = new Rotation(dim);
      for (int t = 0; t < 50; t++) {
        float[] u = gaussian(random, dim);
        float[] v = gaussian(random, dim);
        float[] pu = new float[dim];
        float[] pv = new float[dim];
        rotation.apply(u, pu);
        rotation.apply(v, pv);
        double tolerance = 1e-5 * Math.max(1, Math.sqrt(dim)) * norm(u) * norm(v);
        assertEquals(
            TestVectors.dot(u, v), TestVectors.dot(pu, pv), tolerance, "dot at dimension " + dim);
        assertEquals(norm(u), norm(pu), 1e-5 * norm(u) * Math.sqrt(dim), "norm at " + dim);
        float[] again = Arrays.copyOf(u, dim);
        rotation.apply(again, again);
        assertTrue(Arrays.equals(pu, again), "in place equals out of place at " + dim);
      }
    }
  }

  /** The vectorised butterflies give the scalar transform's floats to the bit. */
  @Test
  void theRotationEqualsTheScalarTransformBitForBit() throws ReflectiveOperationException {
    long seed = TestSeeds.seed("BinaryCodesTest.scalarRotation");
    SplittableRandom random = new SplittableRandom(seed);
    for (int dim : new int[] {1, 7, 16, 63, 64, 100, 384, 768, 1000}) {
      Rotation rotation = new Rotation(dim);
      float[][] signs = (float[][]) field(rotation, "signs");
      int block = (int) field(rotation, "block");
      float scale = (float) field(rotation, "inverseRootBlock");
      for (int t = 0; t < 20; t++) {
        float[] v = gaussian(random, dim);
        float[] expected = Arrays.copyOf(v, dim);
        for (float[] round : signs) {
          for (int i = 0; i < dim; i++) {
            expected[i] *= round[i];
          }
          scalarHadamard(expected, 0, block, scale);
          if (block < dim) {
            scalarHadamard(expected, dim - block, block, scale);
          }
        }
        float[] out = new float[dim];
        rotation.apply(v, out);
        assertTrue(Arrays.equals(expected, out), "seed " + seed + ", dimension " + dim);
      }
    }
  }

  private static Object field(Object o, String name) throws ReflectiveOperationException {
    java.lang.reflect.Field f = o.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(o);
  }

  private static void scalarHadamard(float[] x, int from, int block, float scale) {
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
      x[i] *= scale;
    }
  }

  @Test
  void theKernelEqualsALoopOverBitsAndComponents() {
    long seed = TestSeeds.seed("BinaryCodesTest.kernel");
    SplittableRandom random = new SplittableRandom(seed);
    for (int dim : DIMENSIONS) {
      Rotation rotation = new Rotation(dim);
      BinaryCodes.Query query = new BinaryCodes.Query(rotation);
      for (int t = 0; t < 40; t++) {
        query.bind(gaussian(random, dim));
        byte[] code = BinaryCodes.encode(rotation, gaussian(random, dim));
        int expected = 0;
        int ones = 0;
        for (int i = 0; i < dim; i++) {
          int u = query.component(i);
          assertTrue(u >= 0 && u <= 15, "component " + u);
          if (BinaryCodes.bit(code, i)) {
            expected += u;
            ones++;
          }
        }
        assertEquals(
            expected,
            BinaryCodes.dot(query.planes, query.words(), code),
            "seed " + seed + " at " + dim);
        assertEquals(ones, BinaryCodes.ones(code, dim), "ones at " + dim);
        // Bits past the dimension stay 0.
        for (int i = dim; i < 64 * BinaryCodes.words(dim); i++) {
          assertTrue(!BinaryCodes.bit(code, i), "bit " + i + " past dimension " + dim);
        }
      }
    }
  }

  /** The estimate is {@code f·Σ(2b_i − 1)·z̄_i}, computed here in double from the parts. */
  @Test
  void theEstimateIsItsFormula() {
    long seed = TestSeeds.seed("BinaryCodesTest.formula");
    SplittableRandom random = new SplittableRandom(seed);
    for (int dim : DIMENSIONS) {
      Rotation rotation = new Rotation(dim);
      BinaryCodes.Query query = new BinaryCodes.Query(rotation);
      for (int t = 0; t < 40; t++) {
        float[] q = gaussian(random, dim);
        float[] o = gaussian(random, dim);
        query.bind(q);
        byte[] code = BinaryCodes.encode(rotation, o);
        float[] y = new float[dim];
        rotation.apply(o, y);
        double l1 = 0;
        for (float x : y) {
          l1 += Math.abs(x);
        }
        double f = norm(o) * norm(y) / l1;
        assertEquals(f, BinaryCodes.factor(code, dim), 1e-5 * f, "f at " + dim);
        assertEquals(
            TestVectors.dot(o, o),
            BinaryCodes.squares(code, dim),
            1e-5 * TestVectors.dot(o, o),
            "squares at " + dim);
        double sum = 0;
        double magnitude = 0;
        for (int i = 0; i < dim; i++) {
          double zBar = query.lo() + (double) query.delta() * query.component(i);
          double sign = BinaryCodes.bit(code, i) ? 1 : -1;
          sum += sign * zBar;
          magnitude += Math.abs(zBar);
        }
        double expected = f * sum;
        assertEquals(
            expected,
            query.dot(code),
            1e-5 * f * magnitude + 1e-6,
            "seed " + seed + " at dimension " + dim);
        assertEquals(
            TestVectors.dot(q, q) + TestVectors.dot(o, o) - 2 * query.dot(code),
            query.squareDistance(code),
            1e-4 * (TestVectors.dot(q, q) + TestVectors.dot(o, o)),
            "squared distance at " + dim);
      }
    }
  }

  /**
   * RaBitQ's error is close to normal with the bound's scale as its standard deviation, so the
   * bound at ε₀ standard deviations leaves out about what a normal tail does: at 1.9 at most 5.7%
   * (the two tails of a normal beyond 1.9σ; the query's rounding term widens the bound, so fewer),
   * at 3 at most 0.27%, taken here as 1% for 5,000 pairs. The mean error must be small beside the
   * spread (unbiased: within 0.15 standard deviations, ten standard errors of a 5,000-pair mean).
   */
  @Test
  void estimatesStayInsideTheBoundAndAreUnbiased() {
    long seed = TestSeeds.seed("BinaryCodesTest.bound");
    SplittableRandom random = new SplittableRandom(seed);
    int dim = 384;
    Rotation rotation = new Rotation(dim);
    BinaryCodes.Query query = new BinaryCodes.Query(rotation);
    float[][] clustered = TestVectors.clustered(random, 2_000, dim, 20, 1.0);
    for (String data : new String[] {"gaussian", "clustered"}) {
      int pairs = 5_000;
      int outside = 0;
      int outsideThree = 0;
      double sum = 0;
      double sumSquares = 0;
      double boundSum = 0;
      for (int t = 0; t < pairs; t++) {
        float[] q;
        float[] o;
        if (data.equals("gaussian")) {
          q = gaussian(random, dim);
          o = gaussian(random, dim);
        } else {
          q = clustered[random.nextInt(clustered.length)];
          o = clustered[random.nextInt(clustered.length)];
        }
        query.bind(q);
        byte[] code = BinaryCodes.encode(rotation, o);
        double error = query.dot(code) - TestVectors.dot(q, o);
        float bound = query.bound(code, 1.9f);
        boundSum += bound;
        if (Math.abs(error) > bound) {
          outside++;
        }
        if (Math.abs(error) > query.bound(code, 3f)) {
          outsideThree++;
        }
        sum += error;
        sumSquares += error * error;
      }
      double mean = sum / pairs;
      double sd = Math.sqrt(Math.max(0, sumSquares / pairs - mean * mean));
      System.out.printf(
          "binary codes (%s, seed %d): error mean %.5f sd %.5f, bound mean %.5f, outside %d of %d"
              + " (at 3: %d)%n",
          data, seed, mean, sd, boundSum / pairs, outside, pairs, outsideThree);
      assertTrue(
          outside <= 0.057 * pairs, outside + " of " + pairs + " outside at 1.9, seed " + seed);
      assertTrue(
          outsideThree <= pairs / 100,
          outsideThree + " of " + pairs + " outside at 3, seed " + seed);
      assertTrue(
          Math.abs(mean) < 0.15 * sd,
          "mean error " + mean + " against sd " + sd + ", seed " + seed);
    }
  }

  /**
   * A search's rerank: take the vectors by the upper end of their estimate, score each by its
   * float, stop when the next upper end is below the 10th float score found. The top 10 must be the
   * exact top 10 (tie-aware) in at least 99% of the hits, reading the floats of at most a quarter
   * of the vectors (20 clusters of about 100 at 2,000 vectors).
   */
  @Test
  void rerankingByTheBoundFindsTheExactTopTen() {
    long seed = TestSeeds.seed("BinaryCodesTest.rerank");
    SplittableRandom random = new SplittableRandom(seed);
    int dim = 384;
    int n = 2_000;
    int k = 10;
    Rotation rotation = new Rotation(dim);
    BinaryCodes.Query query = new BinaryCodes.Query(rotation);
    float[][] vectors = TestVectors.clustered(random, n, dim, 20, 1.0);
    byte[][] codes = new byte[n][];
    for (int i = 0; i < n; i++) {
      codes[i] = BinaryCodes.encode(rotation, vectors[i]);
    }
    int found = 0;
    long reranked = 0;
    int queries = 50;
    for (int t = 0; t < queries; t++) {
      float[] q = TestVectors.near(random, vectors[random.nextInt(n)], 1.0);
      query.bind(q);
      Integer[] order = new Integer[n];
      float[] upper = new float[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
        upper[i] = query.dot(codes[i]) + query.bound(codes[i], 1.9f);
      }
      Arrays.sort(order, (a, b) -> Float.compare(upper[b], upper[a]));
      float[] best = new float[k];
      Arrays.fill(best, Float.NEGATIVE_INFINITY); // ascending: best[0] is the k-th
      for (int r = 0; r < n; r++) {
        int i = order[r];
        if (upper[i] < best[0]) {
          break;
        }
        reranked++;
        float s = VectorUtil.dotProduct(q, vectors[i]);
        if (s > best[0]) {
          best[0] = s;
          Arrays.sort(best);
        }
      }
      float[] exact = new float[n];
      for (int i = 0; i < n; i++) {
        exact[i] = VectorUtil.dotProduct(q, vectors[i]);
      }
      float[] sorted = exact.clone();
      Arrays.sort(sorted);
      float kth = sorted[n - k];
      for (float s : best) {
        if (s >= kth) {
          found++;
        }
      }
    }
    double recall = found / (double) (queries * k);
    double depth = reranked / (double) queries;
    System.out.printf(
        "binary codes rerank (seed %d): recall@10 %.4f, %.1f floats read per query of %d%n",
        seed, recall, depth, n);
    assertTrue(recall >= 0.99, "recall " + recall + ", seed " + seed);
    assertTrue(depth <= n / 4.0, depth + " floats read per query, seed " + seed);
  }

  private static float[] gaussian(SplittableRandom random, int dim) {
    float[] v = new float[dim];
    for (int i = 0; i < dim; i++) {
      double u = 1 - random.nextDouble();
      double w = random.nextDouble();
      v[i] = (float) (Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * w) / Math.sqrt(dim));
    }
    return v;
  }

  private static double norm(float[] a) {
    return Math.sqrt(TestVectors.dot(a, a));
  }
}
