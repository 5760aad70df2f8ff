package org.searchlab.server.service;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.ProductShape;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.NumberType;
import org.searchlab.core.query.FieldValues;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;

/**
 * A bridge for the time between the dialects' general requests and the stores' general evaluators
 * (issue 66): the stores on {@code main} run only requests of the benchmark's shape ({@link
 * ProductShape}), and answer any other with an {@link IllegalStateException}. This class runs a
 * request of another shape as the benchmark's shape when one with the same hits and the same scores
 * exists on the product mapping, and otherwise turns that store's refusal into a 400 that says why.
 * Once both stores evaluate the {@link Query} tree, the refusal never happens and the rewrite only
 * routes a few equivalent requests onto the stores' fast paths; the class can then be deleted (one
 * call site, {@link SearchService#search(SearchRequest, List)}). Stateless and thread-safe.
 *
 * <p>The rewrites, each exact on the product mapping ({@code category} keyword, {@code price}
 * integer):
 *
 * <ul>
 *   <li>Filters (a kNN filter, a {@code bool}'s {@code filter} clauses) of {@code term}/{@code
 *       terms} (one value) on {@code category}, {@code range} on {@code price} with any bounds
 *       (normalised by {@link FieldValues#range} to the inclusive integer range they select;
 *       several intersect), {@code constant_score}, {@code match_all} and {@code bool}s of required
 *       clauses become one {@link Filter}: filters do not score, so only the set they select
 *       matters.
 *   <li>A query that scores every match the same constant {@code c} ({@code match_all}, {@code
 *       constant_score}, {@code range} on {@code price}, a {@code bool} of filters only, whose
 *       score is 0) runs as the filter alone and its hits get score {@code c}; their order is the
 *       stores' order for equal scores either way.
 * </ul>
 */
final class ProductShapeBridge {
  /** How {@link SearchRequest}'s shorthand refuses a request of another shape. */
  private static final String NOT_PRODUCT_SHAPE = "not a request of the benchmark's shape";

  private ProductShapeBridge() {}

  /** Runs {@code request} on {@code index}, through the benchmark's shape when it can. */
  static SearchResult search(SearchIndex index, SearchRequest request) throws IOException {
    if (ProductShape.of(request).isPresent()) {
      return index.search(request);
    }
    Mapping mapping = index.mapping();
    if (request.needsEveryMatch()) {
      if (productFields(mapping)) {
        request.validate(mapping); // the store's own errors first, as it would give them
        return index.search(everyMatch(request, mapping));
      }
      return index.search(request);
    }
    Optional<Rewrite> rewrite = Optional.empty();
    if (productFields(mapping)) {
      request.validate(mapping); // the store's own errors first, as it would give them
      rewrite = rewrite(request, mapping);
    }
    if (rewrite.isPresent()) {
      Rewrite r = rewrite.get();
      SearchResult result = index.search(r.request);
      return r.score == null ? result : withScore(result, r.score);
    }
    try {
      return index.search(request);
    } catch (IllegalStateException e) {
      if (e.getMessage() == null || !e.getMessage().startsWith(NOT_PRODUCT_SHAPE)) {
        throw e;
      }
      throw new InvalidRequestException(
          "this store runs only the benchmark's request shape (best_fields over title and"
              + " description, knn on embedding, term on category and range on price filters)"
              + " until it evaluates general queries (issue 66); this request has another");
    }
  }

  /**
   * A request of the benchmark's shape with the same hits as the original.
   *
   * @param score the score every hit has in the original, or null when the scores are the same
   */
  record Rewrite(SearchRequest request, Float score) {}

  /**
   * A request that needs every match (aggregations, a sort) with its query and kNN search rewritten
   * to the benchmark's shape, its aggregations, sort and {@code search_after} unchanged, when the
   * rewrite gives every match the score the original gives it: the product store then aggregates it
   * from its columns. A rewrite whose matches score another constant than the store's 1 would
   * change {@code _score} sort values and {@code top_hits} scores, so it is not made; the request
   * is then returned as it is.
   */
  static SearchRequest everyMatch(SearchRequest r, Mapping mapping) {
    SearchRequest plain = r.withoutAggregationsAndSort();
    if (ProductShape.of(plain).isPresent()) {
      return r;
    }
    Optional<Rewrite> w = rewrite(plain, mapping);
    if (w.isEmpty() || (w.get().score != null && w.get().score != 1f)) {
      return r;
    }
    SearchRequest q = w.get().request;
    return new SearchRequest(
        q.query(),
        q.knn(),
        q.rank(),
        q.hits(),
        q.offset(),
        q.approximate(),
        q.trackTotalHitsUpTo(),
        q.thresholds(),
        q.fetchDocuments(),
        r.aggregations(),
        r.sort(),
        r.searchAfter());
  }

