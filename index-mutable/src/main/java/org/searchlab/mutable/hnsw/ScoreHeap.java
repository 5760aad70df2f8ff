package org.searchlab.mutable.hnsw;

import java.util.Arrays;
import org.apache.lucene.util.NumericUtils;

/**
 * A binary heap of (node, score) pairs packed into longs, without boxing: the high 32 bits hold the
 * score as a sortable int, the low 32 bits the node. A min-heap keeps the lowest score on top (the
 * bounded result set of a beam search); a max-heap keeps the highest (the candidate frontier), by
 * storing the bitwise complement of the code. Ties order by node id.
 *
 * <p>Thread-safety: none; owned by one searcher and reused across searches (that is the point).
 */
final class ScoreHeap {
  private final boolean max;
  private long[] heap = new long[64];
  private int size;

  ScoreHeap(boolean max) {
    this.max = max;
  }

  static long encode(int node, float score) {
    return ((long) NumericUtils.floatToSortableInt(score) << 32) | (node & 0xFFFFFFFFL);
  }

  static int node(long code) {
    return (int) code;
  }

  static float score(long code) {
    return NumericUtils.sortableIntToFloat((int) (code >> 32));
  }

  int size() {
    return size;
  }

  void clear() {
    size = 0;
  }

  private long stored(int node, float score) {
    long code = encode(node, score);
    return max ? ~code : code;
  }

  private long code(long stored) {
    return max ? ~stored : stored;
  }

  void push(int node, float score) {
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, size * 2);
    }
    long v = stored(node, score);
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      long p = heap[parent];
      if (p <= v) {
        break;
      }
      heap[i] = p;
      i = parent;
    }
    heap[i] = v;
  }

  /**
   * Adds the pair when the heap holds fewer than {@code capacity} entries, else replaces the top if
   * the pair orders after it. Returns whether the pair was kept. Used as a min-heap of results.
   */
  boolean insertWithOverflow(int node, float score, int capacity) {
    if (size < capacity) {
      push(node, score);
      return true;
    }
    long v = stored(node, score);
    if (v <= heap[0]) {
      return false;
    }
    heap[0] = v;
    siftDown();
    return true;
  }

  /** The top's packed code (node and score), without removing it. */
  long topCode() {
    return code(heap[0]);
  }

  float topScore() {
    return score(code(heap[0]));
  }

  int topNode() {
    return node(code(heap[0]));
  }

  /** Removes the top and returns its packed code. */
  long pop() {
    long top = heap[0];
    size--;
    if (size > 0) {
      heap[0] = heap[size];
      siftDown();
    }
    return code(top);
  }

  /**
   * Empties the heap into {@code out} (at least {@link #size()} long) in no particular order, as
   * the codes {@link #pop} would have returned, and returns how many: for a caller that sorts them
   * anyway, without a sift per entry.
   */
  int drain(long[] out) {
    int n = size;
    for (int i = 0; i < n; i++) {
      out[i] = code(heap[i]);
    }
    size = 0;
    return n;
  }

  /**
   * Removes entries from the top until at most {@code count} are left: for a min-heap, the {@code
   * count} best stay. When the backing array is sorted (see {@link #drainBestFirst}) the best are
   * its last {@code count}, moved to the front in one copy; otherwise each removal is a {@link
   * #pop}.
   */
  void keepBest(int count) {
    assert !max : "the best of a max-heap are its top";
    int n = size;
    if (n <= count) {
      return;
    }
    if (isSorted()) {
      System.arraycopy(heap, n - count, heap, 0, count);
      size = count;
    } else {
      while (size > count) {
        pop();
      }
    }
  }

  private boolean isSorted() {
    for (int i = 1; i < size; i++) {
      if (heap[i - 1] > heap[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Empties the heap into {@code nodes} and {@code scores}, best first: the order of as many {@link
   * #pop}s read backwards, for a min-heap. The backing array is sorted instead of sifted once per
   * entry; a heap filled in ascending order (as {@code HnswSearcher}'s sorted beam leaves its
   * results) is already sorted, which one pass sees.
   */
  void drainBestFirst(int[] nodes, float[] scores) {
    assert !max : "best first is the order of a min-heap read backwards";
    int n = size;
    if (!isSorted()) {
      Arrays.sort(heap, 0, n);
    }
    for (int i = 0; i < n; i++) {
      long code = heap[n - 1 - i];
      nodes[i] = node(code);
      scores[i] = score(code);
    }
    size = 0;
  }

  private void siftDown() {
    long v = heap[0];
    int i = 0;
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      long c = heap[child];
      int right = child + 1;
      if (right < size && heap[right] < c) {
        child = right;
        c = heap[right];
      }
      if (v <= c) {
        break;
      }
      heap[i] = c;
      i = child;
    }
    heap[i] = v;
  }
}
