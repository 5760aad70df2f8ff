package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * The int8 kernels against a plain loop: equal to the bit (integer sums are exact) at every length
 * around the kernels' step, for codes at the extremes of [−127, 127], for codes heading longer rows
 * whose extra bytes must not count, and four per pass against one by one; and the scores built on
 * them ({@link Int8Codes#dots}, {@link Int8Codes#negatedSquareDistances}) against {@link
 * Int8Codes#dot} and {@link Int8Codes#squareDistance} one code at a time. The encoder's kernels
 * ({@link Int8Dots#maxAbs}, {@link Int8Dots#round}) against their plain loops, to the bit, at the
 * rounding's edges too.
 */
class Int8DotsTest {
  private static byte[] codes(SplittableRandom random, int n, int extra, int kind) {
    byte[] c = new byte[n + extra];
    for (int i = 0; i < n; i++) {
      c[i] =
          switch (kind) {
            case 0 -> (byte) (random.nextInt(255) - 127);
            case 1 -> (byte) (random.nextBoolean() ? 127 : -127); // the largest products
            default -> (byte) 127;
          };
    }
    for (int i = n; i < c.length; i++) {
      c[i] = (byte) random.nextInt(256); // anything, -128 included: beyond n, never read
    }
    return c;
  }

  @Test
  void kernelsEqualThePlainLoopAtEveryLength() {
    long seed = TestSeeds.seed("Int8DotsTest.lengths");
    SplittableRandom random = new SplittableRandom(seed);
    int step = Int8Dots.PANAMA ? PanamaInt8.step() : 32;
    int[] out = new int[7];
    for (int n = 0; n <= 4 * step + 3; n++) {
      for (int kind = 0; kind < 3; kind++) {
        byte[] q = codes(random, n, 0, kind);
        byte[][] v = new byte[7][];
        for (int j = 0; j < v.length; j++) {
          v[j] = codes(random, n, random.nextInt(3) * 40, kind == 2 ? 2 : kind);
        }
        Int8Dots.dots(q, v, n, out, v.length);
        for (int j = 0; j < v.length; j++) {
          int expected = Int8Dots.scalar(q, v[j], n);
          String at = "n " + n + ", kind " + kind + ", code " + j + ", seed " + seed;
          assertEquals(expected, Int8Dots.dot(q, v[j], n), at);
          assertEquals(expected, out[j], "in a batch, " + at);
        }
      }
    }
  }

  @Test
  void aFullCodeOfExtremesDoesNotOverflowAndMatchesLucene() {
    for (int n : new int[] {384, 768, 1024}) {
      byte[] a = new byte[n];
      byte[] b = new byte[n];
      java.util.Arrays.fill(a, (byte) -127);
      java.util.Arrays.fill(b, (byte) -127);
      assertEquals(n * 16_129, Int8Dots.dot(a, b, n));
      assertEquals(VectorUtil.dotProduct(a, b), Int8Dots.dot(a, b, n));
      b[n - 1] = 127;
      assertEquals(VectorUtil.dotProduct(a, b), Int8Dots.dot(a, b, n));
    }
  }

  @Test
  void batchedScoresAreTheOneByOneScoresOfRows() {
    long seed = TestSeeds.seed("Int8DotsTest.scores");
    SplittableRandom random = new SplittableRandom(seed);
    int dim = 384;
    byte[] query = new byte[dim + Int8Codes.TAIL];
    int count = 11;
    byte[][] rows = new byte[count][];
    int[] ints = new int[count];
    float[] dots = new float[count];
    float[] negatedSquares = new float[count];
    for (int t = 0; t < 50; t++) {
      float[] x = TestVectors.gaussianUnit(random, dim);
      float qs = Int8Codes.encodeQuery(x, query);
      float querySquares = Int8Codes.squares(query, qs);
      for (int i = 0; i < count; i++) {
        // A code heading a row of links, as RowCodes stores it in a quantized graph.
        rows[i] = Int8Codes.encode(TestVectors.gaussianUnit(random, dim), dim + 8 + 4 + 4 * 32);
        for (int j = dim + Int8Codes.TAIL; j < rows[i].length; j++) {
          rows[i][j] = (byte) random.nextInt(256);
        }
      }
      Int8Codes.dots(query, qs, rows, ints, dots, count);
      Int8Codes.negatedSquareDistances(query, qs, querySquares, rows, ints, negatedSquares, count);
      for (int i = 0; i < count; i++) {
        byte[] bare = java.util.Arrays.copyOf(rows[i], dim + Int8Codes.TAIL);
        assertEquals(Int8Codes.dot(query, qs, bare), dots[i], 0f, "seed " + seed);
        assertEquals(Int8Codes.dot(query, qs, rows[i]), dots[i], 0f, "seed " + seed);
        assertEquals(
            -Int8Codes.squareDistance(query, qs, querySquares, bare),
            negatedSquares[i],
            0f,
            "seed " + seed);
        assertEquals(Int8Codes.scale(bare), Int8Codes.scale(rows[i], dim), 0f);
        assertEquals(Int8Codes.norm(bare), Int8Codes.norm(rows[i], dim), 0f);
        float l1 = Int8Codes.l1(x);
        float residual = Int8Codes.residual(x, query, qs);
        assertEquals(
            Int8Codes.errorBound(bare, l1, residual, 1f),
            Int8Codes.errorBound(rows[i], dim, l1, residual, 1f),
            0f);
      }
    }
    assertTrue(count > 4, "the batch covers a pass of four and leftovers");
  }

  @Test
  void encodingKernelsEqualThePlainLoopsToTheBit() {
    long seed = TestSeeds.seed("Int8DotsTest.encoding");
    SplittableRandom random = new SplittableRandom(seed);
    // Components whose scaled values sit on the rounding's edges: halves of either sign, the
    // floats just below and above them, and values just below ½ that adding ½ in floats rounds up.
    float[] edges = {
      0f,
      -0f,
      0.5f,
      -0.5f,
      1.5f,
      -1.5f,
      2.5f,
      -2.5f,
      126.5f,
      -126.5f,
      127f,
      -127f,
      Math.nextDown(0.5f),
      Math.nextUp(-0.5f),
      Math.nextDown(2.5f),
      Math.nextUp(2.5f),
      Math.nextDown(-2.5f),
      Math.nextUp(-2.5f),
      0.49999997f,
      -0.49999997f,
      1e-30f,
      -1e-30f
    };
    for (int n = 0; n <= 3 * 64 + 5; n++) {
      for (int kind = 0; kind < 3; kind++) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
          v[i] =
              switch (kind) {
                case 0 -> (float) random.nextGaussian();
                case 1 -> edges[random.nextInt(edges.length)];
                default -> (float) (random.nextDouble(-200, 200));
              };
        }
        String at = "n " + n + ", kind " + kind + ", seed " + seed;
        float max = Int8Dots.scalarMaxAbs(v);
        assertEquals(max, Int8Dots.maxAbs(v), "max |v|, " + at);
        // kind 1 rounds its edges as they are (inverse 1); the others as the encoder scales them.
        float inverse = kind == 1 || max == 0 ? 1f : Int8Codes.MAX_CODE / max;
        byte[] expected = new byte[n + 3];
        byte[] actual = new byte[n + 3];
        Int8Dots.scalarRound(v, inverse, expected);
        Int8Dots.round(v, inverse, actual);
        assertArrayEquals(expected, actual, "codes, " + at);
      }
    }
  }
}
