package org.searchlab.mutable.hnsw;

import java.util.Arrays;

/**
 * The set of nodes a search has already scored, cleared in O(1) by bumping a generation: a node is
 * visited when its stamp equals the current generation. Reused across searches so that a query
 * allocates nothing proportional to the graph.
 *
 * <p>Thread-safety: none; owned by one searcher.
 */
final class VisitedSet {
  private int[] stamps = new int[0];
  private int generation;

  /** Starts a new, empty set able to hold ids below {@code capacity}. */
  void reset(int capacity) {
    if (stamps.length < capacity) {
      stamps = new int[Math.max(capacity, stamps.length + (stamps.length >> 1))];
      generation = 0;
    }
    if (++generation == Integer.MAX_VALUE) {
      Arrays.fill(stamps, 0);
      generation = 1;
    }
  }

  /** Marks {@code node}; returns false when it was already marked or is beyond the capacity. */
  boolean visit(int node) {
    int[] s = stamps;
    if (node >= s.length || s[node] == generation) {
      return false;
    }
    s[node] = generation;
    return true;
  }

  boolean contains(int node) {
    return node < stamps.length && stamps[node] == generation;
  }
}
