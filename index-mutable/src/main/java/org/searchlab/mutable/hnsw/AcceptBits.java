package org.searchlab.mutable.hnsw;

/**
 * Which nodes a filtered vector search may return: a pre-filter, every returned node passes it.
 * Implementations must be safe to call from the searching thread while the writer mutates the index
 * (typically a snapshot of a filter's matches taken when the query started).
 */
@FunctionalInterface
public interface AcceptBits {
  /** Accepts every node; searches compare against this constant to skip filter work. */
  AcceptBits ALL = node -> true;

  /** Whether {@code node} may be returned. */
  boolean accept(int node);

  /**
   * The smallest accepted node in [{@code from}, {@code to}), or −1: what an exact scan of the
   * filter enumerates. This default asks {@link #accept} of every id; a filter backed by a bit set
   * overrides it to skip whole words.
   */
  default int nextAccepted(int from, int to) {
    for (int n = from; n < to; n++) {
      if (accept(n)) {
        return n;
      }
    }
    return -1;
  }
}
