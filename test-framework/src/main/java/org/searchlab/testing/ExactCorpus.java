// Over 500 lines: the one executable definition of the query semantics, every query type of the
// contract in one place, so that it can be read against Elasticsearch's and Lucene's as a whole.
package org.searchlab.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.apache.lucene.util.VectorUtil;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Fusion;
import org.searchlab.core.Hit;
import org.searchlab.core.ProductShape;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.mapping.DocumentParser;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.ParsedDocument;
import org.searchlab.core.query.Knn;
import org.searchlab.core.scoring.Bm25;

/**
 * The one exact implementation of the query semantics: an in-memory set of documents of one mapping
 * that answers every {@link SearchRequest} by brute force, the reference both stores are checked
 * against (by the conformance suite, through {@link ExactIndex}) and recall is measured against (by
 * the experiment runner). What each query means is in {@link ExactQueries}; this class holds the
 * documents and the collection statistics BM25 needs:
 *
 * <ul>
 *   <li>a {@code text} field: per term the documents and frequencies, per document the one-byte
 *       norm of its length (all its values' tokens), the documents with a token and the total
 *       tokens, as Lucene keeps them;
 *   <li>a {@code keyword} field: per value the documents (Lucene indexes it with frequencies off
 *       and no norms), the documents with a value and the sum of distinct values per document.
 * </ul>
 *
 * The benchmark's searches (best-fields over {@code title} and {@code description}, kNN on {@code
 * embedding}, a category/price filter) also have a direct path over the postings, which the
 * experiment's recall measurement needs at 100,000 documents; {@code ExactCorpusTest} checks that
 * it agrees with the general one. Ties: equal scores rank by the order documents were added (then
 * by id for fused lists), so answers are deterministic; callers that compare with a store must be
 * tie-aware.
 *
 * <p>Documents get increasing ordinals; a removed document's ordinal is dead, skipped by searches,
 * and reclaimed when dead ordinals outnumber live ones. Collection statistics count live documents
 * only.
 *
 * <p>Not thread-safe: callers serialise writes and searches ({@link ExactIndex} uses a read-write
 * lock; searches alone may run concurrently once no writer runs).
 */
public final class ExactCorpus {
  private Mapping mapping;
  private final String defaultAnalyzer;
  private final Map<String, Integer> ordinalOf = new HashMap<>();
  private final List<ParsedDocument> docs = new ArrayList<>(); // by ordinal; null when dead
  private final Map<String, TextField> text = new HashMap<>();
  private final Map<String, KeywordField> keywords = new HashMap<>();
  private int live;

  /** A corpus of the benchmark's mapping; the vector dimension is set by the first document. */
  public ExactCorpus() {
    this(Mapping.product(0), TextAnalysis.NAME);
  }

  /** A corpus of {@code mapping}, which grows as documents add fields to it. */
  public ExactCorpus(Mapping mapping, String defaultAnalyzer) {
    this.mapping = mapping;
    this.defaultAnalyzer = defaultAnalyzer;
  }

  /** The mapping, with every field documents added so far. */
  public Mapping mapping() {
    return mapping;
  }

  /** Adds {@code update}'s fields to the mapping ({@code PUT _mapping}). */
  public void merge(Mapping update) {
    mapping = mapping.merge(update);
  }

  /** Reads later documents against {@code newer}, a grown copy of this corpus's mapping. */
  void useMapping(Mapping newer) {
    mapping = newer;
  }

  /** Adds or replaces a document, read against the mapping (which may grow). */
  public void put(Document doc) {
    ParsedDocument p = DocumentParser.parse(mapping, defaultAnalyzer, doc);
    mapping = p.mapping();
    put(p);
  }

