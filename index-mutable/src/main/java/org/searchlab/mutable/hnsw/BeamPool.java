package org.searchlab.mutable.hnsw;

import org.apache.lucene.util.NumericUtils;

/**
 * The beam of an unfiltered search as one array sorted best first, in place of a candidate heap and
 * a result heap. It holds the {@code capacity} best (node, score) pairs seen so far, each with a
 * flag saying whether the search has expanded it, and a cursor at the best one not yet expanded.
 * The search expands that one, offers its unvisited neighbours, and stops when no entry is left
 * unexpanded. This is the bounded sorted list of DiskANN's and NSG's searches.
 *
 * <p>It expands the same nodes in the same order as the two heaps of Malkov &amp; Yashunin's
 * Algorithm 2 (as {@code HnswSearcher}'s filtered beam still runs it): the best candidate the heap
 * pops is in the result set exactly when it scores above the set's worst, and then it is this
 * array's best unexpanded entry. A candidate evicted from the results is never expanded by either,
 * except one that ties the new worst score, which the heaps still expand and this array has
 * dropped. What differs is the bookkeeping: a pair that enters is placed by a binary search and a
 * shift of the entries below it, and taking the next candidate moves a cursor, where the heaps sift
 * each entry twice (into both heaps) and sift again at every pop and eviction.
 *
 * <p>An entry is a long: the score as a sortable int in the high 32 bits, then the node shifted
 * left by one, then the expanded flag in bit 0. Setting the flag raises an entry by one, which
 * keeps the order, since two entries of one score differ by at least two. Ties order by node, as in
 * {@link ScoreHeap}.
 *
 * <p>Thread-safety: none; owned by one searcher and reused across searches.
 */
public final class BeamPool {
  private long[] entries = new long[64];
  private int size;
  private int capacity;
  // The first entry not expanded, or size when every entry is.
  private int cursor;

  /** Empties the pool and bounds it to {@code capacity} entries. */
  public void reset(int capacity) {
    if (entries.length < capacity + 1) {
      entries = new long[Math.max(capacity + 1, entries.length * 2)];
    }
    this.capacity = capacity;
    size = 0;
    cursor = 0;
  }

  public static long encode(int node, float score) {
    return ((long) NumericUtils.floatToSortableInt(score) << 32) | ((long) node << 1);
  }

  public static int node(long entry) {
    return (int) entry >>> 1;
  }

  public static float score(long entry) {
    return NumericUtils.sortableIntToFloat((int) (entry >> 32));
  }

  public int size() {
    return size;
  }

  /** The entry at rank {@code i} (0 is the best). */
  public long get(int i) {
    return entries[i];
  }

  /** Whether the pool is full and {@code score} does not beat its worst entry's score. */
  public boolean below(float score) {
    return size == capacity && !(score > score(entries[size - 1]));
  }

  /**
   * Offers (node, score): kept when the pool has room or the pair orders above the worst entry,
   * which it then replaces.
   */
  public void offer(int node, float score) {
    long e = encode(node, score);
    int n = size;
    if (n == capacity) {
      if (e <= entries[n - 1]) {
        return;
      }
      n--; // the worst entry falls off the end
    }
    // The first position whose entry orders below e (entries descend), branch-free (Khuong and
    // Morin's lower bound): where an entry lands is random, so a search that branches on each
    // comparison mispredicts about half of them.
    int lo = 0;
    if (n > 0) {
      int len = n;
      while (len > 1) {
        int half = len >>> 1;
        lo = entries[lo + half] > e ? lo + half : lo;
        len -= half;
      }
      lo += entries[lo] > e ? 1 : 0;
    }
    System.arraycopy(entries, lo, entries, lo + 1, n - lo);
    entries[lo] = e;
    size = n + 1;
    if (lo < cursor) {
      cursor = lo; // the new entry is the best unexpanded one
    }
  }

  /** Whether an entry is left to expand. */
  public boolean hasNext() {
    return cursor < size;
  }

  /** Marks the best unexpanded entry expanded and returns its node. */
  public int next() {
    int at = cursor;
    long e = entries[at] | 1L;
    entries[at] = e;
    int c = at + 1;
    while (c < size && (entries[c] & 1L) != 0) {
      c++;
    }
    cursor = c;
    return node(e);
  }

  /** The node that {@link #next} gives next, or −1 when none is left. */
  public int peekNode() {
    return cursor < size ? node(entries[cursor]) : -1;
  }
}
