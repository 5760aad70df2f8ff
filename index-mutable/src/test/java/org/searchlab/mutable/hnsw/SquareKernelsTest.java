package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.testing.TestSeeds;

/**
 * The squared-distance kernels ({@link PanamaSquares} through {@link BulkDot}) against plain
 * references, as {@link SearchKernelsTest} checks the dot products: equal to {@link
 * VectorUtil#squareDistance} within rounding, summed in their documented order, and the same bits
 * interpreted as compiled. Then {@link GraphSimilarity}: its raw scores and their conversion give
 * each similarity's Elasticsearch score.
 */
class SquareKernelsTest {
  @Test
  void squareDistancesEqualVectorUtilWithinRounding() {
    long seed = TestSeeds.seed("SquareKernelsTest.bulk");
    SplittableRandom random = new SplittableRandom(seed);
    for (int dim : new int[] {1, 3, 15, 16, 17, 64, 100, 384, 385, 768}) {
      for (int count = 1; count <= 21; count++) {
        int n = count <= 20 ? count : 1 + random.nextInt(40);
        // Vectors of any length, as l2_norm takes them: scaled by up to 100.
        float[] query = scaled(random, dim);
        float[][] vectors = new float[n][];
        for (int i = 0; i < n; i++) {
          vectors[i] = i % 5 == 4 ? query.clone() : scaled(random, dim); // some at distance 0
        }
        float[] distances = new float[n];
        BulkDot.squareDistances(query, vectors, dim, distances, n);
        for (int i = 0; i < n; i++) {
          float expected = VectorUtil.squareDistance(query, vectors[i]);
          String where = "dim " + dim + ", vector " + i + " of " + n + ", seed " + seed;
          assertEquals(expected, distances[i], 1e-5f * Math.max(1, expected), where);
          assertEquals(
              expected,
              BulkDot.squareDistance(query, vectors[i], dim),
              1e-5f * Math.max(1, expected),
              where);
          if (i % 5 == 4) {
            assertEquals(0f, distances[i], 0f, where + ": a copy is at distance 0");
          }
        }
      }
    }
  }

