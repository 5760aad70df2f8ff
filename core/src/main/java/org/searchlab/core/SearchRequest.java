package org.searchlab.core;

import java.util.Arrays;
import java.util.Objects;

/**
 * One search, in the terms both dialects map onto. Build it with {@link #builder()}; {@link
 * #validate(Schema)} rejects bad input with the value and the limit. Immutable by convention (the
 * vector must not be modified after building).
 *
 * @param text the user query for the lexical part, or {@code null} when there is none
 * @param vector the query vector for the vector part (unit length), or {@code null}
 * @param filter the pre-filter; {@link Filter#ALL} for none
 * @param hits how many hits to return, 0 to {@value #MAX_WINDOW} − offset
 * @param offset how many top hits to skip
 * @param targetHits Vespa {@code targetHits}, Elasticsearch {@code k}: how many neighbours the
 *     vector part finds, 1 to {@value #MAX_CANDIDATES}
 * @param exploreAdditionalHits Vespa {@code hnsw.exploreAdditionalHits}, Elasticsearch {@code
 *     num_candidates − k}: extra candidates explored, so the graph search keeps a beam of {@code
 *     targetHits + exploreAdditionalHits}; higher is more accurate and slower
 * @param approximate whether the vector part may use the HNSW graph; false forces an exact scan
 * @param rankProfile how to match and score
 * @param fusion how a hybrid query combines its parts
 * @param trackTotalHitsUpTo count matches exactly up to this many, then report a lower bound
 *     (Elasticsearch {@code track_total_hits}, default 10,000); higher is slower for lexical
 *     queries
 * @param thresholds per-query plan thresholds for stores that choose plans by filter hit ratio
 * @param fetchDocuments whether each hit carries its stored document, read from the same
 *     point-in-time view the hit was scored in (Elasticsearch's fetch phase); false returns ids and
 *     scores only, which is cheaper
 * @param rescoreWindow over quantized vectors, how many of the best candidates by their quantized
 *     scores are rescored by their floats (Elasticsearch {@code ceil(k ×
 *     rescore_vector.oversample)}, Vespa {@code ranking.rerankCount}); the graph search keeps at
 *     least this many. 0 (the default) takes the store's {@code targetHits × oversample}; a window
 *     below {@code targetHits} counts as {@code targetHits}. Float vectors ignore it, as
 *     Elasticsearch ignores {@code rescore_vector} on a field that is not quantized
 */
