package org.searchlab.bench.data;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The exact {@code K} nearest other documents of every document of a base corpus, by dot product,
 * best first: the neighbourhoods {@link NeighbourMixes} draws a generated document's parents from.
 * Computed once by brute force ({@link ExactNeighbours}; B² × d multiply-adds, about 1.6·10¹² for
 * Debian's 63,696 384-d vectors, a few minutes on 2 cores) and cached in {@code neighbours-<sha256
 * of the vectors and K>.ivecs}. Stateless.
 */
final class BaseNeighbours {
  private BaseNeighbours() {}

  /** The {@code k} nearest other documents of each of {@code base}, computed. */
  static int[][] compute(float[][] base, int k, int threads) {
    if (k < 1 || k >= base.length) {
      throw new IllegalArgumentException(
          "neighbours " + k + " must be in [1, " + (base.length - 1) + "] for this base");
    }
    int[] self = new int[base.length];
    for (int i = 0; i < self.length; i++) {
      self[i] = i;
    }
    return ExactNeighbours.topK(base, base, self, k, threads).neighbours();
  }

  /** {@link #compute}, read from {@code cacheDir} when the same vectors and {@code k} were seen. */
  static int[][] cached(float[][] base, int k, Path cacheDir, int threads, PrintStream log)
      throws IOException {
    Path file = cacheDir.resolve("neighbours-" + key(base, k) + ".ivecs");
    if (Files.isRegularFile(file)) {
      int[][] n = VecsFiles.readIvecs(file);
      if (n.length == base.length) {
        log.println("base neighbours: read from " + file);
        return n;
      }
    }
    long start = System.nanoTime();
    int[][] n = compute(base, k, threads);
    log.printf(
        "base neighbours: %d nearest of %,d documents in %.1f s%n",
        k, base.length, (System.nanoTime() - start) / 1e9);
    Files.createDirectories(cacheDir);
    // Written under a temporary name and moved, so a half-written file is never taken for a whole.
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (VecsFiles.Writer w = new VecsFiles.Writer(tmp)) {
      for (int[] row : n) {
        w.write(row);
      }
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return n;
  }

  private static String key(float[][] base, int k) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    ByteBuffer b = ByteBuffer.allocate(4 * base[0].length).order(ByteOrder.LITTLE_ENDIAN);
    for (float[] v : base) {
      b.clear();
      b.asFloatBuffer().put(v);
      digest.update(b.array(), 0, 4 * v.length);
    }
    digest.update(ByteBuffer.allocate(4).putInt(k).array());
    return HexFormat.of().formatHex(digest.digest()).substring(0, 32);
  }
}
