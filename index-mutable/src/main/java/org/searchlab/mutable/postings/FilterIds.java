package org.searchlab.mutable.postings;

/**
 * The ids a filter lets through, as an iterator a query can leap-frog with its postings: Lucene's
 * {@code DocIdSetIterator} in a {@code ConjunctionDISI}, where a FILTER clause and the scoring
 * clauses take turns advancing to each other's next id, so a document outside the filter is never
 * scored. Implementations must be cheap to advance (a bit set's next set bit) and are used by one
 * thread at a time.
 */
@FunctionalInterface
public interface FilterIds {
  /** What {@link #advance} returns when no candidate is left. */
  int NO_MORE = Integer.MAX_VALUE;

  /** No filter: every id is a candidate (advancing returns the target itself). */
  FilterIds ALL = target -> target;

  /** The first candidate id at or after {@code target}, or {@link #NO_MORE} when there is none. */
  int advance(int target);
}
