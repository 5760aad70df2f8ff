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
    checkDenseBits(list, model, r, seed);
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

  /**
   * A term in about every other id is dense: its bits are exactly the ids it holds (after appends,
   * inserts of reused ids and compactions), and a window marked from them is the window's postings
   * from its first id (or from its start, when that comes later), under the mask.
   */
  private static void checkDenseBits(
      PostingList list, TreeMap<Integer, Integer> model, SplittableRandom r, long seed) {
    long[] bits = list.denseBits();
    assertTrue(bits != null, "seed " + seed + ": a term in every other id is dense");
    java.util.BitSet want = new java.util.BitSet();
    model.keySet().forEach(want::set);
    assertEquals(want, java.util.BitSet.valueOf(bits), "seed " + seed);
    int top = model.lastKey() + 1;
    for (int t = 0; t < 200; t++) {
      int start = r.nextInt(top + 64) & ~63;
      // from may lie before the window's start: the windowed loop passes the previous window's
      // end, and starts the next window at the 64-id word of the first posting after it.
      int from = Math.max(0, start - 200 + r.nextInt(400));
      // The window ends past both (its first posting is at or after from, inside it).
      int end =
          Math.min(start + WindowedMaxScore.WINDOW, Math.max(start, from) + 1 + r.nextInt(5000));
      long[] mask = new long[WindowedMaxScore.WINDOW >>> 6];
      for (int w = 0; w < mask.length; w++) {
        mask[w] = r.nextLong();
      }
      boolean masked = r.nextBoolean();
      long[] termBits = new long[mask.length];
      long[] matches = new long[mask.length];
      new PostingCursor(list)
          .markWindowDense(start, from, end, termBits, matches, masked ? mask : null);
      for (int o = 0; o < WindowedMaxScore.WINDOW; o++) {
        int d = start + o;
        boolean expected =
            d >= from && d < end && want.get(d) && (!masked || (mask[o >>> 6] >>> o & 1) != 0);
        String where = "seed " + seed + ", window " + start + " from " + from + " to " + end;
        assertEquals(expected, (termBits[o >>> 6] >>> o & 1) != 0, where + ", id " + d);
        assertEquals(expected, (matches[o >>> 6] >>> o & 1) != 0, where + ", id " + d);
      }
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
