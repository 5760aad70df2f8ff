package org.searchlab.core;

/**
 * How hits are matched and scored; the names are the benchmark's Vespa rank profiles.
 *
 * <ul>
 *   <li>{@link #BM25}: lexical only; OR over query tokens in title and description, score =
 *       max(BM25(title), BM25(description)).
 *   <li>{@link #CLOSENESS}: vector only; score = (1 + dot) / 2 over the approximate top-{@code
 *       targetHits} neighbours.
 *   <li>{@link #HYBRID}: candidates = lexical matches ∪ vector top-{@code targetHits}; score by
 *       {@link Fusion}.
 *   <li>{@link #UNRANKED}: every document passing the filter, score 1 (Elasticsearch {@code
 *       match_all}); order unspecified.
 * </ul>
 */
public enum RankProfile {
  BM25,
  CLOSENESS,
  HYBRID,
  UNRANKED;

  /** Parses a Vespa-style profile name ({@code bm25}, {@code closeness}, {@code hybrid}). */
  public static RankProfile parse(String name) {
    for (RankProfile p : values()) {
      if (p.name().equalsIgnoreCase(name)) {
        return p;
      }
    }
    throw new InvalidRequestException(
        "unknown rank profile '" + name + "'; expected bm25, closeness, hybrid or unranked");
  }
}
