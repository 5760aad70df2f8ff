package org.searchlab.core;

import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * An index's count of its vector searches and of the vectors they scored, reported among the
 * index's {@link IndexStats#counters()} as {@value #SEARCHES} and {@value #VISITED}. Both only grow
 * while the index is open (from zero at open, as every counter), so a reader takes Δvisited ÷
 * Δsearches over an interval: the vectors one search scores, which is what makes a graph search
 * grow with the index (hops × degree) while an exact scan grows with the filter's matches.
 *
 * <p>What counts as visited: every vector whose distance to the query was computed, by the graph
 * walk or by an exact scan (a plan that scans, a filter too selective for the graph, or a graph
 * search that gave up and scanned); the mutable store's {@code GraphHits.visited}, the segmented
 * store's per-segment approximate {@code TopDocs.totalHits} (Lucene's {@code
 * KnnCollector.visitedCount}) plus the vectors its exact scans scored. A search is one approximate
 * k-nearest neighbour clause of a request: a hybrid request counts one, a request with two {@code
 * knn} clauses two; a request that asks for an exact scan ({@link SearchRequest#approximate()}
 * false) is counted by neither store. A search with no vector to score (an empty index, a filter
 * that accepts nothing) may count as a search of 0 visits or not at all, by store.
 *
 * <p>Thread-safe: searches on any number of threads add to {@link LongAdder}s; a report reads the
 * two without a lock, so a report taken while searches run may count a search whose visits it does
 * not hold yet (or the reverse).
 */
public final class VectorVisits {
  /** The counter of vector searches. */
  public static final String SEARCHES = "vector_searches";

  /** The counter of vectors those searches scored. */
  public static final String VISITED = "vector_visited_nodes";

  private final LongAdder searches = new LongAdder();
  private final LongAdder visited = new LongAdder();

  /** One search that scored {@code vectors} vectors. */
  public void searched(long vectors) {
    visited(vectors);
    searches.increment();
  }

  /** One search begins; its visits follow through {@link #visited}, as its segments report them. */
  public void searchStarted() {
    searches.increment();
  }

  /** {@code vectors} more vectors scored by a search already counted. */
  public void visited(long vectors) {
    if (vectors < 0) {
      throw new IllegalArgumentException("visited vectors " + vectors + " is negative");
    }
    visited.add(vectors);
  }

  /** Searches so far. */
  public long searches() {
    return searches.sum();
  }

  /** Vectors scored so far. */
  public long visitedVectors() {
    return visited.sum();
  }

  /** Adds both counters to a stats report's counters. */
  public void report(Map<String, Long> counters) {
    counters.put(SEARCHES, searches());
    counters.put(VISITED, visitedVectors());
  }
}
