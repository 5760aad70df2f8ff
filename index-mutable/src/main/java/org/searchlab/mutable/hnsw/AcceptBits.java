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
}
