package org.searchlab.bench.experiment;

import java.io.IOException;
import java.util.Map;
import org.searchlab.core.VectorVisits;

/**
 * A store's vector searches and the vectors they scored, as its {@code /_admin/stats} counters give
 * them ({@link VectorVisits}), or their difference over a cell: {@link #perSearch} is then the
 * vectors one search scored, the "hops × degree" that makes a graph search's cost grow with the
 * index (design-68 §4.2 step 6). Immutable; thread-safe.
 *
 * @param searches vector searches, ≥ 0 for a difference over a cell
 * @param visited the vectors those searches scored
 */
record CellVisits(long searches, long visited) {
  /** The server's counts so far, or null when it does not count them (another engine). */
  static CellVisits read(Session s) throws IOException, InterruptedException {
    Map<String, Long> c = s.admin.adminSection("counters");
    Long searches = c.get(VectorVisits.SEARCHES);
    Long visited = c.get(VectorVisits.VISITED);
    return searches == null || visited == null ? null : new CellVisits(searches, visited);
  }

  /** this − {@code before}: the searches and visits between two reads. */
  CellVisits minus(CellVisits before) {
    return new CellVisits(searches - before.searches, visited - before.visited);
  }

  /** The sum of two cells' counts, for a summary over rounds. */
  CellVisits plus(CellVisits other) {
    return new CellVisits(searches + other.searches, visited + other.visited);
  }

  /** Visited vectors per search, null when no search was counted. */
  Double perSearch() {
    return searches <= 0 ? null : (double) visited / searches;
  }
}