  @Test
  void kernelsSumInAFixedOrderOnceCompiled() {
    long seed = TestSeeds.seed("SquareKernelsTest.order");
    SplittableRandom random = new SplittableRandom(seed);
    int lanes = PanamaDots.lanes();
    int dim = 9 * lanes + 3; // two four-accumulator steps, one single step, a scalar tail
    float[] query = scaled(random, dim);
    float[][] vectors = new float[13][]; // eight, four, then one alone
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = scaled(random, dim);
    }
    float[] distances = new float[vectors.length];
    for (int call = 0; call < 30_000; call++) { // warm up: let C2 compile the kernels
      BulkDot.squareDistances(query, vectors, query.length, distances, vectors.length);
      BulkDot.squareDistance(query, vectors[call % vectors.length], query.length);
    }
    BulkDot.squareDistances(query, vectors, query.length, distances, vectors.length);
    for (int i = 0; i < vectors.length; i++) {
      float expected =
          i < 12
              ? oneAccumulator(query, vectors[i], lanes)
              : fourAccumulators(query, vectors[i], lanes);
      assertEquals(
          Float.floatToIntBits(expected), Float.floatToIntBits(distances[i]), "batch vector " + i);
      assertEquals(
          Float.floatToIntBits(fourAccumulators(query, vectors[i], lanes)),
          Float.floatToIntBits(BulkDot.squareDistance(query, vectors[i], query.length)),
          "single vector " + i);
    }
  }

  /** As {@link SearchKernelsTest#kernelsGiveTheSameBitsInterpretedAsCompiled}, for squares. */
  @Test
  void kernelsGiveTheSameBitsInterpretedAsCompiled() throws Exception {
    long seed = TestSeeds.seed("SquareKernelsTest.tiers");
    for (int call = 0; call < 30_000; call++) {
      KernelBits.squareBits(seed + call % 7);
    }
    int[] compiled = KernelBits.squareBits(seed);
    String javaBin = ProcessHandle.current().info().command().orElseThrow();
    Process child =
        new ProcessBuilder(
                javaBin,
                "--add-modules",
                "jdk.incubator.vector",
                "-Xint",
                "-cp",
                System.getProperty("java.class.path"),
                KernelBits.class.getName(),
                Long.toString(seed),
                "squares")
            .start();
    String out =
        new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the -Xint child ran");
    assertEquals(0, child.exitValue(), "the -Xint child's exit status; output: " + out);
    int[] interpreted = out.lines().mapToInt(Integer::parseInt).toArray();
    assertEquals(compiled.length, interpreted.length, out);
    for (int i = 0; i < compiled.length; i++) {
      assertEquals(
          compiled[i], interpreted[i], "distance " + i + " (the first 13 batched, then alone)");
    }
  }

  /**
   * For every similarity, the raw scores (single, batched, four at a time, and as reported) and
   * their conversion give {@link VectorSimilarity#score}, the Elasticsearch score, within rounding;
   * and a closer vector has the higher raw score.
   */
  @Test
  void rawScoresConvertToEachSimilaritysScore() {
    long seed = TestSeeds.seed("SquareKernelsTest.similarity");
    SplittableRandom random = new SplittableRandom(seed);
    int dim = 100;
    for (VectorSimilarity s : VectorSimilarity.values()) {
      GraphSimilarity g = new GraphSimilarity(s);
      boolean unit = s == VectorSimilarity.DOT_PRODUCT || s == VectorSimilarity.COSINE;
      for (int t = 0; t < 50; t++) {
        float[] q = unit ? TestVectors.gaussianUnit(random, dim) : scaled(random, dim);
        float[][] vs = new float[6][];
        for (int i = 0; i < vs.length; i++) {
          vs[i] = unit ? TestVectors.gaussianUnit(random, dim) : scaled(random, dim);
        }
        float[] batch = new float[vs.length];
        g.raw(q, vs, dim, batch, vs.length);
        float[] four = new float[4];
        g.raw4(q, vs, dim, 0, four);
        for (int i = 0; i < vs.length; i++) {
          float expected = s.score(q, vs[i]);
          // Two float dot products summed in different orders differ by up to γ_n·Σ|q_i·v_i|
          // (γ_n = n·2^-24, Higham's bound), which is far more than 1e-5 of the result when the
          // products cancel (a raw score near 0 between long vectors): the bound, not the result,
          // sizes the rounding. Each conversion to a score has a derivative of at most 1 in it.
          double products = 0;
          for (int d = 0; d < dim; d++) {
            products += Math.abs((double) q[d] * vs[i][d]);
          }
          float tolerance =
              (float) Math.max(1e-5 * Math.max(1, Math.abs(expected)), dim * 0x1p-24 * products);
          String where = s + ", trial " + t + ", vector " + i + ", seed " + seed;
          assertEquals(expected, g.score(g.exact(q, vs[i])), tolerance, where);
          assertEquals(expected, g.score(g.raw(q, vs[i], dim)), tolerance, where);
          assertEquals(expected, g.score(batch[i]), tolerance, where);
          if (i < 4) {
            assertEquals(expected, g.score(four[i]), tolerance, where);
          }
        }
        float[] near = q.clone();
        near[0] += 0.5f;
        float[] far = q.clone();
        far[0] += 5f;
        if (s == VectorSimilarity.L2_NORM) {
          assertTrue(g.raw(q, near, dim) > g.raw(q, far, dim), "closer ranks higher, seed " + seed);
          assertEquals(1f, g.score(g.exact(q, q)), 0f, "distance 0 scores 1");
        }
      }
    }
  }

  /** A gaussian vector scaled by a factor in [0.01, 100): not unit length, as l2_norm allows. */
  static float[] scaled(SplittableRandom random, int dim) {
    float[] v = TestVectors.gaussianUnit(random, dim);
    float factor = (float) Math.pow(10, random.nextDouble() * 4 - 2);
    for (int i = 0; i < dim; i++) {
      v[i] *= factor;
    }
    return v;
  }

  /** The kernels' lane sum: add the lanes rotated by half, a quarter, …; lane 0. */
  private static float tree(float[] lanes) {
    float[] v = lanes.clone();
    for (int k = v.length / 2; k >= 1; k /= 2) {
      float[] rotated = new float[v.length];
      for (int l = 0; l < v.length; l++) {
        rotated[l] = v[l] + v[(l + k) % v.length];
      }
      v = rotated;
    }
    return v[0];
  }

  /** The batched kernels' order: one lane-wise accumulator of (v − q)², the tree, the tail. */
  private static float oneAccumulator(float[] q, float[] v, int lanes) {
    float[] acc = new float[lanes];
    int i = 0;
    for (; i + lanes <= q.length; i += lanes) {
      for (int l = 0; l < lanes; l++) {
        float d = v[i + l] - q[i + l];
        acc[l] = Math.fma(d, d, acc[l]);
      }
    }
    float s = tree(acc);
    for (; i < q.length; i++) {
      float d = v[i] - q[i];
      s = Math.fma(d, d, s);
    }
    return s;
  }

  /** {@code BulkDot.squareDistance}'s order: four accumulators, then one, (0 + 1) + (2 + 3). */
  private static float fourAccumulators(float[] q, float[] v, int lanes) {
    float[][] acc = new float[4][lanes];
    int i = 0;
    for (; i + 4 * lanes <= q.length; i += 4 * lanes) {
      for (int a = 0; a < 4; a++) {
        for (int l = 0; l < lanes; l++) {
          int at = i + a * lanes + l;
          float d = v[at] - q[at];
          acc[a][l] = Math.fma(d, d, acc[a][l]);
        }
      }
    }
    for (; i + lanes <= q.length; i += lanes) {
      for (int l = 0; l < lanes; l++) {
        float d = v[i + l] - q[i + l];
        acc[0][l] = Math.fma(d, d, acc[0][l]);
      }
    }
    float[] combined = new float[lanes];
    for (int l = 0; l < lanes; l++) {
      combined[l] = (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]);
    }
    float s = tree(combined);
    for (; i < q.length; i++) {
      float d = v[i] - q[i];
      s = Math.fma(d, d, s);
    }
    return s;
  }
}
