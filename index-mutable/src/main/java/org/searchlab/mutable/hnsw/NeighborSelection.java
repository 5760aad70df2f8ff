package org.searchlab.mutable.hnsw;

/**
 * The neighbour selection heuristic of Malkov &amp; Yashunin (Algorithm 4, without extending the
 * candidates and without keeping pruned connections): walk the candidates from the closest, and
 * keep one unless it is strictly closer to an already kept neighbour than to the base node.
 *
 * <p>The comparison is strict on purpose, as in hnswlib and unlike Lucene ({@code >=}): with exact
 * duplicate vectors, a candidate is exactly as close to a kept duplicate of the base as to the base
 * itself, and a non-strict test would prune every candidate after the first duplicate, leaving the
 * new node linked only to its twins.
 *
 * <p>Thread-safety: stateless; reads vectors through the lock-free {@link VectorStore}.
 */
final class NeighborSelection {
  private NeighborSelection() {}

  /**
   * Selects at most {@code max} diverse neighbours from candidates sorted by descending score.
   *
   * @param similarity the graph's similarity, whose raw scores {@code scores} are
   * @param ids candidate nodes, best first
   * @param scores their raw scores with the base node (dot products, or negated squared distances)
   * @param count how many candidates are valid
   * @param out receives the selected nodes (length {@code max})
   * @param outScores receives their scores
   * @param scratch holds the kept vectors' rows ({@link VectorStore#row}; length {@code max} or
   *     more)
   * @param copies where a candidate's floats are copied when the store must copy them ({@link
   *     VectorStore#row(int, float[])}): {@code copies[selected]}, so a kept vector's copy stays in
   *     place while the next candidate takes the next buffer (length {@code max}, each at least the
   *     dimension long)
   * @param dots holds the raw scores with them (the same length as {@code scratch})
   * @return the number selected
   */
  static int select(
      GraphSimilarity similarity,
      VectorStore vectors,
      int[] ids,
      float[] scores,
      int count,
      int max,
      int[] out,
      float[] outScores,
      float[][] scratch,
      float[][] copies,
      float[] dots) {
    int selected = 0;
    int dim = vectors.dimension();
    for (int i = 0; i < count && selected < max; i++) {
      float[] v = vectors.row(ids[i], copies[selected]);
      if (v == null) {
        continue;
      }
      float score = scores[i];
      boolean diverse = true;
      int j = 0;
      if (BulkDot.BATCHED) {
        // Four kept neighbours per pass: the candidate's vector (often a cache miss) is read once
        // for four distances, while the kept ones are already in cache.
        for (; diverse && j + 4 <= selected; j += 4) {
          similarity.raw4(v, scratch, dim, j, dots);
          diverse =
              !(dots[j] > score)
                  && !(dots[j + 1] > score)
                  && !(dots[j + 2] > score)
                  && !(dots[j + 3] > score);
        }
      }
      for (; diverse && j < selected; j++) {
        if (similarity.raw(v, scratch[j], dim) > score) {
          diverse = false;
        }
      }
      if (diverse) {
        scratch[selected] = v;
        out[selected] = ids[i];
        outScores[selected++] = score;
      }
    }
    return selected;
  }
}
