package org.searchlab.mutable.postings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * The filtered lexical loop: a category filter leap-frogs with the postings (or, given as bits and
 * dense enough, masks each window's postings), so the top k equals the unfiltered exact ranking
 * restricted to the category, and no document outside the category is ever scored, with pruning
 * (track_total_hits reached at once) and without, for a sparse and a dense category, over one id
 * range and split into ranges as the parallel search splits it.
 */
class LexicalQueryFilterTest {
  private static final int DOCS = 6000;

  @Test
  void filterLeapFrogsAndNothingOutsideIsScored() {
    long seed = TestSeeds.seed("LexicalQueryFilterTest.leapFrog");
    SplittableRandom r = new SplittableRandom(seed);
    List<FieldIndex> fields = List.of(new FieldIndex("title"), new FieldIndex("description"));
    for (int d = 0; d < DOCS; d++) {
      fields.get(0).add(d, tokens(r, 2 + r.nextInt(6)));
      fields.get(1).add(d, tokens(r, 5 + r.nextInt(30)));
    }
    for (double density : new double[] {0.005, 0.2}) {
      BitSet category = new BitSet(DOCS);
      for (int d = 0; d < DOCS; d++) {
        if (r.nextDouble() < density) {
          category.set(d);
        }
      }
      FilterIds ids =
          t -> {
            int d = category.nextSetBit(t);
            return d < 0 ? FilterIds.NO_MORE : d;
          };
      // The same filter as bits: above the windowed share a run tests postings against them.
      long[] words = category.toLongArray();
      FilterBits bits =
          new FilterBits() {
            @Override
            public int advance(int target) {
              return ids.advance(target);
            }

            @Override
            public long word(int index) {
              return index < words.length ? words[index] : 0;
            }

            @Override
            public int cardinality() {
              return category.cardinality();
            }
          };
      for (int q = 0; q < 30; q++) {
        LexicalQuery query = LexicalQuery.prepare(fields, tokens(r, 1 + r.nextInt(4)));
        // The reference: every match scored, no pruning, then restricted to the category.
        LexicalQuery.Outcome all = query.run(FilterIds.ALL, d -> true, DOCS, DOCS, 0, DOCS, null);
        TopHits.Sorted ranked = all.top().sorted();
        TopHits expected = new TopHits(10);
        int categoryMatches = 0;
        for (int i = 0; i < ranked.size(); i++) {
          if (category.get(ranked.docs()[i])) {
            expected.insert(ranked.docs()[i], ranked.scores()[i]);
            categoryMatches++;
          }
        }
        TopHits.Sorted want = expected.sorted();
        String where = "seed " + seed + ", density " + density + ", query " + q;
        // Both shapes of the filter: leap-frog (an iterator) and, for the dense category, windows
        // (bits); neither may score a document outside the category.
        for (FilterIds filter : List.of(ids, bits)) {
          for (int track : new int[] {0, 10_000}) {
            for (int parts : new int[] {1, 3}) {
              TopHits got = new TopHits(10);
              long scored = 0;
              long matches = 0;
              LexicalQuery.SharedThreshold shared = new LexicalQuery.SharedThreshold();
              for (int p = 0; p < parts; p++) {
                int from = DOCS * p / parts;
                int to = DOCS * (p + 1) / parts;
                LexicalQuery.Outcome o =
                    query.run(
                        filter, category::get, 10, track, from, to, parts > 1 ? shared : null);
                got.merge(o.top());
                scored += o.scored();
                matches += o.matches();
              }
              TopHits.Sorted s = got.sorted();
              assertArrayEquals(want.scores(), s.scores(), 1e-6f, where + ", track " + track);
              assertTrue(
                  scored <= categoryMatches,
                  where + ": scored " + scored + " documents, only " + categoryMatches + " pass");
              if (track > 0) {
                assertEquals(categoryMatches, matches, where + ": exact count below the limit");
              }
            }
          }
        }
      }
    }
  }

  private static List<String> tokens(SplittableRandom r, int n) {
    List<String> t = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      // Zipf-like: low ids are common, so queries mix long and short posting lists.
      int id = (int) Math.floor(Math.pow(r.nextDouble(), 3) * 400);
      t.add("t" + id);
    }
    return t;
  }
}
