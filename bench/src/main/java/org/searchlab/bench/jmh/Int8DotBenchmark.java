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
import org.searchlab.mutable.hnsw.Int8Dots;

/**
 * The kernels a quantized graph scores codes with, at the benchmark's 384 dimensions and around it,
 * per code: Lucene's {@link VectorUtil#dotProduct(byte[], byte[])} (which widens every product to
 * ints), the mutable graph's {@link Int8Dots} one code per call and four per call as a batch (which
 * adds two products as shorts before widening, and reads a code at the head of a longer row), the
 * plain loop, and the float dot product of the same dimension for scale. The codes are in cache:
 * this measures arithmetic, not the memory a graph walk waits on ({@code hnsw-bench} measures
 * that).
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
public class Int8DotBenchmark {
  @Param({"128", "384", "768"})
  int dimension;

  private byte[] query;
  private byte[][] codes;
  private final int[] out = new int[4];
  private float[] floatA;
  private float[] floatB;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom r = new SplittableRandom(42);
    query = codes(r, dimension);
    codes = new byte[4][];
    for (int i = 0; i < codes.length; i++) {
      codes[i] = codes(r, dimension);
    }
    floatA = new float[dimension];
    floatB = new float[dimension];
    for (int i = 0; i < dimension; i++) {
      floatA[i] = (float) r.nextDouble(-1, 1);
      floatB[i] = (float) r.nextDouble(-1, 1);
    }
    int lucene = VectorUtil.dotProduct(query, codes[0]);
    if (lucene != Int8Dots.dot(query, codes[0], dimension)
        || lucene != Int8Dots.scalar(query, codes[0], dimension)) {
      throw new IllegalStateException("the int8 kernels disagree with Lucene's " + lucene);
    }
  }

  private static byte[] codes(SplittableRandom r, int n) {
    byte[] c = new byte[n];
    for (int i = 0; i < n; i++) {
      c[i] = (byte) (r.nextInt(255) - 127);
    }
    return c;
  }

  @Benchmark
  public int luceneInt8() {
    return VectorUtil.dotProduct(query, codes[0]);
  }

  @Benchmark
  public int searchlabInt8() {
    return Int8Dots.dot(query, codes[0], dimension);
  }

  /** Four codes per call ({@link Int8Dots#dots}, as the graph scores a batch): divide by four. */
  @Benchmark
  public int searchlabInt8FourPerCall() {
    Int8Dots.dots(query, codes, dimension, out, 4);
    return out[0] + out[1] + out[2] + out[3];
  }

  @Benchmark
  public int scalarInt8() {
    return Int8Dots.scalar(query, codes[0], dimension);
  }

  @Benchmark
  public float luceneFloat() {
    return VectorUtil.dotProduct(floatA, floatB);
  }
}