  private static boolean productFields(Mapping m) {
    return m.leaf(Schema.CATEGORY) instanceof FieldType.Keyword
        && m.leaf(Schema.PRICE) instanceof FieldType.Numeric n
        && n.type() == NumberType.INTEGER
        && m.leaf(Schema.TITLE) instanceof FieldType.Text
        && m.leaf(Schema.DESCRIPTION) instanceof FieldType.Text;
  }

  static Optional<Rewrite> rewrite(SearchRequest r, Mapping mapping) {
    if (r.knn().size() > 1) {
      return Optional.empty();
    }
    Knn knn = r.knn().isEmpty() ? null : r.knn().get(0);
    Filter knnFilter = null;
    if (knn != null) {
      if (!knn.field().equals(Schema.EMBEDDING) || knn.similarity() != null || knn.boost() != 1f) {
        return Optional.empty();
      }
      Optional<Filter> f = filter(List.of(knn.filter()), mapping);
      if (f.isEmpty()) {
        return Optional.empty();
      }
      knnFilter = f.get();
    }
    Query q = r.query();
    Query newQuery = null;
    Float score = null;
    Filter queryFilter = null;
    if (q != null) {
      Query text = null;
      List<Query> filters = List.of();
      if (isProductText(q)) {
        text = q;
      } else if (q instanceof Query.Bool b
          && b.must().size() == 1
          && isProductText(b.must().get(0))
          && b.should().isEmpty()
          && b.mustNot().isEmpty()
          && b.minimumShouldMatch() == null
          && b.boost() == 1f) {
        text = b.must().get(0);
        filters = b.filter();
      }
      if (text != null) {
        Optional<Filter> f = filter(filters, mapping);
        if (f.isEmpty()) {
          return Optional.empty();
        }
        queryFilter = f.get();
        newQuery = Query.Bool.filtered(text, queryFilter.toQueries());
      } else {
        if (knn != null) {
          return Optional.empty(); // a constant query beside kNN has no benchmark shape
        }
        Constant c = constant(q);
        if (c == null) {
          return Optional.empty();
        }
        Optional<Filter> f = filter(c.filters, mapping);
        if (f.isEmpty()) {
          return Optional.empty();
        }
        queryFilter = f.get();
        score = c.score;
        newQuery =
            queryFilter.isMatchAll()
                ? Query.MatchAll.INSTANCE
                : new Query.ConstantScore(filterQuery(queryFilter), 1f);
      }
    }
    if (queryFilter != null && knnFilter != null && !queryFilter.equals(knnFilter)) {
      return Optional.empty();
    }
    List<Knn> newKnn =
        knn == null
            ? List.of()
            : List.of(
                new Knn(
                    knn.field(),
                    knn.vector(),
                    knn.k(),
                    knn.numCandidates(),
                    filterQuery(knnFilter),
                    null,
                    1f,
                    knn.rescoreWindow()));
    SearchRequest out =
        new SearchRequest(
            newQuery,
            newKnn,
            r.rank(),
            r.hits(),
            r.offset(),
            r.approximate(),
            r.trackTotalHitsUpTo(),
            r.thresholds(),
            r.fetchDocuments());
    if (ProductShape.of(out).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Rewrite(out, score));
  }

  private static boolean isProductText(Query q) {
    return q instanceof Query.MultiMatch m
        && m.type() == Query.MultiMatchType.BEST_FIELDS
        && m.tieBreaker() == 0f
        && m.operator() == Query.Operator.OR
        && m.minimumShouldMatch() == null
        && m.boost() == 1f
        && m.fields()
            .equals(
                List.of(
                    new Query.FieldBoost(Schema.TITLE, 1f),
                    new Query.FieldBoost(Schema.DESCRIPTION, 1f)));
  }

  /** A query whose every match scores {@code score}: the filters that select its matches. */
  private record Constant(List<Query> filters, float score) {}

