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

  private final ExactCorpus corpus = new ExactCorpus();

  /**
   * @param docs the corpus
   * @param queries unused, kept so callers state which queries the truth is for
   */
  public ExactSearch(List<Document> docs, Collection<BenchQuery> queries) {
    for (Document d : docs) {
      corpus.put(d);
    }
  }

  /** The exact top-{@code k} hits, best first, for a benchmark query. */
  public List<Hit> hits(BenchQuery q, QueryType type, boolean filtered, int k) {
    return corpus.search(request(q, type, filtered, k)).hits();
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
   */
  public ExactAnswer answer(BenchQuery q, QueryType type, boolean filtered, int k) {
    Filter filter = filtered ? Filter.category(q.category()) : Filter.ALL;
    return switch (type) {
      case LEXICAL -> {
        Map<String, Float> lexical = corpus.lexicalScores(q.text(), filter);
        yield new ExactAnswer(best(lexical, k), id -> orNaN(lexical.get(id)));
      }
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
        Map<String, Float> lexical = corpus.lexicalScores(q.text(), filter);
        Map<String, Float> vector = new HashMap<>();
        for (Hit h : corpus.vectorHits(q.vector(), filter, VECTOR_K)) {
          vector.put(h.id(), h.score());
        }
        Map<String, Float> fused = new HashMap<>(lexical);
        vector.forEach((id, s) -> fused.merge(id, s, Float::sum));
        yield new ExactAnswer(best(fused, k), id -> orNaN(fused.get(id)));
      }
    };
  }

  /** The {@code k} best of a score map, in the oracle's order (score, then id). */
  private static List<Hit> best(Map<String, Float> scores, int k) {
    return scores.entrySet().stream()
        .map(e -> new Hit(e.getKey(), e.getValue()))
        .sorted(ExactCorpus.BY_SCORE)
        .limit(k)
        .toList();
  }

  private static double orNaN(Float f) {
    return f == null ? Double.NaN : f;
  }

  /** The exact {@code k} nearest neighbours (unfiltered), for the HNSW grid. */
  public List<String> vectorTopK(BenchQuery q, int k) {
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
