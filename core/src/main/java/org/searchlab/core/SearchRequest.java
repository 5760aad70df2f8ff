// Over 500 lines: the request record, its validation against a mapping, its builder, and the
// benchmark's shorthand (text, vector, filter) both ways.
package org.searchlab.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.AggregationChecks;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.QueryChecks;
import org.searchlab.core.query.Rank;
import org.searchlab.core.query.SortKey;

/**
 * One search, in the terms both dialects map onto: a scored {@link Query}, any number of {@link
 * Knn} searches, and how they combine ({@link Rank}). Build it with {@link #builder()}; {@link
 * #validate(Mapping)} rejects bad input with the value and the limit. Immutable by convention.
 *
 * <p>The benchmark's requests have a shorthand of their own ({@link Builder#text}, {@link
 * Builder#vector}, {@link Builder#filter}, {@link Builder#rankProfile}): best-fields BM25 over
 * {@code title} and {@code description}, kNN on {@code embedding}, a filter on {@code category} and
 * {@code price} applied to both parts. {@link #text()}, {@link #vector()}, {@link #filter()} and
 * {@link #rankProfile()} read a request of that shape back ({@link ProductShape}); stores use it to
 * pick their fast paths for it.
 *
 * @param query the scored query, or null when there is none (a kNN-only search)
 * @param knn the kNN searches
 * @param rank how the query and the kNN searches combine
 * @param hits how many hits to return, 0 to {@value #MAX_WINDOW} − offset
 * @param offset how many top hits to skip
 * @param approximate whether kNN searches may use the HNSW graph; false forces an exact scan
 * @param trackTotalHitsUpTo count matches exactly up to this many, then report a lower bound
 *     (Elasticsearch {@code track_total_hits}, default 10,000); higher is slower for lexical
 *     queries
 * @param thresholds per-query plan thresholds for stores that choose plans by filter hit ratio
 * @param fetchDocuments whether each hit carries its stored document, read from the same
 *     point-in-time view the hit was scored in; false returns ids and scores only, which is cheaper
 * @param aggregations the aggregations over every matching document, by name in request order
 *     (Elasticsearch {@code aggs}); empty for none
 * @param sort how hits are ordered (Elasticsearch {@code sort}); empty for by score. Each hit then
 *     carries its {@link Hit#sortValues()}
 * @param searchAfter the sort values of the last hit of the previous page: hits start after it
 *     (Elasticsearch {@code search_after}, one value per sort key); empty for the first page
 */
