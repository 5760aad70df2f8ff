package org.searchlab.mutable.hnsw;

/**
 * The result of one graph search: nodes in descending score order, their scores, the plan that
 * produced them and the work done. Immutable by convention (the arrays are owned by the result and
 * must not be modified).
 *
 * @param nodes node ids, best first; at most {@code k}
 * @param scores the {@code _score} of each node for the graph's similarity ({@link
 *     org.searchlab.core.mapping.VectorSimilarity#fromRaw}, over the float vectors: {@code (1 +
 *     dot) / 2} for {@code dot_product}), parallel to {@code nodes}
 * @param plan one of {@link org.searchlab.core.QueryPlan#HNSW}, {@link
 *     org.searchlab.core.QueryPlan#FILTER_FIRST}, {@link org.searchlab.core.QueryPlan#EXACT}
 * @param visited number of vectors whose distance to the query was computed
 * @param found how many hits the search found, at most {@code k}: {@code nodes.length}, unless the
 *     caller asked for fewer shown hits (then {@code nodes} holds the best of them, which the exact
 *     plan ranks without scoring the rest by their floats)
 * @param rescored how many candidates were scored again by their floats: the exact plan's vectors
 *     whose bracket reached the top k, or a quantized beam's rescoring window (with 1-bit codes,
 *     the depth its error bounds chose)
 */
public record GraphHits(
    int[] nodes, float[] scores, String plan, int visited, int found, int rescored) {
  public GraphHits {
    if (nodes.length != scores.length) {
      throw new IllegalArgumentException(
          "nodes (" + nodes.length + ") and scores (" + scores.length + ") differ in length");
    }
    if (found < nodes.length) {
      throw new IllegalArgumentException(
          "found (" + found + ") is less than the " + nodes.length + " hits");
    }
  }

  /** Hits that are all the search found, none rescored. */
  public GraphHits(int[] nodes, float[] scores, String plan, int visited) {
    this(nodes, scores, plan, visited, nodes.length, 0);
  }

  /** The number of hits. */
  public int size() {
    return nodes.length;
  }
}
