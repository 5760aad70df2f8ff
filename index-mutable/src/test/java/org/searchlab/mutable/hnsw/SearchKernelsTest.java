package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * The search loop's two kernels against plain references: the batched dot product, the visited set.
 */
class SearchKernelsTest {
  @Test
  void batchedKernelsRunUnderTheProjectsFlags() {
    // Surefire runs with --add-modules jdk.incubator.vector, as the launcher does.
    assertTrue(BulkDot.BATCHED, "the batched kernels are off: is jdk.incubator.vector missing?");
  }

  @Test
  void bulkScoresEqualVectorUtilWithinRounding() {
    long seed = TestSeeds.seed("SearchKernelsTest.bulk");
    SplittableRandom random = new SplittableRandom(seed);
    for (int dim : new int[] {1, 3, 15, 16, 17, 64, 100, 384, 385, 768}) {
      // Every batch size up to 20 (each mix of the eight-, four-, three-, two- and one-vector
      // paths), then a random one up to 40.
      for (int count = 1; count <= 21; count++) {
        checkBatch(random, dim, count <= 20 ? count : 1 + random.nextInt(40));
      }
    }
  }

  private static void checkBatch(SplittableRandom random, int dim, int count) {
    float[] query = TestVectors.gaussianUnit(random, dim);
    float[][] vectors = new float[count][];
    for (int i = 0; i < count; i++) {
      vectors[i] = TestVectors.gaussianUnit(random, dim);
    }
    float[] scores = new float[count];
    BulkDot.score(query, vectors, query.length, scores, count);
    for (int i = 0; i < count; i++) {
      float expected = VectorUtil.dotProduct(query, vectors[i]);
      assertEquals(expected, scores[i], 1e-5f, "dim " + dim + ", vector " + i + " of " + count);
    }
  }

  /**
   * The kernels give the bits of their documented summation order (four accumulators or one, then
   * the lane tree), written out lane by lane in plain Java, after enough calls that C2 has compiled
   * them. C2's own {@code reduceLanes(ADD)} happens to use the same tree, so the test below,
   * against the interpreter, is the one that catches a return to it.
   */
  @Test
  void kernelsSumInAFixedOrderOnceCompiled() {
    long seed = TestSeeds.seed("SearchKernelsTest.order");
    SplittableRandom random = new SplittableRandom(seed);
    int lanes = PanamaDots.lanes();
    int dim = 9 * lanes + 3; // two four-accumulator steps, one single step, a scalar tail
    float[] query = TestVectors.gaussianUnit(random, dim);
    float[][] vectors = new float[13][]; // eight, four, then one alone
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = TestVectors.gaussianUnit(random, dim);
    }
    float[] scores = new float[vectors.length];
    for (int call = 0; call < 30_000; call++) { // warm up: let C2 compile both kernels
      BulkDot.score(query, vectors, query.length, scores, vectors.length);
      BulkDot.dot(query, vectors[call % vectors.length], query.length);
    }
    BulkDot.score(query, vectors, query.length, scores, vectors.length);
    for (int i = 0; i < vectors.length; i++) {
      float expected =
          i < 12
              ? oneAccumulator(query, vectors[i], lanes)
              : fourAccumulators(query, vectors[i], lanes);
      assertEquals(
          Float.floatToIntBits(expected), Float.floatToIntBits(scores[i]), "batch vector " + i);
      assertEquals(
          Float.floatToIntBits(fourAccumulators(query, vectors[i], lanes)),
          Float.floatToIntBits(BulkDot.dot(query, vectors[i], query.length)),
          "single vector " + i);
    }
  }

  /**
   * The property itself: the kernels give the same bits interpreted ({@code -Xint}, in a child JVM)
   * as compiled by C2 here. {@code reduceLanes(ADD)} fails this (its interpreted order is
   * sequential, C2's a tree), which is what made two builds of one graph differ.
   */
  @Test
  void kernelsGiveTheSameBitsInterpretedAsCompiled() throws Exception {
    long seed = TestSeeds.seed("SearchKernelsTest.tiers");
    for (int call = 0; call < 30_000; call++) { // let C2 compile them here
      KernelBits.bits(seed + call % 7);
    }
    int[] compiled = KernelBits.bits(seed);
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
                Long.toString(seed))
            .redirectErrorStream(false)
            .start();
    String out =
        new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the -Xint child ran");
    assertEquals(0, child.exitValue(), "the -Xint child's exit status; output: " + out);
    int[] interpreted = out.lines().mapToInt(Integer::parseInt).toArray();
    assertEquals(compiled.length, interpreted.length, out);
    for (int i = 0; i < compiled.length; i++) {
      assertEquals(
          compiled[i], interpreted[i], "score " + i + " (the first 13 batched, then alone)");
    }
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

  /** The batched kernels' order: one lane-wise accumulator, the lane tree, then the tail. */
  private static float oneAccumulator(float[] q, float[] v, int lanes) {
    float[] acc = new float[lanes];
    int i = 0;
    for (; i + lanes <= q.length; i += lanes) {
      for (int l = 0; l < lanes; l++) {
        acc[l] = Math.fma(v[i + l], q[i + l], acc[l]);
      }
    }
    float s = tree(acc);
    for (; i < q.length; i++) {
      s = Math.fma(q[i], v[i], s);
    }
    return s;
  }

  /** {@code BulkDot.dot}'s order: four accumulators, then one, combined as (0 + 1) + (2 + 3). */
  private static float fourAccumulators(float[] q, float[] v, int lanes) {
    float[][] acc = new float[4][lanes];
    int i = 0;
    for (; i + 4 * lanes <= q.length; i += 4 * lanes) {
      for (int a = 0; a < 4; a++) {
        for (int l = 0; l < lanes; l++) {
          int at = i + a * lanes + l;
          acc[a][l] = Math.fma(v[at], q[at], acc[a][l]);
        }
      }
    }
    for (; i + lanes <= q.length; i += lanes) {
      for (int l = 0; l < lanes; l++) {
        acc[0][l] = Math.fma(v[i + l], q[i + l], acc[0][l]);
      }
    }
    float[] combined = new float[lanes];
    for (int l = 0; l < lanes; l++) {
      combined[l] = (acc[0][l] + acc[1][l]) + (acc[2][l] + acc[3][l]);
    }
    float s = tree(combined);
    for (; i < q.length; i++) {
      s = Math.fma(q[i], v[i], s);
    }
    return s;
  }

  @Test
  void visitedSetMatchesABitSetAcrossResetsAndGrowth() {
    long seed = TestSeeds.seed("SearchKernelsTest.visited");
    SplittableRandom random = new SplittableRandom(seed);
    VisitedSet visited = new VisitedSet();
    int capacity = 100;
    for (int search = 0; search < 200; search++) {
      if (search % 40 == 39) {
        capacity = capacity * 3 + random.nextInt(100); // the graph grew between searches
      }
      visited.reset(capacity);
      BitSet reference = new BitSet();
      int visits = random.nextInt(search % 2 == 0 ? 20 : capacity * 2);
      for (int v = 0; v < visits; v++) {
        int node = random.nextInt(capacity + 10); // some beyond the capacity
        boolean expected = node < capacity && !reference.get(node);
        assertEquals(expected, visited.visit(node), "search " + search + ", node " + node);
        if (node < capacity) {
          reference.set(node);
        }
      }
      for (int node = 0; node < capacity + 10; node++) {
        assertEquals(reference.get(node), visited.contains(node), "search " + search);
      }
    }
  }
}