  /** Adds or replaces an already parsed document. */
  public void put(ParsedDocument p) {
    remove(p.id());
    int ord = docs.size();
    docs.add(p);
    ordinalOf.put(p.id(), ord);
    live++;
    for (Map.Entry<String, Object> e : p.values().entrySet()) {
      FieldType t = mapping.leaf(e.getKey());
      if (t instanceof FieldType.Text tt && tt.indexed()) {
        List<String> tokens = tokens(tt, (String[]) e.getValue());
        if (!tokens.isEmpty()) {
          text.computeIfAbsent(e.getKey(), k -> new TextField()).add(ord, tokens);
        }
      } else if (t instanceof FieldType.Keyword k && k.indexed()) {
        keywords
            .computeIfAbsent(e.getKey(), x -> new KeywordField())
            .add((String[]) e.getValue(), +1);
      }
    }
  }

  /** Removes a document; returns whether it was there. */
  public boolean remove(String id) {
    Integer ord = ordinalOf.remove(id);
    if (ord == null) {
      return false;
    }
    ParsedDocument p = docs.set(ord, null);
    live--;
    for (Map.Entry<String, Object> e : p.values().entrySet()) {
      FieldType t = mapping.leaf(e.getKey());
      if (t instanceof FieldType.Text tt && tt.indexed()) {
        List<String> tokens = tokens(tt, (String[]) e.getValue());
        if (!tokens.isEmpty()) {
          text.get(e.getKey()).remove(tokens);
        }
      } else if (t instanceof FieldType.Keyword k && k.indexed()) {
        keywords.get(e.getKey()).add((String[]) e.getValue(), -1);
      }
    }
    if (docs.size() - live > Math.max(1024, live)) {
      compact();
    }
    return true;
  }

  private static List<String> tokens(FieldType.Text t, String[] values) {
    List<String> out = new ArrayList<>();
    for (String v : values) {
      out.addAll(TextAnalysis.tokens(t.analyzer(), v));
    }
    return out;
  }

  /** The document with this id, or null. */
  public Document get(String id) {
    Integer ord = ordinalOf.get(id);
    return ord == null ? null : docs.get(ord).document();
  }

  /** The parsed document with this id, or null. */
  ParsedDocument parsed(String id) {
    Integer ord = ordinalOf.get(id);
    return ord == null ? null : docs.get(ord);
  }

  /** Live documents. */
  public int size() {
    return live;
  }

  /** Live documents in id order. */
  public List<Document> documents() {
    TreeMap<String, Document> byId = new TreeMap<>();
    for (ParsedDocument d : docs) {
      if (d != null) {
        byId.put(d.id(), d.document());
      }
    }
    return new ArrayList<>(byId.values());
  }

  // ----------------------------------------------------------------------------------------------
  // Reads for ExactQueries

  int ordinals() {
    return docs.size();
  }

  ParsedDocument at(int ord) {
    return docs.get(ord);
  }

  TextField textField(String path) {
    return text.get(path);
  }

  KeywordField keywordField(String path) {
    return keywords.get(path);
  }

  // ----------------------------------------------------------------------------------------------
  // Search

  /** Answers a request exactly; the request must already be valid for the mapping. */
  public SearchResult search(SearchRequest request) {
    long start = System.nanoTime();
    var shape = ProductShape.of(request);
    List<Hit> ranked;
    TotalHits totalHits;
    String lexPlan;
    Map<String, org.searchlab.core.agg.AggregationResult> aggs = Map.of();
    String vecPlan = request.knn().isEmpty() ? QueryPlan.NONE : QueryPlan.EXACT;
    if (shape.isPresent() && productFields()) {
      ProductResult r = searchProduct(request, shape.get());
      ranked = r.ranked;
      totalHits = r.total;
      lexPlan = r.lexPlan;
    } else {
      ExactQueries queries = new ExactQueries(this, mapping);
      ExactQueries.Result r = queries.search(request);
      ranked = r.ranked();
      if (!request.aggregations().isEmpty()) {
        List<ExactAggregations.Match> matches = new ArrayList<>(ranked.size());
        for (Hit h : ranked) {
          matches.add(new ExactAggregations.Match(ordinalOf.get(h.id()), h.score()));
        }
        aggs = new ExactAggregations(this, mapping, queries).all(request.aggregations(), matches);
      }
      if (request.sorted()) {
        ranked = sortHits(request, ranked, queries);
      }
      totalHits =
          request.query() != null && r.total() > request.trackTotalHitsUpTo()
              ? TotalHits.atLeast(request.trackTotalHitsUpTo())
              : TotalHits.exact(r.total());
      lexPlan = request.query() == null ? QueryPlan.NONE : QueryPlan.EXHAUSTIVE;
    }
    int from = Math.min(request.offset(), ranked.size());
    int to = Math.min(from + request.hits(), ranked.size());
    List<Hit> page = ranked.subList(from, to);
    if (request.fetchDocuments()) {
      page = page.stream().map(h -> h.withDocument(get(h.id()))).toList();
    }
    return new SearchResult(
        page,
        totalHits,
        new QueryPlan(lexPlan, vecPlan),
        new Timings(System.nanoTime() - start, 0, 0, 0),
        aggs);
  }

