package org.searchlab.core;

/**
 * The plan a store used for each part of a query, as a short human-readable name. Stores use the
 * constants below where they fit and may add detail after a colon (for example {@code
 * "lucene-hnsw:exact-fallback 3/20 segments"}).
 *
 * @param lexical the lexical plan, {@link #NONE} when the query had no lexical part
 * @param vector the vector plan, {@link #NONE} when the query had no vector part
 */
public record QueryPlan(String lexical, String vector) {
  public static final String NONE = "none";

  /** Vector: plain (possibly filtered) HNSW graph search. */
  public static final String HNSW = "hnsw";

  /** Vector: graph search that explores filter-passing nodes first (ACORN-1 style). */
  public static final String FILTER_FIRST = "filter-first";

  /** Vector: exact scan of the documents passing the filter. */
  public static final String EXACT = "exact";

  /** Lexical: exhaustive evaluation of every matching posting. */
  public static final String EXHAUSTIVE = "exhaustive";

  /**
   * Lexical: Lucene's own top-k pruning with block-max bounds (a MaxScore or WAND scorer, whichever
   * Lucene picks for the query's shape).
   */
  public static final String LUCENE_PRUNED = "lucene-block-max";

  /**
   * Lexical: block-max MaxScore (Turtle and Flood's MaxScore with per-block bounds, as Lucene's
   * {@code MaxScoreBulkScorer}).
   */
  public static final String BLOCK_MAX_MAXSCORE = "block-max-maxscore";

  /** Lexical / unranked: the filter alone enumerates the candidates. */
  public static final String FILTER_SCAN = "filter-scan";

  public static final QueryPlan EMPTY = new QueryPlan(NONE, NONE);
}
