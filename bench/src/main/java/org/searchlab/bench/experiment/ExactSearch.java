package org.searchlab.bench.experiment;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.searchlab.core.Document;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.scoring.Bm25;
import org.searchlab.core.scoring.VectorScores;

/**
 * Exact top-k over the corpus, the ground truth recall is measured against. Vector: brute force
 * with Lucene's SIMD dot product, score (1 + dot) / 2. Lexical: exact BM25 ({@link Bm25}, Lucene's
 * arithmetic and one-byte norms, {@link TextAnalysis}) of every document matching any query term,
 * score max(BM25(title), BM25(description)) as {@code multi_match} best_fields. Hybrid: lexical
 * matches ∪ the exact vector top-100, scores added. Filters are exact category matches applied
 * before ranking (pre-filtering). Ties break on corpus order.
 *
 * <p>Postings are kept only for the terms of the queries given at construction, so building costs
 * one analysis pass over the corpus and little memory. Immutable after construction and
 * thread-safe.
 */
public final class ExactSearch {
  /** Neighbours of the vector part, as the benchmark's {@code k}/{@code targetHits}. */
  public static final int VECTOR_K = 100;

  private static final int FIELDS = 2;

  private final List<Document> docs;
  private final byte[][] norms = new byte[FIELDS][];
  private final long[] docCount = new long[FIELDS];
  private final long[] sumTotalTermFreq = new long[FIELDS];
  private final List<Map<String, Postings>> postings = new ArrayList<>();

  private record Postings(int[] docs, int[] freqs) {}

  public ExactSearch(List<Document> docs, Collection<BenchQuery> queries) {
    this.docs = List.copyOf(docs);
    Set<String> terms = new HashSet<>();
    for (BenchQuery q : queries) {
      terms.addAll(TextAnalysis.tokens(q.text()));
    }
    List<Map<String, IntPairs>> building = new ArrayList<>();
    for (int f = 0; f < FIELDS; f++) {
      norms[f] = new byte[docs.size()];
      building.add(new HashMap<>());
    }
    Map<String, Integer> tf = new HashMap<>();
    for (int d = 0; d < docs.size(); d++) {
      Document doc = docs.get(d);
      for (int f = 0; f < FIELDS; f++) {
        List<String> tokens = TextAnalysis.tokens(f == 0 ? doc.title() : doc.description());
        if (tokens.isEmpty()) {
          continue;
        }
        docCount[f]++;
        sumTotalTermFreq[f] += tokens.size();
        norms[f][d] = Bm25.encodeNorm(tokens.size());
        tf.clear();
        for (String t : tokens) {
          if (terms.contains(t)) {
            tf.merge(t, 1, Integer::sum);
          }
        }
        for (Map.Entry<String, Integer> e : tf.entrySet()) {
          building.get(f).computeIfAbsent(e.getKey(), k -> new IntPairs()).add(d, e.getValue());
        }
      }
    }
    for (int f = 0; f < FIELDS; f++) {
      Map<String, Postings> m = new HashMap<>();
      building.get(f).forEach((t, p) -> m.put(t, p.freeze()));
      postings.add(m);
    }
  }

  /** The exact top-{@code k} ids for a benchmark query. */
  public List<String> topK(BenchQuery q, QueryType type, boolean filtered, int k) {
    Map<Integer, Float> scores =
        switch (type) {
          case LEXICAL -> lexical(q, filtered);
          case VECTOR -> vector(q, filtered, VECTOR_K);
          case HYBRID -> hybrid(lexical(q, filtered), vector(q, filtered, VECTOR_K));
        };
    return top(scores, k);
  }

  /**
   * The exact top-{@code k} ids of one query for every type and filter setting, keyed {@code
   * "<type>|<filtered>"}; scores each document's vector once.
   */
  public Map<String, List<String>> topKAll(BenchQuery q, int k) {
    float[] closeness = new float[docs.size()];
    for (int d = 0; d < docs.size(); d++) {
      float[] e = docs.get(d).embedding();
      closeness[d] = e == null ? Float.NaN : VectorScores.closeness(q.vector(), e);
    }
    Map<String, List<String>> out = new HashMap<>();
    for (boolean filtered : new boolean[] {false, true}) {
      Map<Integer, Float> lex = lexical(q, filtered);
      Map<Integer, Float> vec = vector(closeness, q, filtered, VECTOR_K);
      out.put(QueryType.LEXICAL.label() + "|" + filtered, top(lex, k));
      out.put(QueryType.VECTOR.label() + "|" + filtered, top(vec, k));
      out.put(QueryType.HYBRID.label() + "|" + filtered, top(hybrid(new HashMap<>(lex), vec), k));
    }
    return out;
  }

