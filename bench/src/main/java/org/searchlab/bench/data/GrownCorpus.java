package org.searchlab.bench.data;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.searchlab.core.Document;

/**
 * What every {@link Grower}'s corpus shares: the base first, then document {@code B + j} as child
 * {@code r = j / B + 1} of the primary {@code π_r(j mod B)}, with {@code π_r} a seeded permutation
 * per round, so any prefix covers the base evenly and every base document has one child per round;
 * an iterator over the first {@code count} documents. Not thread-safe: a corpus is used by one
 * thread.
 */
abstract class GrownCorpus implements Iterator<Document> {
  final List<Document> base;
  final int[][] neighbours;
  final long seed;
  private final int count;
  private int round = -1;
  private int[] permutation;
  private int next;

  /**
   * @param base the base documents, with unit embeddings
   * @param neighbours per base document, at least {@code k} nearest other base documents, best
   *     first ({@link BaseNeighbours})
   * @param k how many neighbours per base document the generator reads
   * @param count documents to produce, base included
   */
  GrownCorpus(List<Document> base, int[][] neighbours, int k, int count, long seed) {
    if (base.size() < 2 || neighbours.length != base.size()) {
      throw new IllegalArgumentException(
          base.size() + " base documents and " + neighbours.length + " neighbour lists");
    }
    for (int[] n : neighbours) {
      if (n.length < k) {
        throw new IllegalArgumentException(
            "a neighbour list of " + n.length + " is shorter than K = " + k);
      }
    }
    this.base = base;
    this.neighbours = neighbours;
    this.count = count;
    this.seed = seed;
  }

  /** Document {@code i}. */
  abstract Document document(int i);

  @Override
  public boolean hasNext() {
    return next < count;
  }

  @Override
  public Document next() {
    if (next >= count) {
      throw new NoSuchElementException();
    }
    return document(next++);
  }

  /** The round of generated document {@code i} ≥ B: its primary's how-manieth child it is. */
  final int child(int i) {
    return (i - base.size()) / base.size() + 1;
  }

  /** The base ordinal of document {@code i}'s primary parent ({@code i} for a base document). */
  int primary(int i) {
    int b = base.size();
    return i < b ? i : permutation(child(i))[(i - b) % b];
  }

  private int[] permutation(int child) {
    if (child != round) {
      permutation = shuffled(base.size(), mix(seed ^ 0x5851F42D4C957F2DL, child, 0));
      round = child;
    }
    return permutation;
  }

  /**
   * Scales {@code v} to unit length with a plain loop in double. Not Lucene's {@code
   * VectorUtil.l2normalize}: its vectorised and scalar paths sum in different orders, so the same
   * document came out different in the last bit depending on whether the JIT had compiled it yet,
   * and a generated corpus must be the same every time (the build tests caught it, 2 seeds in 5).
   */
  static void normalize(float[] v) {
    double sq = 0;
    for (float x : v) {
      sq += (double) x * x;
    }
    if (sq > 0) {
      double inv = 1 / Math.sqrt(sq);
      for (int i = 0; i < v.length; i++) {
        v[i] = (float) (v[i] * inv);
      }
    }
  }

  /** A seeded permutation of {@code 0 … n−1} (Fisher–Yates). */
  static int[] shuffled(int n, long seed) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  /** A seed mixed from three numbers (SplitMix64's finaliser). */
  static long mix(long seed, long a, long b) {
    long z = seed * 0x9E3779B97F4A7C15L + a * 0xBF58476D1CE4E5B9L + b * 0x94D049BB133111EBL;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