public record SearchRequest(
    Query query,
    List<Knn> knn,
    Rank rank,
    int hits,
    int offset,
    boolean approximate,
    int trackTotalHitsUpTo,
    FilterThresholds thresholds,
    boolean fetchDocuments,
    Map<String, Aggregation> aggregations,
    List<SortKey> sort,
    List<Object> searchAfter) {

  /** Elasticsearch's {@code index.max_result_window}: offset + hits may not exceed it. */
  public static final int MAX_WINDOW = 10_000;

  /** Elasticsearch's limit on {@code num_candidates} and {@code k}. */
  public static final int MAX_CANDIDATES = 10_000;

  /** The most kNN searches one request may hold. */
  public static final int MAX_KNN = 16;

  /**
   * The largest rescoring window: Elasticsearch's largest oversample (10) times its largest {@code
   * k} (10,000).
   */
  public static final int MAX_RESCORE_WINDOW = VectorQuantization.MAX_OVERSAMPLE * MAX_CANDIDATES;

  public static final int DEFAULT_HITS = 10;
  public static final int DEFAULT_TARGET_HITS = 10;
  public static final int DEFAULT_TRACK_TOTAL_HITS = 10_000;

  /**
   * Elasticsearch's {@code indices.query.bool.max_clause_count} before 8.0 and Lucene's {@code
   * IndexSearcher} default: the term clauses one query may expand to.
   */
  public static final int DEFAULT_MAX_CLAUSE_COUNT = 1024;

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

  /** A request without aggregations or sort. */
  public SearchRequest(
      Query query,
      List<Knn> knn,
      Rank rank,
      int hits,
      int offset,
      boolean approximate,
      int trackTotalHitsUpTo,
      FilterThresholds thresholds,
      boolean fetchDocuments) {
    this(
        query,
        knn,
        rank,
        hits,
        offset,
        approximate,
        trackTotalHitsUpTo,
        thresholds,
        fetchDocuments,
        Map.of(),
        List.of(),
        List.of());
  }

  public SearchRequest {
    knn = List.copyOf(knn);
    aggregations =
        aggregations == null || aggregations.isEmpty()
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(aggregations));
    sort = sort == null ? List.of() : List.copyOf(sort);
    searchAfter =
        searchAfter == null
            ? List.of()
            : java.util.Collections.unmodifiableList(new ArrayList<>(searchAfter));
    Objects.requireNonNull(rank, "rank");
    Objects.requireNonNull(thresholds, "thresholds: use FilterThresholds.INDEX_DEFAULT");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder preloaded with this request's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.query = query;
    b.knn = new ArrayList<>(knn);
    b.rank = rank;
    b.hits = hits;
    b.offset = offset;
    b.approximate = approximate;
    b.trackTotalHitsUpTo = trackTotalHitsUpTo;
    b.thresholds = thresholds;
    b.fetchDocuments = fetchDocuments;
    b.aggregations = aggregations;
    b.sort = sort;
    b.searchAfter = searchAfter;
    b.generic = true;
    ProductShape.of(this)
        .ifPresent(
            p -> {
              b.text = p.text();
              b.vector = p.vector();
              b.filter = p.filter();
              b.targetHits = p.k();
              b.exploreAdditionalHits = p.numCandidates() - p.k();
              b.rankProfile = p.profile();
              b.fusion = rank.isRrf() ? Fusion.RRF : Fusion.SUM;
              b.rescoreWindow = p.rescoreWindow();
            });
    return b;
  }

  /** This request with its kNN searches replaced (a server that embedded their texts). */
  public SearchRequest withKnn(List<Knn> newKnn) {
    return new SearchRequest(
        query,
        newKnn,
        rank,
        hits,
        offset,
        approximate,
        trackTotalHitsUpTo,
        thresholds,
        fetchDocuments,
        aggregations,
        sort,
        searchAfter);
  }

  /** This request with another page: {@code hits} hits after the first {@code offset}. */
  public SearchRequest withPage(int newOffset, int newHits) {
    return new SearchRequest(
        query,
        knn,
        rank,
        newHits,
        newOffset,
        approximate,
        trackTotalHitsUpTo,
        thresholds,
        fetchDocuments,
        aggregations,
        sort,
        searchAfter);
  }

  /** This request with documents fetched or not. */
  public SearchRequest withFetchDocuments(boolean fetch) {
    return new SearchRequest(
        query,
        knn,
        rank,
        hits,
        offset,
        approximate,
        trackTotalHitsUpTo,
        thresholds,
        fetch,
        aggregations,
        sort,
        searchAfter);
  }

  /**
   * This request without its aggregations, sort and {@code search_after}: the search whose matches
   * they read, as a top-k search ({@link ProductShape#of} reads its shape).
   */
  public SearchRequest withoutAggregationsAndSort() {
    return new SearchRequest(
        query,
        knn,
        rank,
        hits,
        offset,
        approximate,
        trackTotalHitsUpTo,
        thresholds,
        fetchDocuments);
  }

  /**
   * Whether the request names a sort (even {@code _score} alone): its hits then carry their sort
   * values, for {@code search_after}.
   */
  public boolean sorted() {
    return !sort.isEmpty();
  }

  /** Whether the search must see every match: for aggregations or a sort. */
  public boolean needsEveryMatch() {
    return !aggregations.isEmpty() || sorted();
  }

  // ----------------------------------------------------------------------------------------------
  // The benchmark's shorthand, read back

  /** The shape of the benchmark's requests, when this request has it. */
  public java.util.Optional<ProductShape> productShape() {
    return ProductShape.of(this);
  }

  private ProductShape shape() {
    return ProductShape.of(this)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "not a request of the benchmark's shape (title/description best-fields,"
                        + " embedding kNN, category/price filter): "
                        + this));
  }

  /** The benchmark's rank profile of this request: by which parts it has. */
  public RankProfile rankProfile() {
    boolean q = query != null && !(query instanceof Query.MatchAll) && !isConstantFilter(query);
    if (q && !knn.isEmpty()) {
      return RankProfile.HYBRID;
    }
    if (q) {
      return RankProfile.BM25;
    }
    return knn.isEmpty() ? RankProfile.UNRANKED : RankProfile.CLOSENESS;
  }

  private static boolean isConstantFilter(Query q) {
    return q instanceof Query.ConstantScore;
  }

  /** The benchmark-shaped request's query text, or null without one. */
  public String text() {
    return shape().text();
  }

  /** The benchmark-shaped request's query vector, or null without one. */
  public float[] vector() {
    return knn.isEmpty() ? null : knn.get(0).vector();
  }

  /** The benchmark-shaped request's filter, applied to both parts. */
  public Filter filter() {
    return shape().filter();
  }

  /** The first kNN search's {@code k}, or the default without one. */
  public int targetHits() {
    return knn.isEmpty() ? DEFAULT_TARGET_HITS : knn.get(0).k();
  }

  /** The first kNN search's {@code num_candidates − k}. */
  public int exploreAdditionalHits() {
    return knn.isEmpty() ? 0 : knn.get(0).numCandidates() - knn.get(0).k();
  }

  /** The first kNN search's beam, {@code num_candidates}. */
  public int candidates() {
    return knn.isEmpty() ? DEFAULT_TARGET_HITS : knn.get(0).numCandidates();
  }

  /** The first kNN search's rescoring window as given (0: the store's default). */
  public int rescoreWindow() {
    return knn.isEmpty() ? 0 : knn.get(0).rescoreWindow();
  }

  /** The benchmark's fusion: sum or reciprocal rank fusion. */
  public Fusion fusion() {
    return rank.isRrf() ? Fusion.RRF : Fusion.SUM;
  }

  /** Whether the lexical part runs. */
  public boolean hasLexicalPart() {
    RankProfile p = rankProfile();
    return p == RankProfile.BM25 || p == RankProfile.HYBRID;
  }

  /** Whether the vector part runs. */
  public boolean hasVectorPart() {
    return !knn.isEmpty();
  }

  /**
   * The candidates a quantized vector search of {@code knn} rescores by their floats: its {@code
   * rescoreWindow} when set, else {@code k × defaultOversample}; never fewer than {@code k}.
   */
  public static int rescoreWindow(Knn knn, int defaultOversample) {
    long window =
        knn.rescoreWindow() > 0 ? knn.rescoreWindow() : (long) knn.k() * defaultOversample;
    return (int) Math.max(knn.k(), Math.min(window, MAX_RESCORE_WINDOW));
  }

  /** {@link #rescoreWindow(Knn, int)} of the first kNN search. */
  public int rescoreWindow(int defaultOversample) {
    return rescoreWindow(knn.get(0), defaultOversample);
  }

  /**
   * How many top results of each part reciprocal rank fusion reads: the rank's window, or {@code
   * max(k of each kNN search, offset + hits)}.
   */
  public int rrfWindow() {
    if (rank.windowSize() > 0) {
      return rank.windowSize();
    }
    int w = offset + hits;
    for (Knn n : knn) {
      w = Math.max(w, n.k());
    }
    return w;
  }

  // ----------------------------------------------------------------------------------------------
  // Validation

  /** {@link #validate(Mapping)} against the benchmark's mapping of {@code schema}. */
  public SearchRequest validate(Schema schema) {
    return validate(schema.mapping());
  }

  /**
   * Checks the request against the mapping and the limits; returns it unchanged. Throws {@link
   * InvalidRequestException} naming the value and the limit.
   */
  public SearchRequest validate(Mapping mapping) {
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
    if (knn.size() > MAX_KNN) {
      throw new InvalidRequestException(
          "the request has " + knn.size() + " kNN searches; the limit is " + MAX_KNN);
    }
    int[] clauses = {0};
    if (query != null) {
      QueryChecks.check(query, mapping, clauses, maxClauseCount);
    }
    for (Knn n : knn) {
      checkKnn(n, mapping);
      QueryChecks.check(n.filter(), mapping, clauses, maxClauseCount);
    }
    AggregationChecks.check(aggregations, mapping, clauses, maxClauseCount);
    for (SortKey k : sort) {
      AggregationChecks.checkSort(k, mapping);
    }
    if (!searchAfter.isEmpty()) {
      if (sort.isEmpty()) {
        throw new InvalidRequestException("[search_after] needs a [sort]");
      }
      if (searchAfter.size() != sort.size()) {
        throw new InvalidRequestException(
            "search_after has "
                + searchAfter.size()
                + " value(s) but sort has "
                + sort.size()
                + ".");
      }
      if (offset > 0) {
        throw new InvalidRequestException(
            "[from] parameter must be set to 0 when [search_after] is used");
      }
    }
    if (sorted() && rank.isRrf()) {
      throw new InvalidRequestException("[sort] cannot be used with reciprocal rank fusion");
    }
    if (rank.isRrf() && (long) offset + hits > rrfWindow()) {
      throw new InvalidRequestException(
          "from + size = "
              + ((long) offset + hits)
              + " is more than the rank window "
              + rrfWindow()
              + " [rank_window_size]");
    }
    return this;
  }

  private void checkKnn(Knn n, Mapping mapping) {
    FieldType f = mapping.leaf(n.field());
    if (!(f instanceof FieldType.DenseVector v)) {
      throw new InvalidRequestException(
          "[knn] queries are only supported on [dense_vector] fields; ["
              + n.field()
              + "] is "
              + (f == null ? "not mapped" : "a [" + f.esName() + "] field"));
    }
    if (!v.indexed() && approximate) {
      throw new InvalidRequestException(
          "to perform knn search on field ["
              + n.field()
              + "], its mapping must have [index] set to [true]");
    }
    if (n.vector() == null) {
      throw new InvalidRequestException(
          "the kNN search on [" + n.field() + "] has no query vector");
    }
    if (v.dims() == 0) {
      return; // no document has a vector yet: nothing matches
    }
    if (n.vector().length != v.dims()) {
      throw new InvalidRequestException(
          "the query vector has a different number of dimensions ["
              + n.vector().length
              + "] than the document vectors ["
              + v.dims()
              + "]");
    }
    v.similarity().check("query vector", n.vector());
    if (n.k() < 1 || n.k() > MAX_CANDIDATES) {
      throw new InvalidRequestException(
          "[k] " + n.k() + " is outside [1, " + MAX_CANDIDATES + "] (targetHits)");
    }
    if (n.numCandidates() < n.k() || n.numCandidates() > MAX_CANDIDATES) {
      throw new InvalidRequestException(
          "[num_candidates] "
              + n.numCandidates()
              + " is outside ["
              + n.k()
              + ", "
              + MAX_CANDIDATES
              + "] (targetHits + exploreAdditionalHits)");
    }
    if (n.rescoreWindow() < 0 || n.rescoreWindow() > MAX_RESCORE_WINDOW) {
      throw new InvalidRequestException(
          "rescore window " + n.rescoreWindow() + " is outside [0, " + MAX_RESCORE_WINDOW + "]");
    }
    if (!(n.boost() >= 0) || !Float.isFinite(n.boost())) {
      throw new InvalidRequestException("[knn.boost] " + n.boost() + " must be finite and ≥ 0");
    }
  }

  @Override
  public String toString() {
    return "SearchRequest[query="
        + query
        + ", knn="
        + knn
        + ", rank="
        + rank.kind()
        + ", hits="
        + hits
        + ", offset="
        + offset
        + (approximate ? "" : ", exact")
        + (fetchDocuments ? ", fetchDocuments" : "")
        + (aggregations.isEmpty() ? "" : ", aggs=" + aggregations.keySet())
        + (sort.isEmpty() ? "" : ", sort=" + sort)
        + (searchAfter.isEmpty() ? "" : ", searchAfter=" + searchAfter)
        + "]";
  }

  /**
   * Builds a {@link SearchRequest}: either from its parts ({@link #query}, {@link #knn}, {@link
   * #rank}), or from the benchmark's shorthand ({@link #text}, {@link #vector}, {@link #filter},
   * {@link #targetHits}, ...), which is used whenever one of its setters was called after the parts
   * were set. With the shorthand, a rank profile not set is inferred: text and vector give HYBRID,
   * text alone BM25, vector alone CLOSENESS, neither UNRANKED. Not thread-safe.
   */
  public static final class Builder {
    private Query query;
    private List<Knn> knn = new ArrayList<>();
    private Rank rank = Rank.SUM;
    private int hits = DEFAULT_HITS;
    private int offset;
    private boolean approximate = true;
    private int trackTotalHitsUpTo = DEFAULT_TRACK_TOTAL_HITS;
    private FilterThresholds thresholds = FilterThresholds.INDEX_DEFAULT;
    private boolean fetchDocuments;
    private Map<String, Aggregation> aggregations = Map.of();
    private List<SortKey> sort = List.of();
    private List<Object> searchAfter = List.of();
    private boolean generic;

    // The shorthand.
    private boolean shorthand;
    private String text;
    private float[] vector;
    private Filter filter = Filter.ALL;
    private int targetHits = DEFAULT_TARGET_HITS;
    private int exploreAdditionalHits;
    private RankProfile rankProfile;
    private Fusion fusion = Fusion.SUM;
    private int rescoreWindow;

    private Builder() {}

    public Builder query(Query v) {
      query = v;
      generic = true;
      shorthand = false;
      return this;
    }

    public Builder knn(List<Knn> v) {
      knn = new ArrayList<>(v);
      generic = true;
      shorthand = false;
      return this;
    }

    public Builder addKnn(Knn v) {
      knn.add(v);
      generic = true;
      shorthand = false;
      return this;
    }

    public Builder rank(Rank v) {
      rank = v;
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

    public Builder approximate(boolean v) {
      approximate = v;
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

    /** The aggregations, by name in request order; default none. */
    public Builder aggregations(Map<String, Aggregation> v) {
      aggregations = v;
      return this;
    }

    /** The sort keys; default none (by score). */
    public Builder sort(List<SortKey> v) {
      sort = v;
      return this;
    }

    /** The previous page's last sort values; default none. */
    public Builder searchAfter(List<Object> v) {
      searchAfter = v;
      return this;
    }

    /** Shorthand: best-fields BM25 of this text over {@code title} and {@code description}. */
    public Builder text(String v) {
      text = v;
      shorthand = true;
      return this;
    }

    /** Shorthand: kNN of this vector on {@code embedding}. */
    public Builder vector(float[] v) {
      vector = v;
      shorthand = true;
      return this;
    }

    /** Shorthand: this category/price filter on both parts. */
    public Builder filter(Filter v) {
      filter = Objects.requireNonNull(v, "filter: use Filter.ALL for no filter");
      shorthand = true;
      return this;
    }

    public Builder targetHits(int v) {
      targetHits = v;
      shorthand = true;
      return this;
    }

    public Builder exploreAdditionalHits(int v) {
      exploreAdditionalHits = v;
      shorthand = true;
      return this;
    }

    public Builder rankProfile(RankProfile v) {
      rankProfile = v;
      shorthand = true;
      return this;
    }

    public Builder fusion(Fusion v) {
      fusion = v;
      rank = v == Fusion.RRF ? Rank.RRF : Rank.SUM;
      return this;
    }

    /**
     * Shorthand: over quantized vectors, the candidates rescored by their floats; 0 (the default)
     * for the store's {@code targetHits × oversample}.
     */
    public Builder rescoreWindow(int v) {
      rescoreWindow = v;
      shorthand = true;
      return this;
    }

    public SearchRequest build() {
      if (shorthand || !generic) {
        ProductShape p =
            ProductShape.build(
                text,
                vector,
                filter,
                targetHits,
                targetHits + exploreAdditionalHits,
                rescoreWindow,
                rankProfile);
        Rank r = fusion == Fusion.RRF ? (rank.isRrf() ? rank : Rank.RRF) : Rank.SUM;
        return new SearchRequest(
            p.query(),
            p.knnList(),
            r,
            hits,
            offset,
            approximate,
            trackTotalHitsUpTo,
            thresholds,
            fetchDocuments,
            aggregations,
            sort,
            searchAfter);
      }
      return new SearchRequest(
          query,
          knn,
          rank,
          hits,
          offset,
          approximate,
          trackTotalHitsUpTo,
          thresholds,
          fetchDocuments,
          aggregations,
          sort,
          searchAfter);
    }
  }
}
