package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.testing.TestSeeds;

/** {@link PostingStats} against counting, term by term, the documents that hold each term. */
class PostingStatsTest {
  private static final String[] WORDS = {
    "Library",
    "libraries",
    "games",
    "game",
    "network",
    "daemon",
    "Python",
    "bindings",
    "the",
    "of",
    "tools",
    "tool",
    "X11",
    "font",
    "fonts",
    "kernel",
    "module",
    "data",
    "files",
    "rare"
  };

  private static String text(SplittableRandom r, int words) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < words; i++) {
      // Skewed towards the first words, as term frequencies are.
      int w = (int) (WORDS.length * Math.pow(r.nextDouble(), 2.5));
      b.append(i == 0 ? "" : " ").append(WORDS[w]);
    }
    return b.toString();
  }

  @Test
  void documentFrequenciesHapaxAndQueryPostingsMatchCountingEveryTerm() {
    long seed = TestSeeds.seed("PostingStatsTest");
    SplittableRandom r = new SplittableRandom(seed);
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      docs.add(
          new Document(
              "d" + i,
              text(r, 1 + r.nextInt(6)),
              i % 17 == 0 ? "" : text(r, 1 + r.nextInt(30)),
              "c",
              1,
              1f,
              null));
    }
    PostingStats s = PostingStats.of(docs.iterator());
    assertEquals(200, s.documents());
    List<String> queries = List.of("Python bindings of the library", "rare fonts", "nothing here");
    double[] qp = s.queryPostings(queries);
    for (String field : PostingStats.FIELDS) {
      Set<String> vocabulary = new HashSet<>();
      List<List<String>> tokens = new ArrayList<>();
      for (Document d : docs) {
        List<String> t = TextAnalysis.tokens(field.equals("title") ? d.title() : d.description());
        tokens.add(t);
        vocabulary.addAll(t);
      }
      List<Double> expected = new ArrayList<>();
      int hapax = 0;
      for (String term : vocabulary) {
        int df = 0;
        for (List<String> t : tokens) {
          df += t.contains(term) ? 1 : 0;
        }
        assertEquals(df, s.docFreq(field, term), field + ":" + term);
        expected.add((double) df);
        hapax += df == 1 ? 1 : 0;
      }
      assertEquals(vocabulary.size(), s.terms(field));
      assertEquals((double) hapax / vocabulary.size(), s.hapaxShare(field), 1e-12);
      double[] got = s.docFreqs(field);
      Arrays.sort(got);
      assertArrayEquals(expected.stream().mapToDouble(Double::doubleValue).sorted().toArray(), got);
    }
    for (int q = 0; q < queries.size(); q++) {
      long sum = 0;
      for (String term : new HashSet<>(TextAnalysis.tokens(queries.get(q)))) {
        for (Document d : docs) {
          sum += TextAnalysis.tokens(d.title()).contains(term) ? 1 : 0;
          sum += TextAnalysis.tokens(d.description()).contains(term) ? 1 : 0;
        }
      }
      assertEquals(sum, qp[q], 0, queries.get(q));
    }
    assertEquals(0, qp[2], 0, "words no document holds touch no postings");
  }
}
