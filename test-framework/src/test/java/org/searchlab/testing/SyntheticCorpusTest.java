package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.core.scoring.VectorScores;
import org.searchlab.testing.data.SyntheticCorpus;

class SyntheticCorpusTest {
  @Test
  void documentsDependOnlyOnSeedAndIndex() {
    SyntheticCorpus a = new SyntheticCorpus(42, 16);
    SyntheticCorpus b = new SyntheticCorpus(42, 16);
    assertEquals(a.document(777), b.document(777));
    assertEquals(a.documents(50).get(49), b.document(49));
    assertNotEquals(a.document(1), new SyntheticCorpus(43, 16).document(1));
    Schema schema = new Schema(16);
    for (Document d : a.documents(200)) {
      schema.validate(d); // unit vectors, valid ids
    }
  }

  @Test
  void categoriesAreSkewedAndVectorsClustered() {
    SyntheticCorpus c = new SyntheticCorpus(7, 32);
    Map<String, Integer> sizes = new HashMap<>();
    for (Document d : c.documents(5000)) {
      sizes.merge(d.category(), 1, Integer::sum);
    }
    int largest = sizes.getOrDefault("cat-0", 0);
    int smallest = sizes.values().stream().min(Integer::compare).orElseThrow();
    assertTrue(largest > 5 * smallest, "skew: largest " + largest + ", smallest " + smallest);
    // Same-category documents are closer on average than random pairs.
    double same = 0;
    double any = 0;
    int n = 0;
    for (int i = 0; i < 2000; i += 2) {
      Document x = c.document(i);
      Document y = c.document(i + 1);
      any += VectorScores.closeness(x.embedding(), y.embedding());
      n++;
    }
    int m = 0;
    Document first = null;
    for (Document d : c.documents(3000)) {
      if ("cat-0".equals(d.category())) {
        if (first == null) {
          first = d;
        } else {
          same += VectorScores.closeness(first.embedding(), d.embedding());
          m++;
        }
      }
    }
    assertTrue(same / m > any / n, "clustered: same-category " + same / m + " vs any " + any / n);
  }

  @Test
  void duplicatesCopyTextAndVectorOfAnOriginal() {
    SyntheticCorpus c =
        new SyntheticCorpus(3, 16, SyntheticCorpus.Params.builder().duplicateRate(0.05).build());
    int dups = 0;
    for (int i = 0; i < 4000; i++) {
      int orig = c.originalOf(i);
      if (orig != i) {
        dups++;
        assertEquals(orig, c.originalOf(orig), "an original is not itself a duplicate");
        Document d = c.document(i);
        Document o = c.document(orig);
        assertEquals(o.title(), d.title());
        assertTrue(java.util.Arrays.equals(o.embedding(), d.embedding()));
      }
    }
    assertTrue(dups > 120 && dups < 300, "about 5% duplicates: " + dups);
  }
}