  /**
   * The matches in the request's sort order ({@link ExactSort}), each with its sort values, and
   * only those strictly after {@code search_after} when it is given.
   */
  private List<Hit> sortHits(SearchRequest request, List<Hit> ranked, ExactQueries queries) {
    List<org.searchlab.core.query.SortKey> keys = request.sort();
    ExactSort.Values values =
        (ord, field) -> {
          ParsedDocument d = at(ord);
          List<Object> out = new ArrayList<>();
          if (mapping.leaf(field) instanceof FieldType.Keyword && d.strings(field) != null) {
            out.addAll(new java.util.LinkedHashSet<>(List.of(d.strings(field))));
          } else if (d.longs(field) != null) {
            for (long v : d.longs(field)) {
              out.add(v);
            }
          } else if (d.doubles(field) != null) {
            for (double v : d.doubles(field)) {
              out.add(v);
            }
          }
          return out;
        };
    List<Hit> out = new ArrayList<>(ranked.size());
    for (Hit h : ranked) {
      int ord = ordinalOf.get(h.id());
      List<Object> sv = ExactSort.sortValues(keys, mapping, values, ord, h.score(), h.id());
      if (!request.searchAfter().isEmpty()
          && ExactSort.compare(keys, sv, afterValues(keys, request.searchAfter())) <= 0) {
        continue;
      }
      out.add(new Hit(h.id(), h.score(), null, sv));
    }
    out.sort(
        (a, b) -> {
          int c = ExactSort.compare(keys, a.sortValues(), b.sortValues());
          return c != 0 ? c : a.id().compareTo(b.id());
        });
    return out;
  }

