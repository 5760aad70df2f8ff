package org.searchlab.mutable.hnsw;

/**
 * Integer dot products of int8 codes with components in [−127, 127] ({@link Int8Codes}) over the
 * first {@code n} bytes of each array, so that a code may head a longer row ({@link RowCodes}):
 * with the {@code jdk.incubator.vector} module present by {@link PanamaInt8}'s kernel, else (or
 * with {@code -Dsearchlab.hnsw.int8Kernel=false}) by a plain loop. Both are exact, so they agree to
 * the bit; {@code Int8DotsTest} checks it. The same for the encoder's loops ({@link #maxAbs},
 * {@link #round}).
 *
 * <p>Public for the JMH benchmark of the kernels ({@code bench}'s {@code Int8DotBenchmark}); the
 * graph is its only other caller.
 *
 * <p>Thread-safety: stateless.
 */
public final class Int8Dots {
  /** Whether {@link PanamaInt8}'s kernels are in use. */
  static final boolean PANAMA =
      ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
          && Boolean.parseBoolean(System.getProperty("searchlab.hnsw.int8Kernel", "true"));

  private Int8Dots() {}

  /** {@code Σ a[i]·b[i]} over {@code i < n}; every component in [−127, 127]. */
  public static int dot(byte[] a, byte[] b, int n) {
    return PANAMA ? PanamaInt8.dot1(a, b, n) : scalar(a, b, n);
  }

  /** {@code out[i] = }{@link #dot dot(query, codes[i], n)} for {@code i < count}. */
  public static void dots(byte[] query, byte[][] codes, int n, int[] out, int count) {
    for (int i = 0; i < count; i++) {
      out[i] = dot(query, codes[i], n);
    }
  }

  /** The plain loop: the fallback, and the reference the tests compare the kernels with. */
  public static int scalar(byte[] a, byte[] b, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  /** {@code max |v[i]|} ({@link Int8Codes}' scale is this over 127); NaN when a component is. */
  static float maxAbs(float[] v) {
    return PANAMA ? PanamaInt8.maxAbs(v) : scalarMaxAbs(v);
  }

  /** {@code code[i] = }{@link #round round(v[i], inverse)} for every component of {@code v}. */
  static void round(float[] v, float inverse, byte[] code) {
    if (PANAMA) {
      PanamaInt8.round(v, inverse, code);
    } else {
      scalarRound(v, inverse, code);
    }
  }

  /** One component's code: {@code Math.round(x * inverse)} clamped to [−127, 127]. */
  static byte round(float x, float inverse) {
    int q = Math.round(x * inverse);
    return (byte) Math.max(-Int8Codes.MAX_CODE, Math.min(Int8Codes.MAX_CODE, q));
  }

  /** The plain loop of {@link #maxAbs}: the fallback and the tests' reference. */
  static float scalarMaxAbs(float[] v) {
    float max = 0;
    for (float x : v) {
      max = Math.max(max, Math.abs(x));
    }
    return max;
  }

  /** The plain loop of {@link #round}: the fallback and the tests' reference. */
  static void scalarRound(float[] v, float inverse, byte[] code) {
    for (int i = 0; i < v.length; i++) {
      code[i] = round(v[i], inverse);
    }
  }
}
