package org.searchlab.bench.experiment;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.core.scoring.VectorScores;
import org.searchlab.testing.ExactCorpus;

/**
 * The ground truth recall is measured against: benchmark queries answered by the project's one
 * exact implementation of the query semantics ({@link ExactCorpus}, the oracle the conformance
 * suite checks both stores against). A query becomes the {@link SearchRequest} the experiment
 * sends: lexical text, the query vector with {@code targetHits} = {@value #VECTOR_K}, and for the
 * filtered variant the query's category.
 *
 * <p>Immutable after construction; searches may run from many threads at once.
 */
public final class ExactSearch {
  /** Neighbours of the vector part, as the benchmark's {@code k}/{@code targetHits}. */
  public static final int VECTOR_K = 100;

  private final ExactCorpus corpus;
  private final BenchMapping mapping;
  // Each document id's ordinal, for the score tables of answerWithEveryScore (ScoreTable): made on
  // first use, since the runner's answers do not need it and at 1M documents it is about 80 MB.
  private Map<String, Integer> ordinals;

  /**
   * @param docs the corpus
   * @param queries unused, kept so callers state which queries the truth is for
   */
  public ExactSearch(List<Document> docs, Collection<BenchQuery> queries) {
    this(docs, queries, BenchMapping.PRODUCT);
  }

  /**
   * The truth over an index of {@code mapping}: its queries are the Elasticsearch dialect's ({@code
   * multi_match} best_fields over the text fields, {@code knn} on the vector field, a {@code term}
   * filter on the keyword field), answered by the oracle's query tree.
   *
   * @param docs the corpus
   * @param queries unused, kept so callers state which queries the truth is for
   */
  public ExactSearch(List<Document> docs, Collection<BenchQuery> queries, BenchMapping mapping) {
    this.mapping = mapping;
    this.corpus =
        mapping.product()
            ? new ExactCorpus()
            : new ExactCorpus(mapping.mapping(), mapping.settings().defaultAnalyzer());
    for (Document d : docs) {
      corpus.put(d);
    }
  }

  /** The exact top-{@code k} hits, best first, for a benchmark query. */
  public List<Hit> hits(BenchQuery q, QueryType type, boolean filtered, int k) {
    return corpus.search(requestFor(q, type, filtered, k)).hits();
  }

  /** The request a query of this type sends to the index of this truth's mapping. */
  private SearchRequest requestFor(BenchQuery q, QueryType type, boolean filtered, int k) {
    return mapping.product() ? request(q, type, filtered, k) : mappedRequest(q, type, filtered, k);
  }

  /**
   * The Elasticsearch dialect's request over another mapping, as the server's parser builds it:
   * {@code bool} of the {@code multi_match} and the {@code term} filter, and a {@code knn} of
   * {@value #VECTOR_K} with the same filter; both parts' scores summed.
   */
  private SearchRequest mappedRequest(BenchQuery q, QueryType type, boolean filtered, int k) {
    return mappedBuilder(q, type, filtered, k).build();
  }

  private SearchRequest.Builder mappedBuilder(
      BenchQuery q, QueryType type, boolean filtered, int k) {
    List<Query> filters =
        filtered ? List.of(Query.Term.of(mapping.filterField(), q.category())) : List.of();
    SearchRequest.Builder b = SearchRequest.builder().hits(k);
    if (type != QueryType.VECTOR) {
      b.query(
          Query.Bool.filtered(
              Query.MultiMatch.bestFields(q.text(), mapping.textFields()), filters));
    }
    if (type != QueryType.LEXICAL) {
      Query knnFilter =
          filters.isEmpty()
              ? Query.MatchAll.INSTANCE
              : new Query.Bool(List.of(), filters, List.of(), List.of(), null, 1f);
      b.addKnn(
          new Knn(mapping.vectorField(), q.vector(), VECTOR_K, VECTOR_K, knnFilter, null, 1f, 0));
    }
    return b;
  }

  /**
   * The exact buckets of a faceted query ({@link Facets#buckets(java.util.Map)}): the facets'
   * aggregations over every match of the lexical query as the Elasticsearch dialect sends it
   * ({@code multi_match} best_fields over the text fields, the {@code term} filter when filtered),
   * on this truth's mapping, the product's included.
   */
  public List<String> facetBuckets(BenchQuery q, boolean filtered, Facets facets) {
    SearchRequest r =
        mappedBuilder(q, QueryType.LEXICAL, filtered, 10)
            .aggregations(facets.aggregations())
            .build();
    return Facets.buckets(corpus.search(r).aggregations());
  }

