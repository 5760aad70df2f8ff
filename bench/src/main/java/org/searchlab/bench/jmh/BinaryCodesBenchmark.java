package org.searchlab.bench.jmh;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.util.VectorUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.searchlab.mutable.hnsw.BinaryCodes;
import org.searchlab.mutable.hnsw.Int4Codes;
import org.searchlab.mutable.hnsw.Int8Dots;
import org.searchlab.mutable.hnsw.Rotation;

/**
 * The mutable graph's 1-bit and 4-bit kernels at the benchmark's 384 dimensions and twice that,
 * beside the int8 and float dot products a visit costs otherwise: one estimate of a query's dot
 * product with a 1-bit code ({@link BinaryCodes.Query#dot}: four AND-and-popcount passes over the
 * code's words and the code's factors) or a 4-bit code ({@link Int4Codes.Query#dot}: sixteen pairs
 * of bit planes, on vectors of longs, and long by long for comparison), their error bounds (what
 * the rerank orders by), and what a query costs once per search, the rotation ({@link
 * Rotation#apply}) and the whole bind (rotation, 4-bit rounding, bit planes). The codes are in
 * cache, cycled over 64 of them: this measures arithmetic, not the memory a graph walk waits on
 * ({@code hnsw-bench} measures that).
 *
 * <p>Thread-safety: JMH gives each benchmark thread its own state ({@link Scope#Thread}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class BinaryCodesBenchmark {
  private static final int CODES = 64;

  @Param({"384", "768"})
  int dimension;

  private Rotation rotation;
  private BinaryCodes.Query query;
  private Int4Codes.Query int4Query;
  private byte[][] int4Codes;
  private float[] q;
  private float[] rotated;
  private byte[][] codes;
  private float[][] vectors;
  private byte[] int8Query;
  private byte[][] int8Codes;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom r = new SplittableRandom(42);
    rotation = new Rotation(dimension);
    query = new BinaryCodes.Query(rotation);
    q = unit(r, dimension);
    rotated = new float[dimension];
    vectors = new float[CODES][];
    codes = new byte[CODES][];
    int4Codes = new byte[CODES][];
    int4Query = new Int4Codes.Query(rotation);
    int8Codes = new byte[CODES][];
    for (int i = 0; i < CODES; i++) {
      vectors[i] = unit(r, dimension);
      codes[i] = BinaryCodes.encode(rotation, vectors[i]);
      int4Codes[i] = Int4Codes.encode(rotation, vectors[i]);
      int8Codes[i] = new byte[dimension];
      for (int d = 0; d < dimension; d++) {
        int8Codes[i][d] = (byte) (r.nextInt(255) - 127);
      }
    }
    int8Query = int8Codes[CODES - 1].clone();
    query.bind(q);
    int4Query.bind(q);
    // The estimates must be the codes' own: within a few bounds of the float dot products.
    for (int i = 0; i < CODES; i++) {
      float exact = VectorUtil.dotProduct(q, vectors[i]);
      float miss = Math.abs(query.dot(codes[i]) - exact);
      if (!(miss <= 4 * query.bound(codes[i], 1.9f))) {
        throw new IllegalStateException(
            "estimate " + query.dot(codes[i]) + " for " + exact + " at dimension " + dimension);
      }
      float miss4 = Math.abs(int4Query.dot(int4Codes[i]) - exact);
      if (!(miss4 <= 4 * int4Query.bound(int4Codes[i], 1.9f))
          || int4Query.dotInt(int4Codes[i]) != int4Query.dotIntScalar(int4Codes[i])) {
        throw new IllegalStateException(
            "4-bit estimate " + int4Query.dot(int4Codes[i]) + " for " + exact);
      }
    }
  }

  private static float[] unit(SplittableRandom r, int n) {
    float[] v = new float[n];
    double s = 0;
    for (int i = 0; i < n; i++) {
      v[i] = (float) r.nextGaussian();
      s += (double) v[i] * v[i];
    }
    float inv = (float) (1 / Math.sqrt(s));
    for (int i = 0; i < n; i++) {
      v[i] *= inv;
    }
    return v;
  }

  private int nextCode() {
    next = (next + 1) & (CODES - 1);
    return next;
  }

  /** One 1-bit estimate of the bound query's dot product with a code. */
  @Benchmark
  public float estimate() {
    return query.dot(codes[nextCode()]);
  }

  /** One estimate and its error bound, as the rerank orders candidates. */
  @Benchmark
  public float estimateAndBound() {
    byte[] c = codes[nextCode()];
    return query.dot(c) + query.bound(c, 1.9f);
  }

  /** One 4-bit estimate of the bound query's dot product with a code, on vectors of longs. */
  @Benchmark
  public float int4Estimate() {
    return int4Query.dot(int4Codes[nextCode()]);
  }

  /** The 4-bit codes' integer dot product long by long, the kernel's stand-in on narrow vectors. */
  @Benchmark
  public int int4DotScalar() {
    return int4Query.dotIntScalar(int4Codes[nextCode()]);
  }

  /** The 4-bit codes' integer dot product on vectors of longs, beside the one above. */
  @Benchmark
  public int int4DotVector() {
    return int4Query.dotInt(int4Codes[nextCode()]);
  }

  /** One 4-bit estimate and its error bound, as the rerank orders candidates. */
  @Benchmark
  public float int4EstimateAndBound() {
    byte[] c = int4Codes[nextCode()];
    return int4Query.dot(c) + int4Query.bound(c, 1.9f);
  }

  /** The int8 dot product of the same dimension, which the int8 graph pays per visit. */
  @Benchmark
  public int int8Dot() {
    return Int8Dots.dot(int8Query, int8Codes[nextCode()], dimension);
  }

  /** The float dot product of the same dimension, which the float graph and the rerank pay. */
  @Benchmark
  public float floatDot() {
    return VectorUtil.dotProduct(q, vectors[nextCode()]);
  }

  /** The query's rotation, once per search. */
  @Benchmark
  public float rotate() {
    rotation.apply(q, rotated);
    return rotated[0];
  }

  /** The query's whole bind (rotation, 4-bit rounding, bit planes), once per search. */
  @Benchmark
  public int bind() {
    query.bind(q);
    return query.sum();
  }
}