  /** search_after values in the types sort values have: numbers of a field's type, strings. */
  private List<Object> afterValues(
      List<org.searchlab.core.query.SortKey> keys, List<Object> after) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      out.add(
          org.searchlab.core.query.SortValues.coerce(
              keys.get(i), mapping.leaf(keys.get(i).field()), after.get(i)));
    }
    return out;
  }

  /** Whether the mapping has the benchmark's fields as the benchmark defines them. */
  private boolean productFields() {
    return mapping.leaf(Schema.TITLE) instanceof FieldType.Text t1
        && t1.similarity().equals(FieldType.Bm25Similarity.DEFAULT)
        && t1.analyzer().equals(TextAnalysis.NAME)
        && mapping.leaf(Schema.DESCRIPTION) instanceof FieldType.Text t2
        && t2.similarity().equals(FieldType.Bm25Similarity.DEFAULT)
        && t2.analyzer().equals(TextAnalysis.NAME)
        && mapping.leaf(Schema.CATEGORY) instanceof FieldType.Keyword k
        && k.ignoreAbove() == Integer.MAX_VALUE
        && mapping.leaf(Schema.PRICE) instanceof FieldType.Numeric p
        && p.type().integral()
        && (mapping.leaf(Schema.EMBEDDING) == null
            || mapping.vector(Schema.EMBEDDING).similarity()
                == org.searchlab.core.mapping.VectorSimilarity.DOT_PRODUCT);
  }

  private record ProductResult(List<Hit> ranked, TotalHits total, String lexPlan) {}

  private ProductResult searchProduct(SearchRequest request, ProductShape p) {
    List<Hit> ranked;
    long total;
    String lexPlan = request.hasLexicalPart() ? QueryPlan.EXHAUSTIVE : QueryPlan.NONE;
    switch (p.profile()) {
      case BM25 -> {
        Map<String, Float> lexical = lexicalScores(p.text(), p.filter());
        ranked = sorted(lexical);
        total = lexical.size();
      }
      case CLOSENESS -> {
        ranked = vectorHits(p.vector(), p.filter(), p.k());
        total = ranked.size();
      }
      case HYBRID -> {
        ranked =
            fuse(
                request,
                sorted(lexicalScores(p.text(), p.filter())),
                vectorHits(p.vector(), p.filter(), p.k()));
        total = ranked.size();
      }
      default -> {
        ranked = new ArrayList<>();
        for (Document d : documents()) {
          if (p.filter().matches(d)) {
            ranked.add(new Hit(d.id(), 1f));
          }
        }
        total = ranked.size();
        lexPlan = QueryPlan.FILTER_SCAN;
      }
    }
    TotalHits totalHits =
        request.hasLexicalPart() && total > request.trackTotalHitsUpTo()
            ? TotalHits.atLeast(request.trackTotalHitsUpTo())
            : TotalHits.exact(total);
    return new ProductResult(ranked, totalHits, lexPlan);
  }

  /**
   * The exact lexical score of every document that passes the filter and has a query token in
   * {@code title} or {@code description}: max over the two fields of the sum over query tokens
   * (repeats included) of Lucene's BM25. Each field's sum is taken in double, as Lucene's
   * disjunctions sum.
   */
  public Map<String, Float> lexicalScores(String queryText, Filter filter) {
    List<String> query = queryText == null ? List.of() : TextAnalysis.tokens(queryText);
    Map<String, Float> out = new HashMap<>();
    if (query.isEmpty()) {
      return out;
    }
    float[] best = null;
    for (String field : Schema.TEXT_FIELDS) {
      TextField f = text.get(field);
      if (f == null || f.docCount == 0) {
        continue;
      }
      float[] cache = f.normInverseCache(FieldType.Bm25Similarity.DEFAULT);
      double[] sum = new double[docs.size()];
      boolean[] matched = new boolean[docs.size()];
      for (String t : query) {
        Postings p = f.postings.get(t);
        if (p == null || p.docFreq == 0) {
          continue;
        }
        float weight = Bm25.idf(p.docFreq, f.docCount);
        for (int i = 0; i < p.size; i++) {
          int ord = p.ords[i];
          ParsedDocument d = docs.get(ord);
          if (d == null || !filter.matches(d.document())) {
            continue;
          }
          matched[ord] = true;
          sum[ord] += Bm25.score(weight, p.freqs[i], cache[f.norm(ord) & 0xFF]);
        }
      }
      if (best == null) {
        best = new float[docs.size()];
        Arrays.fill(best, Float.NEGATIVE_INFINITY);
      }
      for (int ord = 0; ord < sum.length; ord++) {
        if (matched[ord]) {
          best[ord] = Math.max(best[ord], (float) sum[ord]);
        }
      }
    }
    if (best != null) {
      for (int ord = 0; ord < best.length; ord++) {
        if (best[ord] != Float.NEGATIVE_INFINITY) {
          out.put(docs.get(ord).id(), best[ord]);
        }
      }
    }
    return out;
  }

  /** The exact lexical score of one document for {@code text}, or NaN if it does not match. */
  public float lexicalScore(String id, String queryText) {
    if (get(id) == null) {
      return Float.NaN;
    }
    return lexicalScores(queryText, Filter.ALL).getOrDefault(id, Float.NaN);
  }

  /**
   * The exact top {@code k} by closeness among documents with an {@code embedding} that pass the
   * filter, best first; equal scores keep the earlier-added document.
   */
  public List<Hit> vectorHits(float[] query, Filter filter, int k) {
    TopK top = new TopK(Math.max(1, k));
    for (int ord = 0; ord < docs.size(); ord++) {
      ParsedDocument d = docs.get(ord);
      if (d == null) {
        continue;
      }
      float[] v = d.vector(Schema.EMBEDDING);
      if (v == null || !filter.matches(d.document())) {
        continue;
      }
      float s = org.searchlab.core.scoring.VectorScores.closeness(query, v);
      if (s >= top.threshold()) {
        top.offer(s, ord);
      }
    }
    return hits(top, k);
  }

  List<Hit> hits(TopK top, int k) {
    float[][] scores = new float[1][];
    int[] ords = top.drainBestFirst(scores);
    List<Hit> hits = new ArrayList<>(ords.length);
    for (int i = 0; i < ords.length && i < k; i++) {
      hits.add(new Hit(docs.get(ords[i]).id(), scores[0][i]));
    }
    return hits;
  }

  /**
   * Offers the dot product of {@code query} with each of {@code vectors[from, to)} that {@code
   * accept} takes (tested with ordinal {@code base + i}) into {@code top}: the brute-force kNN
   * kernel, for callers that stream vectors from files in blocks (ground truth of large datasets).
   * Dot products rank like closeness, which is (1 + dot) / 2.
   */
  public static void scanDot(
      float[] query, float[][] vectors, int from, int to, int base, IntPredicate accept, TopK top) {
    for (int i = from; i < to; i++) {
      if (!accept.test(base + i)) {
        continue;
      }
      float dot = VectorUtil.dotProduct(query, vectors[i]);
      if (dot > top.threshold()) {
        top.offer(dot, base + i);
      }
    }
  }

  /** Combines the parts as {@link Fusion} defines; candidates are the union of both lists. */
  static List<Hit> fuse(SearchRequest request, List<Hit> lexical, List<Hit> vector) {
    return fuse(request, List.of(lexical, vector));
  }

  /** Combines ranked parts by the request's rank: summed scores, or reciprocal rank fusion. */
  static List<Hit> fuse(SearchRequest request, List<List<Hit>> parts) {
    Map<String, Float> score = new LinkedHashMap<>();
    if (!request.rank().isRrf()) {
      for (List<Hit> part : parts) {
        for (Hit h : part) {
          score.merge(h.id(), h.score(), Float::sum);
        }
      }
    } else {
      int window = request.rrfWindow();
      int c = request.rank().rankConstant();
      for (List<Hit> part : parts) {
        for (int i = 0; i < Math.min(window, part.size()); i++) {
          score.merge(part.get(i).id(), 1f / (c + i + 1), Float::sum);
        }
      }
      // Candidates outside every window still match; they rank after every fused one.
      for (List<Hit> part : parts) {
        for (Hit h : part) {
          score.putIfAbsent(h.id(), 0f);
        }
      }
    }
    return sorted(score);
  }

  /** Best first: higher score, then lower id. */
  public static final Comparator<Hit> BY_SCORE =
      Comparator.comparingDouble((Hit h) -> -h.score()).thenComparing(Hit::id);

  static List<Hit> sorted(Map<String, Float> scores) {
    List<Hit> hits = new ArrayList<>(scores.size());
    scores.forEach((id, s) -> hits.add(new Hit(id, s)));
    hits.sort(BY_SCORE);
    return hits;
  }

  /** Renumbers live documents densely and rebuilds the statistics without dead entries. */
  private void compact() {
    List<ParsedDocument> keep = new ArrayList<>(live);
    for (ParsedDocument d : docs) {
      if (d != null) {
        keep.add(d);
      }
    }
    docs.clear();
    ordinalOf.clear();
    text.clear();
    keywords.clear();
    live = 0;
    keep.forEach(this::put);
  }

  // ----------------------------------------------------------------------------------------------

  /** One text field's postings, norms and statistics, as Lucene keeps them. */
  static final class TextField {
    final Map<String, Postings> postings = new HashMap<>();
    byte[] norms = new byte[16];
    long docCount;
    long sumTotalTermFreq;

    void add(int ord, List<String> tokens) {
      if (norms.length <= ord) {
        norms = Arrays.copyOf(norms, Math.max(ord + 1, norms.length * 2));
      }
      docCount++;
      sumTotalTermFreq += tokens.size();
      norms[ord] = Bm25.encodeNorm(tokens.size());
      for (Map.Entry<String, Integer> e : termFreqs(tokens).entrySet()) {
        postings.computeIfAbsent(e.getKey(), t -> new Postings()).add(ord, e.getValue());
      }
    }

    void remove(List<String> tokens) {
      docCount--;
      sumTotalTermFreq -= tokens.size();
      for (String t : termFreqs(tokens).keySet()) {
        postings.get(t).docFreq--;
      }
    }

    byte norm(int ord) {
      return ord < norms.length ? norms[ord] : 0;
    }

    float[] normInverseCache(FieldType.Bm25Similarity sim) {
      return Bm25.normInverseCache(
          Bm25.avgFieldLength(sumTotalTermFreq, docCount), sim.k1(), sim.b());
    }

    /** The term's frequency in the document at {@code ord}, 0 when absent. */
    int freq(String term, int ord) {
      Postings p = postings.get(term);
      if (p == null) {
        return 0;
      }
      int i = Arrays.binarySearch(p.ords, 0, p.size, ord);
      return i < 0 ? 0 : p.freqs[i];
    }

    int docFreq(String term) {
      Postings p = postings.get(term);
      return p == null ? 0 : p.docFreq;
    }
  }

  /** One keyword field's document frequencies and statistics (no norms, no frequencies). */
  static final class KeywordField {
    final Map<String, Integer> docFreq = new HashMap<>();
    long docCount;
    long sumDocFreq;

    void add(String[] values, int sign) {
      java.util.Set<String> distinct = new java.util.LinkedHashSet<>(Arrays.asList(values));
      if (distinct.isEmpty()) {
        return;
      }
      docCount += sign;
      sumDocFreq += sign * distinct.size();
      for (String v : distinct) {
        docFreq.merge(v, sign, Integer::sum);
      }
    }
  }

  private static Map<String, Integer> termFreqs(List<String> tokens) {
    Map<String, Integer> tf = new HashMap<>();
    for (String t : tokens) {
      tf.merge(t, 1, Integer::sum);
    }
    return tf;
  }

  /** (ordinal, freq) pairs in ordinal order, and the number of live documents among them. */
  static final class Postings {
    int[] ords = new int[4];
    int[] freqs = new int[4];
    int size;
    int docFreq;

    void add(int ord, int freq) {
      if (size == ords.length) {
        ords = Arrays.copyOf(ords, size * 2);
        freqs = Arrays.copyOf(freqs, size * 2);
      }
      ords[size] = ord;
      freqs[size++] = freq;
      docFreq++;
    }
  }

  /** For {@link ExactQueries}: the kNN top {@code k} of one search, exact. */
  List<Hit> knn(Knn knn, IntPredicate accept) {
    FieldType.DenseVector f = mapping.vector(knn.field());
    if (f == null) {
      return List.of();
    }
    TopK top = new TopK(Math.max(1, knn.k()));
    float floor =
        knn.similarity() == null
            ? Float.NEGATIVE_INFINITY
            : ExactQueries.scoreFloor(f.similarity(), knn.similarity());
    for (int ord = 0; ord < docs.size(); ord++) {
      ParsedDocument d = docs.get(ord);
      if (d == null) {
        continue;
      }
      float[] v = d.vector(knn.field());
      if (v == null || !accept.test(ord)) {
        continue;
      }
      float s = f.similarity().score(knn.vector(), v);
      if (s < floor) {
        continue;
      }
      s *= knn.boost();
      if (s >= top.threshold()) {
        top.offer(s, ord);
      }
    }
    return hits(top, knn.k());
  }
}
