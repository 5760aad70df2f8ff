package org.searchlab.segmented;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Fusion;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.Mapping;

/**
 * The read path of the segmented store: runs one {@link SearchRequest} on the point-in-time {@link
 * IndexSearcher} of the last refresh, with the semantics of the search contract expressed as the
 * Lucene queries Elasticsearch builds:
 *
 * <ul>
 *   <li>lexical: {@code DisjunctionMaxQuery} (tie breaker 0) over one {@code BooleanQuery} per text
 *       field with a SHOULD {@code TermQuery} per query token, repeats included (Elasticsearch's
 *       {@code multi_match} best_fields of {@code match} queries), collected by {@link
 *       TopScoreDocCollectorManager} with {@code trackTotalHitsUpTo} as its threshold so that
 *       block-max pruning applies beyond it;
 *   <li>vector: {@link PlannedKnnQuery} with the filter as a pre-filter;
 *   <li>hybrid: a {@code BooleanQuery} of the filtered lexical query and the (rewritten) vector
 *       query, both SHOULD, so the scores add; or reciprocal rank fusion;
 *   <li>unranked: the filter (or match-all) with constant score 1.
 * </ul>
 *
 * <p>A search acquires one searcher from the {@link SearcherManager} and keeps it until the hits
 * are built, so scoring and reading the hits' stored fields see the same segments.
 *
 * <p>Thread safety: any number of threads search concurrently; the only shared state is the
 * searcher manager, whose acquire and release are thread-safe. A refresh during a search publishes
 * a new searcher for later searches and leaves this one's reader open until it is released.
 */
final class SegmentedSearcher {
  private final SearcherManager manager;
  // 0 over float vectors; else the rescoring oversample of the quantized format.
  private final int oversample;

  private final DocumentFields fields;
  // Null for the benchmark's fields; else the index's mapping, newest first.
  private final java.util.function.Supplier<Mapping> mapping;
  private final SegmentedConfig config;
  private final org.searchlab.core.VectorVisits visits;
  private final SegmentedAggregationSource.GlobalOrdinals ordinals =
      new SegmentedAggregationSource.GlobalOrdinals();

  SegmentedSearcher(
      SearcherManager manager, int oversample, org.searchlab.core.VectorVisits visits) {
    this(
        manager,
        oversample,
        new ProductDocuments(Schema.DEFAULT),
        null,
        SegmentedConfig.DEFAULT,
        visits);
  }

  /**
   * @param visits where the vector searches count themselves and the vectors they score
   */
  SegmentedSearcher(
      SearcherManager manager,
      int oversample,
      DocumentFields fields,
      java.util.function.Supplier<Mapping> mapping,
      SegmentedConfig config,
      org.searchlab.core.VectorVisits visits) {
    this.manager = manager;
    this.oversample = oversample;
    this.fields = fields;
    this.mapping = mapping;
    this.config = config;
    this.visits = visits;
  }

  /**
   * Runs a benchmark-shaped request both ways on one point-in-time searcher, for tests: {fast path,
   * general translation}. Only for an index of a mapping.
   */
  SearchResult[] searchBothWays(SearchRequest request) throws IOException {
    IndexSearcher s = manager.acquire();
    try {
      return new SearchResult[] {
        productSearch(s, request),
        MappedSearch.search(s, request, mapping.get(), fields, config, ordinals, visits)
      };
    } finally {
      manager.release(s);
    }
  }

  /** Runs a validated request on the searcher of the last refresh. */
  SearchResult search(SearchRequest request) throws IOException {
    IndexSearcher s = manager.acquire();
    try {
      return search(s, request);
    } finally {
      manager.release(s);
    }
  }

  private SearchResult search(IndexSearcher searcher, SearchRequest req) throws IOException {
    if (mapping == null && req.needsEveryMatch()) {
      throw new org.searchlab.core.InvalidRequestException(
          "aggregations and sorts need an index of a mapping; this one was opened with the"
              + " benchmark's schema only");
    }
    if (mapping != null) {
      Mapping m = mapping.get();
      boolean plainRank = !req.rank().isRrf() || req.rank().rankConstant() == Fusion.RRF_K;
      if (!(plainRank && req.productShape().isPresent() && ProductFastPath.fits(m, config))) {
        return MappedSearch.search(searcher, req, m, fields, config, ordinals, visits);
      }
    }
    return productSearch(searcher, req);
  }

