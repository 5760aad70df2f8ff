package org.searchlab.mutable.hnsw;

import java.util.Arrays;

/**
 * The set of nodes a search has already scored: a bit set (12.5 KB for 100k nodes, so it stays in
 * the L1/L2 cache, unlike an int per node) that remembers which words it touched, so that clearing
 * it costs the words touched rather than the whole graph. Reused across searches, so a query
 * allocates nothing proportional to the graph.
 *
 * <p>Public for hnsw-bench's read-only copies of a graph, which search as the graph does.
 *
 * <p>Thread-safety: none; owned by one searcher.
 */
public final class VisitedSet {
  private long[] bits = new long[0];
  private int[] touched = new int[64];
  private int touchedCount;
  private int capacity;

  /** Starts a new, empty set able to hold ids below {@code capacity}. */
  public void reset(int capacity) {
    int words = (capacity + 63) >>> 6;
    if (touchedCount > bits.length >>> 4) {
      Arrays.fill(bits, 0L);
    } else {
      for (int i = 0; i < touchedCount; i++) {
        bits[touched[i]] = 0L;
      }
    }
    touchedCount = 0;
    if (bits.length < words) {
      bits = new long[Math.max(words, bits.length + (bits.length >> 1))];
    }
    this.capacity = capacity;
  }

  /** Marks {@code node}; returns false when it was already marked or is beyond the capacity. */
  public boolean visit(int node) {
    if (node >= capacity) {
      return false;
    }
    int w = node >>> 6;
    long word = bits[w];
    long mask = 1L << node;
    if ((word & mask) != 0) {
      return false;
    }
    if (word == 0) {
      if (touchedCount == touched.length) {
        touched = Arrays.copyOf(touched, touchedCount * 2);
      }
      touched[touchedCount++] = w;
    }
    bits[w] = word | mask;
    return true;
  }

  public boolean contains(int node) {
    return node < capacity && (bits[node >>> 6] & (1L << node)) != 0;
  }
}
