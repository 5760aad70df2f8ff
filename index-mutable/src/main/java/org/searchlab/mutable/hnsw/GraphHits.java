package org.searchlab.mutable.hnsw;

/**
 * The result of one graph search: nodes in descending score order, their closeness scores, the plan
 * that produced them and the work done. Immutable by convention (the arrays are owned by the result
 * and must not be modified).
 *
 * @param nodes node ids, best first; at most {@code k}
 * @param scores closeness {@code (1 + dot) / 2} of each node, parallel to {@code nodes}
 * @param plan one of {@link org.searchlab.core.QueryPlan#HNSW}, {@link
 *     org.searchlab.core.QueryPlan#FILTER_FIRST}, {@link org.searchlab.core.QueryPlan#EXACT}
 * @param visited number of vectors whose distance to the query was computed
 */
public record GraphHits(int[] nodes, float[] scores, String plan, int visited) {
  public GraphHits {
    if (nodes.length != scores.length) {
      throw new IllegalArgumentException(
          "nodes (" + nodes.length + ") and scores (" + scores.length + ") differ in length");
    }
  }

  /** The number of hits. */
  public int size() {
    return nodes.length;
  }
}