  private static Map<Integer, Float> hybrid(
      Map<Integer, Float> lexical, Map<Integer, Float> vector) {
    vector.forEach((d, s) -> lexical.merge(d, s, Float::sum));
    return lexical;
  }

  /** The exact {@code k} nearest neighbours (unfiltered), for the HNSW grid. */
  public List<String> vectorTopK(BenchQuery q, int k) {
    return top(vector(q, false, k), k);
  }

  private boolean accepts(int d, BenchQuery q, boolean filtered) {
    return !filtered || q.category().equals(docs.get(d).category());
  }

  private Map<Integer, Float> vector(BenchQuery q, boolean filtered, int k) {
    float[] closeness = new float[docs.size()];
    for (int d = 0; d < docs.size(); d++) {
      float[] e = docs.get(d).embedding();
      closeness[d] = e == null ? Float.NaN : VectorScores.closeness(q.vector(), e);
    }
    return vector(closeness, q, filtered, k);
  }

  private Map<Integer, Float> vector(float[] closeness, BenchQuery q, boolean filtered, int k) {
    PriorityQueue<long[]> heap = new PriorityQueue<>(k + 1, ExactSearch::compareWorstFirst);
    for (int d = 0; d < docs.size(); d++) {
      if (Float.isNaN(closeness[d]) || !accepts(d, q, filtered)) {
        continue;
      }
      float s = closeness[d];
      heap.add(new long[] {Float.floatToIntBits(s), d});
      if (heap.size() > k) {
        heap.poll();
      }
    }
    Map<Integer, Float> out = new HashMap<>();
    for (long[] e : heap) {
      out.put((int) e[1], Float.intBitsToFloat((int) e[0]));
    }
    return out;
  }

  private Map<Integer, Float> lexical(BenchQuery q, boolean filtered) {
    List<String> tokens = TextAnalysis.tokens(q.text());
    List<Map<Integer, Float>> perField = new ArrayList<>();
    for (int f = 0; f < FIELDS; f++) {
      Map<Integer, Float> fieldScores = new HashMap<>();
      float avgdl = docCount[f] == 0 ? 1 : Bm25.avgFieldLength(sumTotalTermFreq[f], docCount[f]);
      float[] cache = Bm25.normInverseCache(avgdl);
      for (String t : tokens) {
        Postings p = postings.get(f).get(t);
        if (p == null) {
          continue;
        }
        float weight = Bm25.idf(p.docs().length, docCount[f]);
        for (int i = 0; i < p.docs().length; i++) {
          int d = p.docs()[i];
          if (!accepts(d, q, filtered)) {
            continue;
          }
          float s = Bm25.score(weight, p.freqs()[i], cache[norms[f][d] & 0xFF]);
          fieldScores.merge(d, s, Float::sum);
        }
      }
      perField.add(fieldScores);
    }
    Map<Integer, Float> best = perField.get(0);
    perField.get(1).forEach((d, s) -> best.merge(d, s, Math::max));
    return best;
  }

  private List<String> top(Map<Integer, Float> scores, int k) {
    PriorityQueue<long[]> heap = new PriorityQueue<>(k + 1, ExactSearch::compareWorstFirst);
    scores.forEach(
        (d, s) -> {
          heap.add(new long[] {Float.floatToIntBits(s), d});
          if (heap.size() > k) {
            heap.poll();
          }
        });
    List<long[]> sorted = new ArrayList<>(heap);
    sorted.sort((a, b) -> compareWorstFirst(b, a));
    List<String> ids = new ArrayList<>(sorted.size());
    for (long[] e : sorted) {
      ids.add(docs.get((int) e[1]).id());
    }
    return ids;
  }

  /** Orders (score bits, doc) pairs worst first: lower score, then later doc. */
  private static int compareWorstFirst(long[] a, long[] b) {
    int c = Float.compare(Float.intBitsToFloat((int) a[0]), Float.intBitsToFloat((int) b[0]));
    return c != 0 ? c : Long.compare(b[1], a[1]);
  }

  /** A growable (doc, freq) list. Not thread-safe; used only while building. */
  private static final class IntPairs {
    private int[] docs = new int[4];
    private int[] freqs = new int[4];
    private int size;

    void add(int doc, int freq) {
      if (size == docs.length) {
        docs = java.util.Arrays.copyOf(docs, size * 2);
        freqs = java.util.Arrays.copyOf(freqs, size * 2);
      }
      docs[size] = doc;
      freqs[size++] = freq;
    }

    Postings freeze() {
      return new Postings(
          java.util.Arrays.copyOf(docs, size), java.util.Arrays.copyOf(freqs, size));
    }
  }
}