  /**
   * The benchmark's requests over the benchmark's fields: the query building made for them (the
   * fast path; {@link MappedSearch} gives the same results more generally).
   */
  SearchResult productSearch(IndexSearcher searcher, SearchRequest req) throws IOException {
    long start = System.nanoTime();
    Query filter = filterQuery(req.filter(), mapping != null);
    int window = Math.max(1, req.offset() + req.hits());
    Part result;
    long lexicalNanos = 0;
    long vectorNanos = 0;
    String lexicalPlan = QueryPlan.NONE;
    String vectorPlan = QueryPlan.NONE;
    switch (req.rankProfile()) {
      case BM25 -> {
        result = collect(searcher, filtered(lexicalQuery(req.text()), filter), window, req);
        lexicalNanos = System.nanoTime() - start;
        lexicalPlan = lexicalPlan(result.total);
      }
      case CLOSENESS -> {
        PlannedKnnQuery knn = knnQuery(req, filter);
        Query rewritten = searcher.rewrite(knn);
        result = collect(searcher, rewritten, window, req);
        vectorNanos = System.nanoTime() - start;
        vectorPlan = knn.plan();
      }
      case HYBRID -> {
        PlannedKnnQuery knn = knnQuery(req, filter);
        Query vector = searcher.rewrite(knn);
        vectorNanos = System.nanoTime() - start;
        vectorPlan = knn.plan();
        long lexStart = System.nanoTime();
        Query lexical = filtered(lexicalQuery(req.text()), filter);
        Query both =
            new BooleanQuery.Builder().add(lexical, Occur.SHOULD).add(vector, Occur.SHOULD).build();
        if (req.fusion() == Fusion.SUM) {
          result = collect(searcher, both, window, req);
          lexicalPlan = lexicalPlan(result.total);
        } else {
          int rrfWindow = req.rrfWindow();
          Part lex = collect(searcher, lexical, Math.max(1, rrfWindow), req);
          Part vec =
              collect(searcher, vector, Math.max(1, Math.min(rrfWindow, req.targetHits())), req);
          TotalHits union = collect(searcher, both, 1, req).total;
          result = new Part(rrf(lex.docs, vec.docs, rrfWindow, req.rank().rankConstant()), union);
          lexicalPlan = lexicalPlan(lex.total);
        }
        lexicalNanos = System.nanoTime() - lexStart;
      }
      case UNRANKED -> {
        Query all = new ConstantScoreQuery(filter == null ? new MatchAllDocsQuery() : filter);
        result = collect(searcher, all, window, req);
        lexicalPlan = QueryPlan.FILTER_SCAN;
        lexicalNanos = System.nanoTime() - start;
      }
      default -> throw new AssertionError(req.rankProfile());
    }
    List<Hit> hits = hits(searcher, result.docs, req, fields);
    long total = System.nanoTime() - start;
    return new SearchResult(
        hits,
        result.total,
        new QueryPlan(lexicalPlan, vectorPlan),
        new Timings(total, lexicalNanos, vectorNanos, 0));
  }

  /** The top docs of one query and its total. */
  record Part(ScoreDoc[] docs, TotalHits total) {}

  static Part collect(IndexSearcher searcher, Query q, int n, SearchRequest req)
      throws IOException {
    TopDocs top = searcher.search(q, new TopScoreDocCollectorManager(n, req.trackTotalHitsUpTo()));
    long value = top.totalHits.value();
    boolean exact =
        top.totalHits.relation() == org.apache.lucene.search.TotalHits.Relation.EQUAL_TO;
    // Elasticsearch reports a lower bound as exactly the threshold ("gte 10000").
    if (!exact || value > req.trackTotalHitsUpTo()) {
      return new Part(
          top.scoreDocs, TotalHits.atLeast(Math.min(value, (long) req.trackTotalHitsUpTo())));
    }
    return new Part(top.scoreDocs, TotalHits.exact(value));
  }

  private static String lexicalPlan(TotalHits total) {
    // Lucene scores every match until the total-hits threshold is reached, then skips blocks whose
    // maximum score cannot compete; a lower-bound total is the sign that it did.
    return total.exact() ? QueryPlan.EXHAUSTIVE : QueryPlan.LUCENE_PRUNED;
  }

