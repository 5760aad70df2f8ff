package org.searchlab.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;

/**
 * The shape of the benchmark's searches: best-fields BM25 (tie breaker 0, OR) over {@code title}
 * and {@code description}, kNN on {@code embedding}, and one {@link Filter} on {@code category} and
 * {@code price} applied to both parts. {@link #build} makes the {@link Query} and {@link Knn} of
 * such a search; {@link #of} recognises one, so that a store can run it on a path made for it.
 * Immutable by convention.
 *
 * @param text the query text, or null without a lexical part
 * @param vector the query vector, or null without a vector part
 * @param filter the filter of both parts
 * @param k the kNN search's {@code k}
 * @param numCandidates its {@code num_candidates}
 * @param rescoreWindow its rescoring window (0: the store's default)
 * @param profile which parts there are
 */
public record ProductShape(
    String text,
    float[] vector,
    Filter filter,
    int k,
    int numCandidates,
    int rescoreWindow,
    RankProfile profile) {

  /** The benchmark's text fields, in the order scoring visits them. */
  public static final List<String> TEXT_FIELDS = Schema.TEXT_FIELDS;

  /** The shape's parts, with a rank profile inferred from what is set when none is given. */
  static ProductShape build(
      String text,
      float[] vector,
      Filter filter,
      int k,
      int numCandidates,
      int rescoreWindow,
      RankProfile profile) {
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
    if ((profile == RankProfile.BM25 || profile == RankProfile.HYBRID) && text == null) {
      throw new InvalidRequestException("rank profile " + profile + " needs query text");
    }
    return new ProductShape(text, vector, filter, k, numCandidates, rescoreWindow, profile);
  }

  /** The scored query: the text filtered, the filter alone (score 1), or null for kNN only. */
  public Query query() {
    return switch (profile) {
      case BM25, HYBRID ->
          Query.Bool.filtered(Query.MultiMatch.bestFields(text, TEXT_FIELDS), filter.toQueries());
      case UNRANKED ->
          filter.isMatchAll()
              ? Query.MatchAll.INSTANCE
              : new Query.ConstantScore(filterQuery(filter), 1f);
      case CLOSENESS -> null;
    };
  }

  /** The kNN search, or none. */
  public List<Knn> knnList() {
    if (profile != RankProfile.CLOSENESS && profile != RankProfile.HYBRID) {
      return List.of();
    }
    return List.of(
        new Knn(
            Schema.EMBEDDING,
            vector,
            k,
            numCandidates,
            filterQuery(filter),
            null,
            1f,
            rescoreWindow));
  }

  /** The filter as one query: match-all, its one clause, or a bool of its clauses. */
  static Query filterQuery(Filter f) {
    List<Query> qs = f.toQueries();
    if (qs.isEmpty()) {
      return Query.MatchAll.INSTANCE;
    }
    if (qs.size() == 1) {
      return qs.get(0);
    }
    return new Query.Bool(List.of(), qs, List.of(), List.of(), null, 1f);
  }

  /** The filter a single query of {@link #filterQuery} is, or empty. */
  static Optional<Filter> filterOf(Query q) {
    if (q instanceof Query.MatchAll m && m.boost() == 1f) {
      return Optional.of(Filter.ALL);
    }
    if (q instanceof Query.Bool b
        && b.must().isEmpty()
        && b.should().isEmpty()
        && b.mustNot().isEmpty()
        && b.minimumShouldMatch() == null
        && b.boost() == 1f) {
      return Filter.fromQueries(b.filter());
    }
    return Filter.fromQueries(List.of(q));
  }

  /** The shape of {@code r}, when it has it. */
  public static Optional<ProductShape> of(SearchRequest r) {
    if (r.needsEveryMatch()) {
      return Optional.empty(); // aggregations and sorts read every match, not a top-k
    }
    Knn knn = null;
    if (r.knn().size() > 1) {
      return Optional.empty();
    }
    if (r.knn().size() == 1) {
      knn = r.knn().get(0);
      if (!knn.field().equals(Schema.EMBEDDING) || knn.similarity() != null || knn.boost() != 1f) {
        return Optional.empty();
      }
    }
    Filter knnFilter = null;
    if (knn != null) {
      Optional<Filter> f = filterOf(knn.filter());
      if (f.isEmpty()) {
        return Optional.empty();
      }
      knnFilter = f.get();
    }
    Query q = r.query();
    String text = null;
    Filter queryFilter = null;
    RankProfile profile;
    if (q == null) {
      if (knn == null) {
        return Optional.empty();
      }
      profile = RankProfile.CLOSENESS;
    } else if (q instanceof Query.MatchAll m && m.boost() == 1f) {
      queryFilter = Filter.ALL;
      profile = RankProfile.UNRANKED;
    } else if (q instanceof Query.ConstantScore c && c.boost() == 1f) {
      Optional<Filter> f = filterOf(c.filter());
      if (f.isEmpty()) {
        return Optional.empty();
      }
      queryFilter = f.get();
      profile = RankProfile.UNRANKED;
    } else {
      Query mm = q;
      List<Query> filters = List.of();
      if (q instanceof Query.Bool b
          && b.must().size() == 1
          && b.should().isEmpty()
          && b.mustNot().isEmpty()
          && b.minimumShouldMatch() == null
          && b.boost() == 1f) {
        mm = b.must().get(0);
        filters = b.filter();
      }
      text = productText(mm);
      if (text == null) {
        return Optional.empty();
      }
      Optional<Filter> f = Filter.fromQueries(filters);
      if (f.isEmpty()) {
        return Optional.empty();
      }
      queryFilter = f.get();
      profile = knn == null ? RankProfile.BM25 : RankProfile.HYBRID;
    }
    if (knn != null && profile == RankProfile.UNRANKED) {
      return Optional.empty();
    }
    if (queryFilter != null && knnFilter != null && !queryFilter.equals(knnFilter)) {
      return Optional.empty();
    }
    Filter filter = queryFilter != null ? queryFilter : knnFilter;
    return Optional.of(
        new ProductShape(
            text,
            knn == null ? null : knn.vector(),
            filter,
            knn == null ? SearchRequest.DEFAULT_TARGET_HITS : knn.k(),
            knn == null ? SearchRequest.DEFAULT_TARGET_HITS : knn.numCandidates(),
            knn == null ? 0 : knn.rescoreWindow(),
            profile));
  }

  private static String productText(Query q) {
    if (!(q instanceof Query.MultiMatch m)
        || m.type() != Query.MultiMatchType.BEST_FIELDS
        || m.tieBreaker() != 0f
        || m.operator() != Query.Operator.OR
        || m.minimumShouldMatch() != null
        || m.boost() != 1f
        || m.fields().size() != TEXT_FIELDS.size()) {
      return null;
    }
    List<String> names = new ArrayList<>();
    for (Query.FieldBoost f : m.fields()) {
      if (f.boost() != 1f) {
        return null;
      }
      names.add(f.field());
    }
    return names.equals(TEXT_FIELDS) ? m.text() : null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProductShape p
        && java.util.Objects.equals(text, p.text)
        && java.util.Arrays.equals(vector, p.vector)
        && filter.equals(p.filter)
        && k == p.k
        && numCandidates == p.numCandidates
        && rescoreWindow == p.rescoreWindow
        && profile == p.profile;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(text, filter, k, profile);
  }
}
