package org.searchlab.core.query;

/**
 * How a search with several ranked parts (a query and kNN searches) combines them.
 *
 * <ul>
 *   <li>{@link Kind#SUM}: the union of the parts' matches, each document scored by the sum of its
 *       scores in the parts it is in (Elasticsearch's {@code query} + {@code knn}; Vespa's {@code
 *       bm25 + closeness});
 *   <li>{@link Kind#RRF}: reciprocal rank fusion (Cormack et al. 2009), Σ 1 / ({@code rankConstant}
 *       + rank) over the top {@code windowSize} of each part, rank from 1 (Elasticsearch's {@code
 *       retriever.rrf} and {@code rank.rrf}).
 * </ul>
 *
 * @param windowSize how many top results of each part fusion reads; 0 for the default, {@code max(k
 *     of the kNN parts, from + size)}
 */
public record Rank(Kind kind, int rankConstant, int windowSize) {
  /** Elasticsearch's default {@code rank_constant}. */
  public static final int DEFAULT_RANK_CONSTANT = 60;

  public static final Rank SUM = new Rank(Kind.SUM, 0, 0);

  /** RRF with Elasticsearch's rank constant and the default window. */
  public static final Rank RRF = new Rank(Kind.RRF, DEFAULT_RANK_CONSTANT, 0);

  public enum Kind {
    SUM,
    RRF
  }

  public Rank {
    if (kind == Kind.RRF && rankConstant < 1) {
      throw new org.searchlab.core.InvalidRequestException(
          "[rank_constant] " + rankConstant + " must be at least 1");
    }
    if (windowSize < 0) {
      throw new org.searchlab.core.InvalidRequestException(
          "[rank_window_size] " + windowSize + " is negative");
    }
  }

  /** Reciprocal rank fusion with these parameters. */
  public static Rank rrf(int rankConstant, int windowSize) {
    return new Rank(Kind.RRF, rankConstant, windowSize);
  }

  public boolean isRrf() {
    return kind == Kind.RRF;
  }
}
