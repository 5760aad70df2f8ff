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

/**
 * Dot product of two float vectors: Lucene's {@link VectorUtil} (SIMD through the incubating Vector
 * API when {@code --add-modules jdk.incubator.vector} is on, as in every searchlab JVM) against a
 * plain scalar loop, at the benchmark's 384 dimensions and around it. Both stores score vectors
 * with {@code VectorUtil}; the scalar loop shows what the SIMD path is worth. Modelled on Lucene's
 * {@code VectorUtilBenchmark}.
 *
 * <p>Thread-safety: JMH gives each benchmark thread its own state ({@link Scope#Thread}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
// Short iterations suffice: the kernels are tiny and reach steady state in under a second.
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// One fork: the result depends on the JIT choosing the SIMD intrinsics, which a fork reproduces.
@Fork(
    value = 1,
    jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class DistanceBenchmark {
  @Param({"64", "384", "768"})
  int dimension;

  private float[] a;
  private float[] b;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom r = new SplittableRandom(42);
    a = new float[dimension];
    b = new float[dimension];
    for (int i = 0; i < dimension; i++) {
      a[i] = (float) r.nextDouble(-1, 1);
      b[i] = (float) r.nextDouble(-1, 1);
    }
    float lucene = VectorUtil.dotProduct(a, b);
    float scalar = scalarDot(a, b);
    if (Math.abs(lucene - scalar) > 1e-3f * dimension) {
      throw new IllegalStateException("SIMD " + lucene + " and scalar " + scalar + " disagree");
    }
  }

  @Benchmark
  public float luceneVectorUtil() {
    return VectorUtil.dotProduct(a, b);
  }

  @Benchmark
  public float scalarLoop() {
    return scalarDot(a, b);
  }

  static float scalarDot(float[] x, float[] y) {
    float sum = 0;
    for (int i = 0; i < x.length; i++) {
      sum += x[i] * y[i];
    }
    return sum;
  }
}
