package org.searchlab.bench.data;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.searchlab.core.Document;
import org.searchlab.core.analysis.TextAnalysis;

/**
 * The shape of a corpus's posting lists, for judging whether a generated corpus is realistic: per
 * text field of the benchmark's mapping ({@code title}, {@code description}, analysed with the
 * project's chain, {@link TextAnalysis#NAME}) the document frequency of every term, and per query
 * the summed document frequency of its distinct terms over both fields, which is how many postings
 * the benchmark's {@code multi_match} touches before any skipping.
 *
 * <p>Memory is one counter per distinct term, not per document, so a stream of a million documents
 * fits. Not thread-safe while {@link #add adding}; immutable in use after that.
 */
final class PostingStats {
  /** The fields measured, as the benchmark's mapping names them. */
  static final List<String> FIELDS = List.of("title", "description");

  private final Map<String, Map<String, int[]>> df = new HashMap<>();
  private long documents;

  PostingStats() {
    for (String f : FIELDS) {
      df.put(f, new HashMap<>());
    }
  }

  /** The statistics of every document {@code docs} yields. */
  static PostingStats of(Iterator<Document> docs) {
    PostingStats s = new PostingStats();
    while (docs.hasNext()) {
      s.add(docs.next());
    }
    return s;
  }

  /** Counts one document's distinct terms in each field. */
  void add(Document d) {
    documents++;
    add("title", d.title());
    add("description", d.description());
  }

  private void add(String field, String text) {
    if (text == null || text.isEmpty()) {
      return;
    }
    Map<String, int[]> counts = df.get(field);
    for (String t : new HashSet<>(TextAnalysis.tokens(text))) {
      counts.computeIfAbsent(t, x -> new int[1])[0]++;
    }
  }

  /** The documents counted. */
  long documents() {
    return documents;
  }

  /** The number of documents of {@code field} holding {@code term} (an analysed term). */
  int docFreq(String field, String term) {
    int[] c = df.get(field).get(term);
    return c == null ? 0 : c[0];
  }

  /** The document frequencies of {@code field}'s distinct terms, in no particular order. */
  double[] docFreqs(String field) {
    return df.get(field).values().stream().mapToDouble(c -> c[0]).toArray();
  }

  /** The number of distinct terms of {@code field}. */
  int terms(String field) {
    return df.get(field).size();
  }

  /** The share of {@code field}'s distinct terms found in exactly one document. */
  double hapaxShare(String field) {
    Map<String, int[]> m = df.get(field);
    long hapax = m.values().stream().filter(c -> c[0] == 1).count();
    return m.isEmpty() ? Double.NaN : (double) hapax / m.size();
  }

  /**
   * Per query text, the sum over its distinct analysed terms of their document frequencies in every
   * measured field: the postings a {@code multi_match} over the fields reads.
   */
  double[] queryPostings(List<String> queryTexts) {
    double[] out = new double[queryTexts.size()];
    for (int q = 0; q < out.length; q++) {
      Set<String> terms = new HashSet<>(TextAnalysis.tokens(queryTexts.get(q)));
      long sum = 0;
      for (String t : terms) {
        for (String f : FIELDS) {
          sum += docFreq(f, t);
        }
      }
      out[q] = sum;
    }
    return out;
  }
}