  private static Constant constant(Query q) {
    return switch (q) {
      case Query.MatchAll a -> new Constant(List.of(), a.boost());
      case Query.MatchNone n -> new Constant(List.of(n), 0f);
      case Query.ConstantScore c -> new Constant(List.of(c.filter()), c.boost());
      case Query.Range r when r.field().equals(Schema.PRICE) -> new Constant(List.of(r), r.boost());
      case Query.Terms t when t.field().equals(Schema.CATEGORY) ->
          new Constant(List.of(t), t.boost());
      case Query.Bool b
          when b.must().isEmpty()
              && b.should().isEmpty()
              && b.mustNot().isEmpty()
              && !b.filter().isEmpty() ->
          new Constant(b.filter(), 0f); // Lucene: only filter clauses score 0
      default -> null;
    };
  }

  /** The filter that selects what all of {@code clauses} select, if one does. */
  static Optional<Filter> filter(List<Query> clauses, Mapping mapping) {
    FilterBuilder b = new FilterBuilder();
    for (Query c : clauses) {
      if (!b.add(c, mapping)) {
        return Optional.empty();
      }
    }
    return Optional.of(b.build());
  }

  /** Intersects filter clauses. Not thread-safe. */
  private static final class FilterBuilder {
    String category;
    long min = Integer.MIN_VALUE;
    long max = Integer.MAX_VALUE;
    boolean price;
    boolean empty;

    boolean add(Query q, Mapping m) {
      switch (q) {
        case Query.MatchAll a -> {
          return true;
        }
        case Query.MatchNone n -> {
          empty = true;
          return true;
        }
        case Query.ConstantScore c -> {
          return add(c.filter(), m);
        }
        case Query.Bool b -> {
          if (!b.should().isEmpty() || !b.mustNot().isEmpty()) {
            return false;
          }
          for (Query c : b.must()) {
            if (!add(c, m)) {
              return false;
            }
          }
          for (Query c : b.filter()) {
            if (!add(c, m)) {
              return false;
            }
          }
          return true;
        }
        case Query.Term t when t.field().equals(Schema.CATEGORY) -> {
          category(FieldValues.termValue(m.leaf(Schema.CATEGORY), Schema.CATEGORY, t.value()));
          return true;
        }
        case Query.Terms t when t.field().equals(Schema.CATEGORY) && t.values().size() <= 1 -> {
          if (t.values().isEmpty()) {
            empty = true;
          } else {
            category(
                FieldValues.termValue(m.leaf(Schema.CATEGORY), Schema.CATEGORY, t.values().get(0)));
          }
          return true;
        }
        case Query.Range r when r.field().equals(Schema.PRICE) -> {
          if (!(FieldValues.range(m.leaf(Schema.PRICE), r) instanceof FieldValues.LongBounds lb)) {
            return false;
          }
          price = true;
          min = Math.max(min, lb.min());
          max = Math.min(max, lb.max());
          return true;
        }
        default -> {
          return false;
        }
      }
    }

    private void category(Object value) {
      if (!(value instanceof String s)) {
        empty = true; // a value no keyword can have
      } else if (category != null && !category.equals(s)) {
        empty = true;
      } else {
        category = s;
      }
    }

    Filter build() {
      if (empty || (price && min > max)) {
        return new Filter(category, Filter.PriceRange.EMPTY);
      }
      Filter f = category == null ? Filter.ALL : Filter.category(category);
      return price ? f.withPrice(new Filter.PriceRange((int) min, (int) max)) : f;
    }
  }

  /** The filter as one query, as {@link ProductShape} builds it. */
  private static Query filterQuery(Filter f) {
    List<Query> qs = f.toQueries();
    if (qs.isEmpty()) {
      return Query.MatchAll.INSTANCE;
    }
    if (qs.size() == 1) {
      return qs.get(0);
    }
    return new Query.Bool(List.of(), qs, List.of(), List.of(), null, 1f);
  }

  private static SearchResult withScore(SearchResult r, float score) {
    List<Hit> hits = new ArrayList<>(r.hits().size());
    for (Hit h : r.hits()) {
      hits.add(new Hit(h.id(), score, h.document()));
    }
    return new SearchResult(hits, r.total(), r.plan(), r.timings());
  }
}
