package org.searchlab.mutable.postings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.searchlab.mutable.memory.PagedBytes;
import org.searchlab.testing.TestSeeds;

/**
 * A posting list against a sorted map: appends, inserts of reused ids before the last posting
 * (block copies and splits), compaction, cursor advance, and block bounds that cover every posting.
 */
class PostingListTest {
  @Test
  void behavesLikeASortedMap() {
    long seed = TestSeeds.seed("PostingListTest.sortedMap");
    SplittableRandom r = new SplittableRandom(seed);
    PagedBytes norms = new PagedBytes((byte) 0);
    PostingList list = new PostingList();
    TreeMap<Integer, Integer> model = new TreeMap<>();
    int next = 0;
    for (int step = 0; step < 20_000; step++) {
      int doc;
      if (r.nextInt(4) == 0 && next > 10) {
        doc = r.nextInt(next); // a reused id, somewhere before the end
        if (model.containsKey(doc)) {
          continue;
        }
      } else {
        doc = next += 1 + r.nextInt(3);
      }
      int freq = 1 + r.nextInt(20);
      byte norm = (byte) r.nextInt(256);
      norms.set(doc, norm);
      list.add(doc, freq, norm & 0xFF);
      model.put(doc, freq);
      if (step % 5000 == 4999) {
        int before = model.size();
        model.keySet().removeIf(d -> d % 7 == 0);
        assertEquals(before - model.size(), list.compact(d -> d % 7 != 0, norms));
      }
    }
    check(list, model, norms);
    // advance() lands on the first posting at or after each target.
    PostingCursor c = new PostingCursor(list);
    for (int target = 0; target <= next + 1; target += 1 + r.nextInt(50)) {
      Integer expected = model.ceilingKey(target);
      assertEquals(expected == null ? PostingCursor.NO_MORE : expected, c.advance(target));
    }
    // Mixed moves: next, short and long advances (inside a block, to its end, across blocks).
    PostingCursor m = new PostingCursor(list);
    int at = -1;
    while (true) {
      int kind = r.nextInt(4);
      Integer expected;
      int got;
      if (kind == 0) {
        expected = model.higherKey(at);
        got = m.nextDoc();
      } else {
        int target =
            at + 1 + (kind == 1 ? r.nextInt(4) : kind == 2 ? r.nextInt(300) : r.nextInt(5000));
        expected = model.ceilingKey(target);
        got = m.advance(target);
      }
      assertEquals(expected == null ? PostingCursor.NO_MORE : expected, got, "seed " + seed);
      if (expected == null) {
        break;
      }
      assertEquals((int) model.get(expected), m.freq());
      at = expected;
    }
  }

  private static void check(PostingList list, TreeMap<Integer, Integer> model, PagedBytes norms) {
    PostingCursor c = new PostingCursor(list);
    int i = 0;
    for (Map.Entry<Integer, Integer> e : model.entrySet()) {
      assertEquals((int) e.getKey(), c.nextDoc(), "posting " + i);
      assertEquals((int) e.getValue(), c.freq());
      assertTrue(c.blockMaxFreq() >= c.freq(), "block max freq covers the posting");
      assertTrue(c.blockMinNorm() <= (norms.get(c.doc()) & 0xFF), "block min norm covers it");
      assertTrue(list.maxFreq() >= c.freq());
      i++;
    }
    assertEquals(PostingCursor.NO_MORE, c.nextDoc());
    assertEquals(model.size(), list.postingCount());
  }
}
