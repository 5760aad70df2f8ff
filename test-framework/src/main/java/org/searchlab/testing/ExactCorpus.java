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
import org.searchlab.core.QueryPlan;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.scoring.Bm25;
import org.searchlab.core.scoring.VectorScores;

/**
 * The one exact implementation of the query semantics: an in-memory set of documents that answers
 * every {@link SearchRequest} by brute force, the reference both stores are checked against (by the
 * conformance suite, through {@link ExactIndex}) and recall is measured against (by the experiment
 * runner).
 *
 * <ul>
 *   <li>Lexical: every document with a query token in {@code title} or {@code description} that
 *       passes the filter, score max over the two fields of the sum over query tokens (repeats
 *       included) of BM25 with Lucene's arithmetic and one-byte norms ({@link Bm25}); exhaustive,
 *       so exact.
 *   <li>Vector: closeness (1 + dot) / 2 of every document with a vector that passes the filter; the
 *       exact top {@code targetHits}.
 *   <li>Hybrid: the union of both, scores added (or reciprocal rank fusion).
 *   <li>Ties: equal scores rank by the order documents were added (then by id for lexical-only and
 *       fused lists), so answers are deterministic; callers that compare with a store must be
 *       tie-aware.
 * </ul>
 *
 * <p>Documents get increasing ordinals; a removed document's ordinal is dead, skipped by searches,
 * and reclaimed when dead ordinals outnumber live ones (the postings are rebuilt). Postings list
 * (ordinal, term frequency) per field and term; collection statistics count live documents only.
 *
 * <p>Not thread-safe: callers serialise writes and searches ({@link ExactIndex} uses a read-write
 * lock; searches alone may run concurrently once no writer runs).
 */
public final class ExactCorpus {
  private static final int FIELDS = 2;

  private final Map<String, Integer> ordinalOf = new HashMap<>();
  private final List<Document> docs = new ArrayList<>(); // by ordinal; null when dead
  private byte[][] norms = {new byte[16], new byte[16]};
  private final List<Map<String, Postings>> postings = List.of(new HashMap<>(), new HashMap<>());
  private final long[] docCount = new long[FIELDS];
  private final long[] sumTotalTermFreq = new long[FIELDS];
  private int live;

  /** Adds or replaces a document. */
  public void put(Document doc) {
    remove(doc.id());
    int ord = docs.size();
    docs.add(doc);
    ordinalOf.put(doc.id(), ord);
    live++;
    for (int f = 0; f < FIELDS; f++) {
      if (norms[f].length <= ord) {
        norms[f] = Arrays.copyOf(norms[f], Math.max(ord + 1, norms[f].length * 2));
      }
      List<String> tokens = TextAnalysis.tokens(text(doc, f));
      if (tokens.isEmpty()) {
        continue;
      }
      docCount[f]++;
      sumTotalTermFreq[f] += tokens.size();
      norms[f][ord] = Bm25.encodeNorm(tokens.size());
      for (Map.Entry<String, Integer> e : termFreqs(tokens).entrySet()) {
        Postings p = postings.get(f).computeIfAbsent(e.getKey(), t -> new Postings());
        p.add(ord, e.getValue());
      }
    }
  }

  /** Removes a document; returns whether it was there. */
  public boolean remove(String id) {
    Integer ord = ordinalOf.remove(id);
    if (ord == null) {
      return false;
    }
    Document doc = docs.set(ord, null);
    live--;
    for (int f = 0; f < FIELDS; f++) {
      List<String> tokens = TextAnalysis.tokens(text(doc, f));
      if (tokens.isEmpty()) {
        continue;
      }
      docCount[f]--;
      sumTotalTermFreq[f] -= tokens.size();
      for (String t : termFreqs(tokens).keySet()) {
        postings.get(f).get(t).docFreq--;
      }
    }
    if (docs.size() - live > Math.max(1024, live)) {
      compact();
    }
    return true;
  }

  /** The document with this id, or null. */
  public Document get(String id) {
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
    for (Document d : docs) {
      if (d != null) {
        byId.put(d.id(), d);
      }
    }
    return new ArrayList<>(byId.values());
  }