  /** Every hit of a mapped query with its exact score, up to the request window. */
  private Map<String, Float> mappedScores(BenchQuery q, QueryType type, boolean filtered) {
    int window = Math.min(SearchRequest.MAX_WINDOW, Math.max(1, corpus.size()));
    Map<String, Float> scores = new HashMap<>();
    for (Hit h : corpus.search(mappedRequest(q, type, filtered, window)).hits()) {
      scores.put(h.id(), h.score());
    }
    return scores;
  }

  /** The exact top-{@code k} ids for a benchmark query. */
  public List<String> topK(BenchQuery q, QueryType type, boolean filtered, int k) {
    return ids(hits(q, type, filtered, k));
  }

  /**
   * The exact top-{@code k} ids of one query for every type and filter setting, keyed {@code
   * "<type>|<filtered>"}.
   */
  public Map<String, List<String>> topKAll(BenchQuery q, int k) {
    Map<String, List<String>> out = new HashMap<>();
    for (boolean filtered : new boolean[] {false, true}) {
      for (QueryType t : QueryType.values()) {
        out.put(t.label() + "|" + filtered, topK(q, t, filtered, k));
      }
    }
    return out;
  }

  /**
   * The exact answer to a benchmark query with the exact score of any document: BM25 for lexical,
   * closeness for vector, and for hybrid what the stores fuse, the BM25 score (0 without a matching
   * term) plus the closeness of documents in the exact top {@value #VECTOR_K} neighbours (0
   * outside). A document the query's filter rejects, or that neither part matches, scores NaN.
   *
   * <p>The answer keeps the top {@code k} and looks other ids' scores up when asked ({@link
   * ExactAnswer#prepare}), by scoring the query's matches again and keeping only those ids: the
   * matches of every query's lexical part do not stay in memory (at 1M documents a common term
   * matches most of them).
   */
  public ExactAnswer answer(BenchQuery q, QueryType type, boolean filtered, int k) {
    if (!mapping.product()) {
      return ExactAnswer.lookingUp(
          best(mappedScores(q, type, filtered), k),
          ids -> pick(mappedScores(q, type, filtered), ids));
    }
    Filter filter = filtered ? Filter.category(q.category()) : Filter.ALL;
    return switch (type) {
      case LEXICAL ->
          ExactAnswer.lookingUp(
              best(corpus.lexicalScores(q.text(), filter), k),
              ids -> pick(corpus.lexicalScores(q.text(), filter), ids));
      case VECTOR ->
          new ExactAnswer(
              corpus.vectorHits(q.vector(), filter, k),
              id -> {
                Document d = corpus.get(id);
                return d == null || !d.hasEmbedding() || !filter.matches(d)
                    ? Double.NaN
                    : VectorScores.closeness(q.vector(), d.embedding());
              });
      case HYBRID -> {
        // The vector part's top 100 stays with the answer (100 scores); the lexical part's
        // matches are scored again for the ids a lookup asks for.
        Map<String, Float> vector = new HashMap<>();
        for (Hit h : corpus.vectorHits(q.vector(), filter, VECTOR_K)) {
          vector.put(h.id(), h.score());
        }
        Map<String, Float> top = fused(corpus.lexicalScores(q.text(), filter), vector);
        yield ExactAnswer.lookingUp(
            best(top, k),
            ids -> {
              Map<String, Float> lexical = corpus.lexicalScores(q.text(), filter);
              Map<String, Double> out = new HashMap<>();
              for (String id : ids) {
                Float l = lexical.get(id);
                Float v = vector.get(id);
                // As fused(): the lexical score plus the vector one, summed in float.
                out.put(
                    id,
                    l == null ? (v == null ? Double.NaN : v) : (v == null ? l : Float.sum(l, v)));
              }
              return out;
            });
      }
    };
  }

  /** The hybrid scores: every lexical match's BM25, plus the closeness of the vector part's. */
  private static Map<String, Float> fused(Map<String, Float> lexical, Map<String, Float> vector) {
    Map<String, Float> fused = new HashMap<>(lexical);
    vector.forEach((id, s) -> fused.merge(id, s, Float::sum));
    return fused;
  }