public record SearchRequest(
    String text,
    float[] vector,
    Filter filter,
    int hits,
    int offset,
    int targetHits,
    int exploreAdditionalHits,
    boolean approximate,
    RankProfile rankProfile,
    Fusion fusion,
    int trackTotalHitsUpTo,
    FilterThresholds thresholds,
    boolean fetchDocuments,
    int rescoreWindow) {

  /** Elasticsearch's {@code index.max_result_window}: offset + hits may not exceed it. */
  public static final int MAX_WINDOW = 10_000;

  /** Elasticsearch's limit on {@code num_candidates}. */
  public static final int MAX_CANDIDATES = 10_000;

  /**
   * The largest {@link #rescoreWindow}: Elasticsearch's largest oversample (10) times its largest
   * {@code k} (10,000).
   */
  public static final int MAX_RESCORE_WINDOW = VectorQuantization.MAX_OVERSAMPLE * MAX_CANDIDATES;

  public static final int DEFAULT_HITS = 10;
  public static final int DEFAULT_TARGET_HITS = 10;
  public static final int DEFAULT_TRACK_TOTAL_HITS = 10_000;

  /**
   * Elasticsearch's {@code indices.query.bool.max_clause_count} before 8.0 and Lucene's {@code
   * IndexSearcher} default: the term clauses (query tokens × text fields) one text query may expand
   * to.
   */
  public static final int DEFAULT_MAX_CLAUSE_COUNT = 1024;

  /**
   * The clause limit every store applies, through {@link #validate}. Process-wide like Lucene's
   * {@code IndexSearcher.setMaxClauseCount}; volatile, so a change is seen by every search thread.
   */
  private static volatile int maxClauseCount = DEFAULT_MAX_CLAUSE_COUNT;

  /** The clause limit {@link #validate} applies. */
  public static int maxClauseCount() {
    return maxClauseCount;
  }

  /**
   * Sets the clause limit for the whole process (a server's startup flag), 1 to 1,048,576; higher
   * admits longer text queries and costs more per query.
   */
  public static void setMaxClauseCount(int n) {
    if (n < 1 || n > 1 << 20) {
      throw new InvalidRequestException("max clause count " + n + " is outside [1, 1048576]");
    }
    maxClauseCount = n;
  }

  public SearchRequest {
    Objects.requireNonNull(filter, "filter: use Filter.ALL for no filter");
    Objects.requireNonNull(rankProfile, "rankProfile");
    Objects.requireNonNull(fusion, "fusion");
    Objects.requireNonNull(thresholds, "thresholds: use FilterThresholds.INDEX_DEFAULT");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder preloaded with this request's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.text = text;
    b.vector = vector;
    b.filter = filter;
    b.hits = hits;
    b.offset = offset;
    b.targetHits = targetHits;
    b.exploreAdditionalHits = exploreAdditionalHits;
    b.approximate = approximate;
    b.rankProfile = rankProfile;
    b.fusion = fusion;
    b.trackTotalHitsUpTo = trackTotalHitsUpTo;
    b.thresholds = thresholds;
    b.fetchDocuments = fetchDocuments;
    b.rescoreWindow = rescoreWindow;
    return b;
  }

  /** Whether the lexical part runs. */
  public boolean hasLexicalPart() {
    return rankProfile == RankProfile.BM25 || rankProfile == RankProfile.HYBRID;
  }

  /** Whether the vector part runs. */
  public boolean hasVectorPart() {
    return rankProfile == RankProfile.CLOSENESS || rankProfile == RankProfile.HYBRID;
  }

  /** The beam width of the vector part: {@code targetHits + exploreAdditionalHits}. */
  public int candidates() {
    return targetHits + exploreAdditionalHits;
  }

  /**
   * The candidates a quantized vector search rescores by their floats: {@link #rescoreWindow} when
   * the request sets one, else {@code targetHits × defaultOversample}; never fewer than {@code
   * targetHits}.
   *
   * @param defaultOversample the store's oversample (its {@code --oversample}), 1 to 10
   */
  public int rescoreWindow(int defaultOversample) {
    long window = rescoreWindow > 0 ? rescoreWindow : (long) targetHits * defaultOversample;
    return (int) Math.max(targetHits, Math.min(window, MAX_RESCORE_WINDOW));
  }

  /** How many top results of each part reciprocal rank fusion looks at. */
  public int rrfWindow() {
    return Math.max(targetHits, offset + hits);
  }

  /**
   * Checks the request against the schema and the limits; returns it unchanged. Throws {@link
   * InvalidRequestException} naming the value and the limit.
   */
  public SearchRequest validate(Schema schema) {
    if (hits < 0) {
      throw new InvalidRequestException("hits " + hits + " is negative");
    }
    if (offset < 0) {
      throw new InvalidRequestException("offset " + offset + " is negative");
    }
    if ((long) offset + hits > MAX_WINDOW) {
      throw new InvalidRequestException(
          "offset + hits = " + ((long) offset + hits) + " is more than the limit " + MAX_WINDOW);
    }
    if (trackTotalHitsUpTo < 0) {
      throw new InvalidRequestException("track_total_hits " + trackTotalHitsUpTo + " is negative");
    }
    if (rescoreWindow < 0 || rescoreWindow > MAX_RESCORE_WINDOW) {
      throw new InvalidRequestException(
          "rescore window " + rescoreWindow + " is outside [0, " + MAX_RESCORE_WINDOW + "]");
    }
    switch (rankProfile) {
      case BM25 -> requireText();
      case CLOSENESS -> requireVector(schema);
      case HYBRID -> {
        requireText();
        requireVector(schema);
      }
      case UNRANKED -> {}
    }
    return this;
  }

  private void requireText() {
    if (text == null) {
      throw new InvalidRequestException("rank profile " + rankProfile + " needs query text");
    }
    int limit = maxClauseCount;
    int fields = Schema.TEXT_FIELDS.size();
    // A token takes at least one character and a separator, so short texts need no analysis.
    if ((long) (text.length() + 1) / 2 * fields <= limit) {
      return;
    }
    int tokens = org.searchlab.core.analysis.TextAnalysis.tokens(text).size();
    if ((long) tokens * fields > limit) {
      throw new InvalidRequestException(
          "query text has "
              + tokens
              + " tokens, "
              + (long) tokens * fields
              + " term clauses over the "
              + fields
              + " text fields; the limit is "
              + limit
              + " (max_clause_count)");
    }
  }

  private void requireVector(Schema schema) {
    schema.validateVector("query vector", vector);
    if (targetHits < 1 || targetHits > MAX_CANDIDATES) {
      throw new InvalidRequestException(
          "targetHits " + targetHits + " is outside [1, " + MAX_CANDIDATES + "]");
    }
    if (exploreAdditionalHits < 0 || (long) targetHits + exploreAdditionalHits > MAX_CANDIDATES) {
      throw new InvalidRequestException(
          "targetHits + exploreAdditionalHits = "
              + ((long) targetHits + exploreAdditionalHits)
              + " is outside ["
              + targetHits
              + ", "
              + MAX_CANDIDATES
              + "]");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SearchRequest r
        && Objects.equals(text, r.text)
        && Arrays.equals(vector, r.vector)
        && filter.equals(r.filter)
        && hits == r.hits
        && offset == r.offset
        && targetHits == r.targetHits
        && exploreAdditionalHits == r.exploreAdditionalHits
        && approximate == r.approximate
        && rankProfile == r.rankProfile
        && fusion == r.fusion
        && trackTotalHitsUpTo == r.trackTotalHitsUpTo
        && thresholds.equals(r.thresholds)
        && fetchDocuments == r.fetchDocuments
        && rescoreWindow == r.rescoreWindow;
  }

  @Override
  public int hashCode() {
    return Objects.hash(text, filter, hits, offset, targetHits, rankProfile, fusion)
        + 31 * Arrays.hashCode(vector);
  }

  @Override
  public String toString() {
    return "SearchRequest[profile="
        + rankProfile
        + ", text="
        + text
        + ", vector="
        + (vector == null ? "none" : vector.length + "-d")
        + ", filter="
        + filter
        + ", hits="
        + hits
        + ", offset="
        + offset
        + ", targetHits="
        + targetHits
        + ", explore="
        + exploreAdditionalHits
        + ", approximate="
        + approximate
        + ", fusion="
        + fusion
        + (fetchDocuments ? ", fetchDocuments" : "")
        + (rescoreWindow > 0 ? ", rescoreWindow=" + rescoreWindow : "")
        + "]";
  }

  /**
   * Builds a {@link SearchRequest}. If no rank profile is set it is inferred: text and vector give
   * HYBRID, text alone BM25, vector alone CLOSENESS, neither UNRANKED. Not thread-safe.
   */
  public static final class Builder {
    private String text;
    private float[] vector;
    private Filter filter = Filter.ALL;
    private int hits = DEFAULT_HITS;
    private int offset;
    private int targetHits = DEFAULT_TARGET_HITS;
    private int exploreAdditionalHits;
    private boolean approximate = true;
    private RankProfile rankProfile;
    private Fusion fusion = Fusion.SUM;
    private int trackTotalHitsUpTo = DEFAULT_TRACK_TOTAL_HITS;
    private FilterThresholds thresholds = FilterThresholds.INDEX_DEFAULT;
    private boolean fetchDocuments;
    private int rescoreWindow;

    private Builder() {}

    public Builder text(String v) {
      text = v;
      return this;
    }

    public Builder vector(float[] v) {
      vector = v;
      return this;
    }

    public Builder filter(Filter v) {
      filter = v;
      return this;
    }

    public Builder hits(int v) {
      hits = v;
      return this;
    }

    public Builder offset(int v) {
      offset = v;
      return this;
    }

    public Builder targetHits(int v) {
      targetHits = v;
      return this;
    }

    public Builder exploreAdditionalHits(int v) {
      exploreAdditionalHits = v;
      return this;
    }

    public Builder approximate(boolean v) {
      approximate = v;
      return this;
    }

    public Builder rankProfile(RankProfile v) {
      rankProfile = v;
      return this;
    }

    public Builder fusion(Fusion v) {
      fusion = v;
      return this;
    }

    public Builder trackTotalHitsUpTo(int v) {
      trackTotalHitsUpTo = v;
      return this;
    }

    public Builder thresholds(FilterThresholds v) {
      thresholds = v;
      return this;
    }

    /** Whether hits carry their stored documents ({@link Hit#document()}); default false. */
    public Builder fetchDocuments(boolean v) {
      fetchDocuments = v;
      return this;
    }

    /**
     * Over quantized vectors, the candidates rescored by their floats; 0 (the default) for the
     * store's {@code targetHits × oversample}.
     */
    public Builder rescoreWindow(int v) {
      rescoreWindow = v;
      return this;
    }

    public SearchRequest build() {
      RankProfile profile = rankProfile;
      if (profile == null) {
        if (text != null && vector != null) {
          profile = RankProfile.HYBRID;
        } else if (text != null) {
          profile = RankProfile.BM25;
        } else if (vector != null) {
          profile = RankProfile.CLOSENESS;
        } else {
          profile = RankProfile.UNRANKED;
        }
      }
      return new SearchRequest(
          text,
          vector,
          filter,
          hits,
          offset,
          targetHits,
          exploreAdditionalHits,
          approximate,
          profile,
          fusion,
          trackTotalHitsUpTo,
          thresholds,
          fetchDocuments,
          rescoreWindow);
    }
  }
}