  static Query lexicalQuery(String text) {
    List<String> tokens = TextAnalysis.tokens(text);
    if (tokens.isEmpty()) {
      return new MatchNoDocsQuery("the query text has no tokens");
    }
    int clauses = tokens.size() * Schema.TEXT_FIELDS.size();
    if (clauses > IndexSearcher.getMaxClauseCount()) {
      throw new InvalidRequestException(
          "query text has "
              + tokens.size()
              + " tokens, "
              + clauses
              + " term clauses over the text fields; the limit is "
              + IndexSearcher.getMaxClauseCount());
    }
    List<Query> perField = new ArrayList<>(Schema.TEXT_FIELDS.size());
    for (String field : Schema.TEXT_FIELDS) {
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      for (String token : tokens) {
        b.add(new TermQuery(new Term(field, token)), Occur.SHOULD);
      }
      perField.add(b.build());
    }
    return new DisjunctionMaxQuery(perField, 0f);
  }

  /** The filter as a non-scoring query, or null for none. */
  static Query filterQuery(Filter f, boolean mapped) {
    if (f.isMatchAll()) {
      return null;
    }
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    if (f.category() != null) {
      b.add(new TermQuery(new Term(Schema.CATEGORY, f.category())), Occur.FILTER);
    }
    if (f.price() != null) {
      Query price =
          NumericDocValuesField.newSlowRangeQuery(Schema.PRICE, f.price().min(), f.price().max());
      if (mapped) {
        // Any mapping lets a document hold several prices: MappedDocuments keeps those apart.
        price =
            new BooleanQuery.Builder()
                .add(price, Occur.SHOULD)
                .add(
                    org.apache.lucene.document.SortedNumericDocValuesField.newSlowRangeQuery(
                        MappedDocuments.MULTI_VALUED + Schema.PRICE,
                        f.price().min(),
                        f.price().max()),
                    Occur.SHOULD)
                .build();
      }
      b.add(price, Occur.FILTER);
    }
    return b.build();
  }

  private static Query filtered(Query q, Query filter) {
    if (filter == null) {
      return q;
    }
    return new BooleanQuery.Builder().add(q, Occur.MUST).add(filter, Occur.FILTER).build();
  }

  private PlannedKnnQuery knnQuery(SearchRequest req, Query filter) {
    return new PlannedKnnQuery(
        Schema.EMBEDDING,
        req.vector(),
        req.candidates(),
        filter,
        req.targetHits(),
        req.approximate(),
        oversample == 0 ? 0 : req.rescoreWindow(oversample),
        visits);
  }

  /**
   * Reciprocal rank fusion: Σ 1 / (constant + rank) over the top {@code window} of each list; the
   * constant is the request's (Elasticsearch's 60 unless it names another).
   */
  private static ScoreDoc[] rrf(ScoreDoc[] lexical, ScoreDoc[] vector, int window, int constant) {
    Map<Integer, Float> scores = new HashMap<>();
    for (ScoreDoc[] list : List.of(lexical, vector)) {
      for (int i = 0; i < Math.min(window, list.length); i++) {
        scores.merge(list[i].doc, 1f / (constant + i + 1), Float::sum);
      }
    }
    ScoreDoc[] fused = new ScoreDoc[scores.size()];
    int i = 0;
    for (Map.Entry<Integer, Float> e : scores.entrySet()) {
      fused[i++] = new ScoreDoc(e.getKey(), e.getValue());
    }
    java.util.Arrays.sort(
        fused,
        (a, b) ->
            a.score != b.score ? Float.compare(b.score, a.score) : Integer.compare(a.doc, b.doc));
    return fused;
  }

  /**
   * The page of hits, read from the same searcher (and so the same reader, a point-in-time view)
   * that scored them: the id and, when the request asks, the whole document as that reader holds it
   * (stored source, with doc-values updates applied), never a newer version.
   */
  static List<Hit> hits(
      IndexSearcher searcher, ScoreDoc[] docs, SearchRequest req, DocumentFields fields)
      throws IOException {
    int offset = req.offset();
    int n = req.hits();
    List<Hit> hits = new ArrayList<>(Math.max(0, Math.min(n, docs.length - offset)));
    if (req.fetchDocuments()) {
      List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
      for (int i = offset; i < docs.length && hits.size() < n; i++) {
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[i].doc, leaves));
        Document d = fields.load(leaf.reader(), docs[i].doc - leaf.docBase);
        hits.add(new Hit(d.id(), docs[i].score, d));
      }
      return hits;
    }
    StoredFields stored = searcher.storedFields();
    for (int i = offset; i < docs.length && hits.size() < n; i++) {
      LuceneMapping.IdVisitor visitor = new LuceneMapping.IdVisitor(fields.idField());
      stored.document(docs[i].doc, visitor);
      hits.add(new Hit(visitor.id, docs[i].score));
    }
    return hits;
  }
}
