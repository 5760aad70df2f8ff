package org.searchlab.mutable.query;

/**
 * The {@code k} best (score, ordinal) pairs offered so far, in a binary min-heap; among equal
 * scores the lower ordinal is kept, so the result does not depend on the order of the offers. Not
 * thread-safe.
 */
final class TopK {
  private final float[] scores;
  private final int[] ordinals;
  private int size;

  /** A heap for the {@code k} best entries; {@code k} ≥ 1. */
  TopK(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k " + k + " must be ≥ 1");
    }
    scores = new float[k];
    ordinals = new int[k];
  }

  /** The score a new entry must beat once full (−∞ before). */
  float threshold() {
    return size < scores.length ? Float.NEGATIVE_INFINITY : scores[0];
  }

  void offer(float score, int ordinal) {
    if (size < scores.length) {
      int i = size++;
      scores[i] = score;
      ordinals[i] = ordinal;
      siftUp(i);
    } else if (score > scores[0] || (score == scores[0] && ordinal < ordinals[0])) {
      scores[0] = score;
      ordinals[0] = ordinal;
      siftDown(0);
    }
  }

  /** Whether a is worse than b: lower score, or equal score and higher ordinal. */
  private boolean worse(int a, int b) {
    return scores[a] < scores[b] || (scores[a] == scores[b] && ordinals[a] > ordinals[b]);
  }

  private void siftUp(int i) {
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!worse(i, parent)) {
        return;
      }
      swap(i, parent);
      i = parent;
    }
  }

  private void siftDown(int i) {
    while (true) {
      int l = 2 * i + 1;
      if (l >= size) {
        return;
      }
      int worst = l;
      if (l + 1 < size && worse(l + 1, l)) {
        worst = l + 1;
      }
      if (!worse(worst, i)) {
        return;
      }
      swap(i, worst);
      i = worst;
    }
  }

  private void swap(int a, int b) {
    float s = scores[a];
    scores[a] = scores[b];
    scores[b] = s;
    int o = ordinals[a];
    ordinals[a] = ordinals[b];
    ordinals[b] = o;
  }

  /** Empties the heap into best-first arrays: {@code [0]} ordinals, scores via {@code out}. */
  int[] drainBestFirst(float[][] scoresOut) {
    int n = size;
    int[] ords = new int[n];
    float[] sc = new float[n];
    for (int i = n - 1; i >= 0; i--) {
      ords[i] = ordinals[0];
      sc[i] = scores[0];
      size--;
      if (size > 0) {
        scores[0] = scores[size];
        ordinals[0] = ordinals[size];
        siftDown(0);
      }
    }
    scoresOut[0] = sc;
    return ords;
  }
}