  /** Answers a request exactly; the request must already be valid for the schema. */
  public SearchResult search(SearchRequest request) {
    long start = System.nanoTime();
    List<Hit> ranked;
    long total;
    String lexPlan = request.hasLexicalPart() ? QueryPlan.EXHAUSTIVE : QueryPlan.NONE;
    String vecPlan = request.hasVectorPart() ? QueryPlan.EXACT : QueryPlan.NONE;
    switch (request.rankProfile()) {
      case BM25 -> {
        Map<String, Float> lexical = lexicalScores(request.text(), request.filter());
        ranked = sorted(lexical);
        total = lexical.size();
      }
      case CLOSENESS -> {
        ranked = vectorHits(request.vector(), request.filter(), request.targetHits());
        total = ranked.size();
      }
      case HYBRID -> {
        ranked =
            fuse(
                request,
                sorted(lexicalScores(request.text(), request.filter())),
                vectorHits(request.vector(), request.filter(), request.targetHits()));
        total = ranked.size();
      }
      default -> {
        ranked = new ArrayList<>();
        for (Document d : documents()) {
          if (request.filter().matches(d)) {
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
    int from = Math.min(request.offset(), ranked.size());
    int to = Math.min(from + request.hits(), ranked.size());
    List<Hit> page = ranked.subList(from, to);
    if (request.fetchDocuments()) {
      page = page.stream().map(h -> new Hit(h.id(), h.score(), get(h.id()))).toList();
    }
    return new SearchResult(
        page,
        totalHits,
        new QueryPlan(lexPlan, vecPlan),
        new Timings(System.nanoTime() - start, 0, 0, 0));
  }

  /**
   * The exact lexical score of every matching document that passes the filter: max over fields of
   * the sum over query tokens (with repeats) of Lucene's BM25. Each field's sum is taken in double,
   * as Lucene's disjunctions sum.
   */
  public Map<String, Float> lexicalScores(String text, Filter filter) {
    List<String> query = text == null ? List.of() : TextAnalysis.tokens(text);
    Map<String, Float> out = new HashMap<>();
    if (query.isEmpty()) {
      return out;
    }
    float[] best = null;
    for (int f = 0; f < FIELDS; f++) {
      if (docCount[f] == 0) {
        continue;
      }
      float[] cache = Bm25.normInverseCache(Bm25.avgFieldLength(sumTotalTermFreq[f], docCount[f]));
      double[] sum = new double[docs.size()];
      boolean[] matched = new boolean[docs.size()];
      for (String t : query) {
        Postings p = postings.get(f).get(t);
        if (p == null || p.docFreq == 0) {
          continue;
        }
        float weight = Bm25.idf(p.docFreq, docCount[f]);
        for (int i = 0; i < p.size; i++) {
          int ord = p.ords[i];
          Document d = docs.get(ord);
          if (d == null || !filter.matches(d)) {
            continue;
          }
          matched[ord] = true;
          sum[ord] += Bm25.score(weight, p.freqs[i], cache[norms[f][ord] & 0xFF]);
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
  public float lexicalScore(String id, String text) {
    Document d = get(id);
    if (d == null) {
      return Float.NaN;
    }
    return lexicalScores(text, Filter.ALL).getOrDefault(id, Float.NaN);
  }

  /**
   * The exact top {@code k} by closeness among documents with a vector that pass the filter, best
   * first; equal scores keep the earlier-added document.
   */
  public List<Hit> vectorHits(float[] query, Filter filter, int k) {
    TopK top = new TopK(Math.max(1, k));
    for (int ord = 0; ord < docs.size(); ord++) {
      Document d = docs.get(ord);
      if (d == null || !d.hasEmbedding() || !filter.matches(d)) {
        continue;
      }
      float s = VectorScores.closeness(query, d.embedding());
      if (s >= top.threshold()) {
        top.offer(s, ord);
      }
    }
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
    Map<String, Float> score = new LinkedHashMap<>();
    if (request.fusion() == Fusion.SUM) {
      for (Hit h : lexical) score.merge(h.id(), h.score(), Float::sum);
      for (Hit h : vector) score.merge(h.id(), h.score(), Float::sum);
    } else {
      int window = request.rrfWindow();
      for (List<Hit> part : List.of(lexical, vector)) {
        for (int i = 0; i < Math.min(window, part.size()); i++) {
          score.merge(part.get(i).id(), 1f / (Fusion.RRF_K + i + 1), Float::sum);
        }
      }
      // Candidates outside both windows still match; they rank after every fused one.
      for (Hit h : lexical) score.putIfAbsent(h.id(), 0f);
      for (Hit h : vector) score.putIfAbsent(h.id(), 0f);
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

  private static String text(Document doc, int field) {
    return field == 0 ? doc.title() : doc.description();
  }

  private static Map<String, Integer> termFreqs(List<String> tokens) {
    Map<String, Integer> tf = new HashMap<>();
    for (String t : tokens) {
      tf.merge(t, 1, Integer::sum);
    }
    return tf;
  }

  /** Renumbers live documents densely and rebuilds the postings without dead entries. */
  private void compact() {
    List<Document> keep = new ArrayList<>(live);
    for (Document d : docs) {
      if (d != null) {
        keep.add(d);
      }
    }
    docs.clear();
    ordinalOf.clear();
    postings.forEach(Map::clear);
    Arrays.fill(docCount, 0);
    Arrays.fill(sumTotalTermFreq, 0);
    norms = new byte[][] {new byte[16], new byte[16]};
    live = 0;
    keep.forEach(this::put);
  }

  /** (ordinal, freq) pairs in ordinal order, and the number of live documents among them. */
  private static final class Postings {
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
}