  /** The scores of {@code ids} out of a query's scores, NaN for an id that is no hit. */
  private static Map<String, Double> pick(Map<String, Float> scores, java.util.Set<String> ids) {
    Map<String, Double> out = new HashMap<>();
    for (String id : ids) {
      Float s = scores.get(id);
      out.put(id, s == null ? Double.NaN : s);
    }
    return out;
  }

  /**
   * The answer as it was made before answers looked scores up ({@link #answer}): every match's
   * score kept for the answer's life in a {@link ScoreTable}, 8 bytes a match. Kept as the
   * reference the compact answers are checked against (their recall and overlap must be the same
   * numbers); the runner does not use it.
   */
  ExactAnswer answerWithEveryScore(BenchQuery q, QueryType type, boolean filtered, int k) {
    if (!mapping.product()) {
      return tableAnswer(mappedScores(q, type, filtered), k);
    }
    Filter filter = filtered ? Filter.category(q.category()) : Filter.ALL;
    return switch (type) {
      case LEXICAL -> tableAnswer(corpus.lexicalScores(q.text(), filter), k);
      case VECTOR -> answer(q, type, filtered, k);
      case HYBRID -> {
        Map<String, Float> vector = new HashMap<>();
        for (Hit h : corpus.vectorHits(q.vector(), filter, VECTOR_K)) {
          vector.put(h.id(), h.score());
        }
        yield tableAnswer(fused(corpus.lexicalScores(q.text(), filter), vector), k);
      }
    };
  }

  private ExactAnswer tableAnswer(Map<String, Float> scores, int k) {
    return new ExactAnswer(best(scores, k), new ScoreTable(scores, ordinals()));
  }

  private synchronized Map<String, Integer> ordinals() {
    if (ordinals == null) {
      Map<String, Integer> m = new HashMap<>();
      for (Document d : corpus.documents()) {
        m.putIfAbsent(d.id(), m.size());
      }
      ordinals = m;
    }
    return ordinals;
  }

  /**
   * The {@code k} best of a score map, in the oracle's order (score, then id): a heap of {@code k},
   * not a sorted copy of every match.
   */
  private static List<Hit> best(Map<String, Float> scores, int k) {
    java.util.PriorityQueue<Hit> worstFirst =
        new java.util.PriorityQueue<>(Math.max(1, k) + 1, ExactCorpus.BY_SCORE.reversed());
    for (Map.Entry<String, Float> e : scores.entrySet()) {
      Hit h = new Hit(e.getKey(), e.getValue());
      if (worstFirst.size() < k) {
        worstFirst.add(h);
      } else if (k > 0 && ExactCorpus.BY_SCORE.compare(h, worstFirst.peek()) < 0) {
        worstFirst.poll();
        worstFirst.add(h);
      }
    }
    List<Hit> out = new java.util.ArrayList<>(worstFirst);
    out.sort(ExactCorpus.BY_SCORE);
    return out;
  }

  /** The exact {@code k} nearest neighbours (unfiltered), for the HNSW grid. */
  public List<String> vectorTopK(BenchQuery q, int k) {
    if (!mapping.product()) {
      Knn knn =
          new Knn(mapping.vectorField(), q.vector(), k, k, Query.MatchAll.INSTANCE, null, 1f, 0);
      return ids(corpus.search(SearchRequest.builder().hits(k).addKnn(knn).build()).hits());
    }
    return ids(corpus.vectorHits(q.vector(), Filter.ALL, k));
  }

  /** The request a benchmark query of this type sends, asking for {@code k} hits. */
  static SearchRequest request(BenchQuery q, QueryType type, boolean filtered, int k) {
    SearchRequest.Builder b = SearchRequest.builder().hits(k);
    if (filtered) {
      b.filter(Filter.category(q.category()));
    }
    switch (type) {
      case LEXICAL -> b.text(q.text()).rankProfile(RankProfile.BM25);
      case VECTOR -> b.vector(q.vector()).targetHits(VECTOR_K).rankProfile(RankProfile.CLOSENESS);
      case HYBRID ->
          b.text(q.text()).vector(q.vector()).targetHits(VECTOR_K).rankProfile(RankProfile.HYBRID);
    }
    return b.build();
  }

  private static List<String> ids(List<Hit> hits) {
    return hits.stream().map(Hit::id).toList();
  }
}
