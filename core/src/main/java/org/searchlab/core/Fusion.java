package org.searchlab.core;

/**
 * How a hybrid query combines its lexical and vector parts.
 *
 * <ul>
 *   <li>{@link #SUM}: lexical score (0 if not matched) + vector score (0 if not among the vector
 *       hits): the Elasticsearch {@code query} + {@code knn} semantics and Vespa's {@code best_bm25
 *       + closeness}.
 *   <li>{@link #RRF}: reciprocal rank fusion, Σ 1 / ({@value #RRF_K} + rank), rank starting at 1,
 *       over the top {@code max(targetHits, offset + hits)} of each part.
 * </ul>
 */
public enum Fusion {
  SUM,
  RRF;

  /** The rank constant of reciprocal rank fusion (Cormack et al. 2009; Elasticsearch's default). */
  public static final int RRF_K = 60;

  public static Fusion parse(String name) {
    for (Fusion f : values()) {
      if (f.name().equalsIgnoreCase(name)) {
        return f;
      }
    }
    throw new InvalidRequestException("unknown fusion '" + name + "'; expected sum or rrf");
  }
}
