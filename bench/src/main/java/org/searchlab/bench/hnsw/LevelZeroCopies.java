package org.searchlab.bench.hnsw;

import java.util.Arrays;
import org.apache.lucene.util.NumericUtils;

/**
 * What the search of the read-only bottom-level copy ({@link FlatLevelZero}) needs besides the
 * graph's own {@code VisitedSet} and {@code BeamPool}: (score, node) codes, the binary heaps over
 * them and a bounded set of the best results.
 *
 * <p>A code is a long: the score as a sortable int in the high half, the node in the low, so codes
 * order as their scores, ties by node.
 *
 * <p>Thread-safety: the static methods are stateless; a {@link Best} belongs to one searching
 * thread.
 */
final class LevelZeroCopies {
  private LevelZeroCopies() {}

  static long encode(int node, float score) {
    return ((long) NumericUtils.floatToSortableInt(score) << 32) | (node & 0xFFFFFFFFL);
  }

  static float score(long code) {
    return NumericUtils.sortableIntToFloat((int) (code >> 32));
  }

  static int node(long code) {
    return (int) code;
  }

  /** Adds {@code value} to the min-heap {@code heap[0, size)}; returns the new size. */
  static int siftUp(long[] heap, int size, long value) {
    int i = size;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (heap[parent] <= value) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = value;
    return size + 1;
  }

  /** Removes the smallest of the min-heap {@code heap[0, size)}; returns the new size. */
  static int removeTop(long[] heap, int size) {
    size--;
    heap[0] = heap[size];
    siftDown(heap, size);
    return size;
  }

  /** Restores the min-heap {@code heap[0, size)} after its top was replaced. */
  static void siftDown(long[] heap, int size) {
    if (size == 0) {
      return;
    }
    long value = heap[0];
    int i = 0;
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && heap[child + 1] < heap[child]) {
        child++;
      }
      if (heap[child] >= value) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = value;
  }

  /** The best codes offered, up to a capacity: a min-heap whose top is the worst kept. */
  static final class Best {
    private long[] heap = new long[256];
    private int size;

    void clear() {
      size = 0;
    }

    int size() {
      return size;
    }

    /** The worst kept code; only when {@link #size} is above 0. */
    long worst() {
      return heap[0];
    }

    /** Keeps the {@code capacity} best; returns whether {@code node} was kept. */
    boolean offer(int node, float s, int capacity) {
      long code = encode(node, s);
      if (size < capacity) {
        if (size == heap.length) {
          heap = Arrays.copyOf(heap, 2 * size);
        }
        size = siftUp(heap, size, code);
        return true;
      }
      if (code <= heap[0]) {
        return false;
      }
      heap[0] = code;
      siftDown(heap, size);
      return true;
    }

    /** Drops the worst kept code. */
    void popWorst() {
      size = removeTop(heap, size);
    }

    /** The kept codes, best first. */
    long[] bestFirst() {
      long[] out = Arrays.copyOf(heap, size);
      Arrays.sort(out);
      for (int i = 0, j = out.length - 1; i < j; i++, j--) {
        long t = out[i];
        out[i] = out[j];
        out[j] = t;
      }
      return out;
    }
  }
}
