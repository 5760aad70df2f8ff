package org.searchlab.mutable.postings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Schema;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.mutable.memory.Race;
import org.searchlab.testing.ExactCorpus;
import org.searchlab.testing.SearchAssertions;
import org.searchlab.testing.TestSeeds;

/**
 * {@link LexicalQuery} against the exact oracle ({@link ExactCorpus}) on small random corpora with
 * deletes and updates: the top k (tie-aware, scores within {@link
 * SearchAssertions#SCORE_TOLERANCE}), the match count, filters, split id ranges sharing a threshold
 * on two threads, and {@link LexicalQuery#scoreDocs}. Then readers running a prepared query while a
 * writer inserts postings (recycled ids land inside blocks) must keep getting the answer they got
 * before.
 */
class LexicalQueryTest {
  private static final String[] WORDS = {
    "amber", "birch", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper",
    "kelp", "lumen", "maple", "nickel", "onyx", "pepper", "quartz", "russet", "saffron", "timber",
    "umber", "velvet", "willow", "xenon", "yarrow", "zephyr", "alder", "basalt", "cedar", "dune"
  };

  /** A small index and its oracle, kept in step. */
  private static final class Corpus {
    final List<FieldIndex> fields =
        List.of(new FieldIndex(Schema.TITLE), new FieldIndex(Schema.DESCRIPTION));
    final ExactCorpus exact = new ExactCorpus();
    final List<Document> byLocal = new ArrayList<>();
    final Map<String, Integer> localOf = new HashMap<>();
    final BitSet live = new BitSet();
    final SplittableRandom r;

    Corpus(SplittableRandom r) {
      this.r = r;
    }

    String text(int maxWords) {
      int n = r.nextInt(maxWords + 1);
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < n; i++) {
        double u = r.nextDouble();
        b.append(WORDS[(int) (WORDS.length * u * u * u)]).append(' '); // skewed: a few common
      }
      return b.toString();
    }

    void put(String id) {
      delete(id);
      Document d = new Document(id, text(6), text(25), null, 0, 0f, null);
      int local = byLocal.size();
      byLocal.add(d);
      fields.get(0).add(local, TextAnalysis.tokens(d.title()));
      fields.get(1).add(local, TextAnalysis.tokens(d.description()));
      live.set(local);
      localOf.put(id, local);
      exact.put(d);
    }

    void delete(String id) {
      Integer local = localOf.remove(id);
      if (local == null) {
        return;
      }
      Document d = byLocal.get(local);
      fields.get(0).remove(TextAnalysis.tokens(d.title()));
      fields.get(1).remove(TextAnalysis.tokens(d.description()));
      live.clear(local);
      exact.remove(id);
    }

    /** The oracle's scores by local id, of live documents {@code filter} accepts. */
    Map<Integer, Float> oracle(String query, IntPredicate filter) {
      Map<Integer, Float> out = new HashMap<>();
      exact
          .lexicalScores(query, Filter.ALL)
          .forEach(
              (id, s) -> {
                int local = localOf.get(id);
                if (filter.test(local)) {
                  out.put(local, s);
                }
              });
      return out;
    }
  }

  private static Corpus randomCorpus(SplittableRandom r, boolean large) {
    Corpus c = new Corpus(r);
    // A large corpus spans several of the windowed scorer's 4096-id windows.
    int n = large ? 5_000 + r.nextInt(8_000) : 50 + r.nextInt(1500);
    for (int i = 0; i < n; i++) {
      c.put("d" + i);
    }
    for (int i = 0; i < n / 5; i++) {
      String id = "d" + r.nextInt(n);
      if (r.nextBoolean()) {
        c.delete(id);
      } else {
        c.put(id); // an update: a new version under a new id
      }
    }
    return c;
  }

  @Test
  void topKAndMatchCountEqualTheExactOracle() throws Exception {
    long seed = TestSeeds.seed("LexicalQueryTest.oracle");
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 6; round++) {
      Corpus c = randomCorpus(r, round % 3 == 2);
      int limit = c.byLocal.size();
      for (int q = 0; q < 40; q++) {
        String query = c.text(4) + (r.nextInt(4) == 0 ? WORDS[r.nextInt(WORDS.length)] : "");
        int k = new int[] {1, 3, 10, 50}[r.nextInt(4)];
        int track = new int[] {0, 5, 100, Integer.MAX_VALUE}[r.nextInt(4)];
        int mod = 2 + r.nextInt(3);
        IntPredicate filter = r.nextBoolean() ? d -> true : d -> d % mod != 0;
        IntPredicate accept = d -> c.live.get(d) && filter.test(d);
        Map<Integer, Float> oracle = c.oracle(query, filter);
        LexicalQuery lq = LexicalQuery.prepare(c.fields, TextAnalysis.tokens(query));
        String what = "round " + round + " query '" + query + "' k=" + k + " track=" + track;

        LexicalQuery.Outcome one = lq.run(FilterIds.ALL, accept, k, track, 0, limit, null);
        assertTopK(oracle, one.top().sorted(), k, what);
        assertMatches(oracle, one, track, what);
        // A filter that lists every id takes the document-at-a-time loop instead of the windows.
        LexicalQuery.Outcome daat = lq.run(t -> t, accept, k, track, 0, limit, null);
        assertTopK(oracle, daat.top().sorted(), k, what + " (document at a time)");
        assertMatches(oracle, daat, track, what + " (document at a time)");
        // The filter as bits (at least half the ids, so the windows test each posting against
        // them, a block at a time, in PostingCursor.scoreWindow).
        LexicalQuery.Outcome masked =
            lq.run(bitsOf(filter, limit), accept, k, track, 0, limit, null);
        assertTopK(oracle, masked.top().sorted(), k, what + " (filter bits)");
        assertMatches(oracle, masked, track, what + " (filter bits)");

        // Every match in id order (what aggregations read): the oracle's set, each score the one
        // the top-k runs give it, with the filter as ids and as bits.
        for (FilterIds f : new FilterIds[] {FilterIds.ALL, bitsOf(filter, limit)}) {
          LexicalQuery.Matches all = lq.collectAll(f, accept, 0, limit);
          assertEquals(oracle.size(), all.count(), what + " collectAll: every match");
          for (int i = 0; i < all.count(); i++) {
            int d = all.docs()[i];
            assertTrue(i == 0 || d > all.docs()[i - 1], what + " collectAll: id order at " + i);
            Float want = oracle.get(d);
            assertTrue(want != null, what + " collectAll: " + d + " does not match");
            assertEquals(want, all.scores()[i], tolerance(want), what + " collectAll " + d);
          }
          for (TopHits.Sorted top : List.of(one.top().sorted(), daat.top().sorted())) {
            for (int i = 0; i < top.size(); i++) {
              int at = java.util.Arrays.binarySearch(all.docs(), 0, all.count(), top.docs()[i]);
              assertTrue(at >= 0, what + " collectAll lacks top hit " + top.docs()[i]);
              assertEquals(
                  top.scores()[i], all.scores()[at], 0f, what + " collectAll: the run's score");
            }
          }
        }

        // Two disjoint ranges on two threads, sharing the k-th score, merged.
        LexicalQuery.SharedThreshold shared = new LexicalQuery.SharedThreshold();
        int mid = r.nextInt(limit + 1);
        CompletableFuture<LexicalQuery.Outcome> right =
            CompletableFuture.supplyAsync(
                () -> lq.run(FilterIds.ALL, accept, k, track, mid, limit, shared));
        LexicalQuery.Outcome left = lq.run(FilterIds.ALL, accept, k, track, 0, mid, shared);
        TopHits merged = new TopHits(k);
        merged.merge(left.top());
        merged.merge(right.get().top());
        assertTopK(oracle, merged.sorted(), k, what + " split at " + mid);
        // The same ranges with the k-th score known before they start, as the second thread
        // finds it when the first has raised it, or a hybrid query's floor: the count of each
        // range must not depend on when the floor arrives.
        List<Float> best = new ArrayList<>(oracle.values());
        best.sort(java.util.Collections.reverseOrder());
        if (best.size() >= k && track == Integer.MAX_VALUE) {
          LexicalQuery.SharedThreshold known = new LexicalQuery.SharedThreshold();
          known.raise(best.get(k - 1) * 0.999f);
          LexicalQuery.Outcome low = lq.run(FilterIds.ALL, accept, k, track, 0, mid, known);
          LexicalQuery.Outcome high = lq.run(FilterIds.ALL, accept, k, track, mid, limit, known);
          assertEquals(
              oracle.size(),
              low.matches() + high.matches(),
              what + " split at " + mid + ", k-th score known: exact match count");
        }

        int[] some = r.ints(5, 0, limit).sorted().distinct().toArray();
        float[] scores = lq.scoreDocs(some);
        for (int i = 0; i < some.length; i++) {
          float want =
              c.live.get(some[i]) ? c.oracle(query, d -> true).getOrDefault(some[i], 0f) : -1;
          if (want >= 0) {
            assertEquals(want, scores[i], tolerance(want), what + " scoreDocs " + some[i]);
          }
        }
      }
    }
  }

  /**
   * While matches are still counted (below {@code trackTotal}), every match is counted but only a
   * document whose bound can beat the k-th score so far is scored: here a term in every document
   * cannot lift a document into the top 10 of documents that also hold a rare term, so after the
   * first window (where the k-th score is not known yet when its terms are read) the common-only
   * ones are counted and never scored. Fails if the counting phase scores every match, and checks
   * the count and the top 10 stay exact, without a filter and with one given as bits, over one
   * range and over two sharing the k-th score.
   */
  @Test
  void countingPhaseCountsEveryMatchButScoresOnlyThoseThatCanEnter() {
    long seed = TestSeeds.seed("LexicalQueryTest.counting");
    SplittableRandom r = new SplittableRandom(seed);
    int docs = 5 * WindowedMaxScore.WINDOW + r.nextInt(WindowedMaxScore.WINDOW);
    List<FieldIndex> fields = List.of(new FieldIndex("title"), new FieldIndex("description"));
    BitSet rare = new BitSet(docs);
    BitSet half = new BitSet(docs);
    for (int d = 0; d < docs; d++) {
      List<String> title = new ArrayList<>(List.of("common"));
      if (r.nextInt(100) == 0) {
        title.add("rare");
        rare.set(d);
      }
      fields.get(0).add(d, title);
      fields.get(1).add(d, List.of("filler" + r.nextInt(50), "common"));
      if (r.nextBoolean()) {
        half.set(d);
      }
    }
    LexicalQuery q = LexicalQuery.prepare(fields, List.of("common", "rare"));
    LexicalQuery.Outcome reference = q.run(FilterIds.ALL, d -> true, docs, docs, 0, docs, null);
    for (boolean filtered : new boolean[] {false, true}) {
      IntPredicate accept = filtered ? half::get : d -> true;
      int wantMatches = filtered ? half.cardinality() : docs;
      TopHits want = new TopHits(10);
      TopHits.Sorted all = reference.top().sorted();
      for (int i = 0; i < all.size(); i++) {
        if (accept.test(all.docs()[i])) {
          want.insert(all.docs()[i], all.scores()[i]);
        }
      }
      int rareCount = 0;
      for (int d = rare.nextSetBit(0); d >= 0; d = rare.nextSetBit(d + 1)) {
        rareCount += accept.test(d) ? 1 : 0;
      }
      FilterIds filter = filtered ? bitsOf(half::get, docs) : FilterIds.ALL;
      for (int parts : new int[] {1, 2}) {
        String what = "seed " + seed + " filtered " + filtered + " parts " + parts;
        LexicalQuery.SharedThreshold shared = new LexicalQuery.SharedThreshold();
        TopHits got = new TopHits(10);
        long matches = 0;
        long scored = 0;
        // Ids that may be scored before the k-th score is a rare id's: every accepted id of a
        // range's windows up to the one in which its top holds k accepted rare ids (every other
        // id ties at one lower score, and an id tied with the k-th score is scored, since bounds
        // carry LexicalQuery.SLACK), or only its first window once an earlier range has raised
        // the shared threshold that far.
        long firstWindows = 0;
        boolean rareBarShared = false;
        boolean exact = true;
        for (int p = 0; p < parts; p++) {
          int from = docs * p / parts;
          int to = docs * (p + 1) / parts;
          int start = from & ~63;
          int end = Math.min(to, start + WindowedMaxScore.WINDOW);
          int rareHere = 0;
          for (int d = rare.nextSetBit(from); d >= 0 && d < to; d = rare.nextSetBit(d + 1)) {
            rareHere += accept.test(d) ? 1 : 0;
            if (rareHere == 10 && !rareBarShared) {
              int window = (d - start) / WindowedMaxScore.WINDOW;
              end = Math.min(to, Math.max(end, start + (window + 1) * WindowedMaxScore.WINDOW));
            }
          }
          if (rareHere < 10 && !rareBarShared) {
            end = to;
          }
          rareBarShared |= rareHere >= 10;
          for (int d = from; d < end; d++) {
            firstWindows += accept.test(d) ? 1 : 0;
          }
          LexicalQuery.Outcome o = q.run(filter, accept, 10, Integer.MAX_VALUE, from, to, shared);
          got.merge(o.top());
          matches += o.matches();
          scored += o.scored();
          exact &= o.exact();
        }
        assertTrue(exact, what + ": counting to the end is exact");
        assertEquals(wantMatches, matches, what + ": every match counted");
        assertArrayEquals(want.sorted().scores(), got.sorted().scores(), 1e-6f, what);
        assertTrue(
            scored <= firstWindows + rareCount,
            what + ": scored " + scored + " of " + matches + " matches, " + rareCount + " rare");
      }
    }
  }

  /** {@code filter} over ids [0, limit) as the bits a category gives the windowed run. */
  private static FilterBits bitsOf(IntPredicate filter, int limit) {
    java.util.BitSet set = new java.util.BitSet(limit);
    for (int d = 0; d < limit; d++) {
      if (filter.test(d)) {
        set.set(d);
      }
    }
    long[] words = set.toLongArray();
    return new FilterBits() {
      @Override
      public int advance(int target) {
        int d = target < limit ? set.nextSetBit(target) : -1;
        return d < 0 ? FilterIds.NO_MORE : d;
      }

      @Override
      public long word(int index) {
        return index < words.length ? words[index] : 0L;
      }

      @Override
      public int cardinality() {
        return set.cardinality();
      }
    };
  }

  private static float tolerance(float score) {
    return SearchAssertions.SCORE_TOLERANCE * Math.max(1, Math.abs(score));
  }

  /** The hits' oracle scores are the oracle's best k scores (ties may pick either document). */
  private static void assertTopK(
      Map<Integer, Float> oracle, TopHits.Sorted got, int k, String what) {
    float[] best = new float[oracle.size()];
    int i = 0;
    for (float s : oracle.values()) {
      best[i++] = -s;
    }
    Arrays.sort(best);
    int want = Math.min(k, oracle.size());
    assertEquals(want, got.size(), what + ": hit count");
    for (int h = 0; h < want; h++) {
      Float truth = oracle.get(got.docs()[h]);
      assertTrue(truth != null, what + ": doc " + got.docs()[h] + " does not match");
      assertEquals(truth, got.scores()[h], tolerance(truth), what + ": score of hit " + h);
      assertEquals(-best[h], got.scores()[h], tolerance(truth), what + ": rank " + h);
    }
    assertEquals(want, Arrays.stream(got.docs()).distinct().count(), what + ": duplicate hits");
  }

  private static void assertMatches(
      Map<Integer, Float> oracle, LexicalQuery.Outcome o, int track, String what) {
    if (o.exact()) {
      assertEquals(oracle.size(), o.matches(), what + ": exact match count");
    } else {
      assertTrue(o.matches() >= Math.min(track, oracle.size()), what + ": " + o.matches());
      assertTrue(o.matches() <= oracle.size(), what + ": " + o.matches());
    }
    if (track == Integer.MAX_VALUE) {
      assertTrue(o.exact(), what + ": counting to the end is exact");
    }
  }

  /**
   * Readers rerun prepared queries over the documents that existed when they were prepared while
   * the writer indexes new documents under recycled ids (inside existing blocks: copies and splits)
   * and fresh ones. The new documents are not accepted, so every run must return exactly the hits
   * and scores it returned before the writer started.
   */
  @Test
  void preparedQueriesKeepTheirAnswerWhileTheWriterInsertsPostings() throws Exception {
    long seed = TestSeeds.seed("LexicalQueryTest.concurrent");
    SplittableRandom r = new SplittableRandom(seed);
    Corpus c = new Corpus(r);
    for (int i = 0; i < 1500; i++) {
      c.put("d" + i);
    }
    BitSet recycled = new BitSet();
    for (int i = 0; i < 1500; i += 3) {
      recycled.set(c.localOf.get("d" + i));
      c.delete("d" + i);
    }
    BitSet accepted = (BitSet) c.live.clone();
    int limit = c.byLocal.size();
    List<String> terms = TextAnalysis.tokens(String.join(" ", WORDS));
    for (FieldIndex f : c.fields) {
      f.compact(terms, d -> !recycled.get(d)); // the deleted ids' postings are gone
    }
    IntPredicate accept = accepted::get;
    List<Runnable> checks = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      String query = c.text(3) + WORDS[t];
      LexicalQuery lq = LexicalQuery.prepare(c.fields, TextAnalysis.tokens(query));
      TopHits.Sorted before = lq.run(FilterIds.ALL, accept, 10, 0, 0, limit, null).top().sorted();
      assertTrue(before.size() > 0, "query '" + query + "' matches");
      checks.add(
          () -> {
            TopHits.Sorted now =
                lq.run(FilterIds.ALL, accept, 10, 0, 0, limit + 4096, null).top().sorted();
            assertArrayEquals(before.docs(), now.docs(), "hits of '" + query + "'");
            assertArrayEquals(before.scores(), now.scores(), 0f, "scores of '" + query + "'");
          });
    }
    int[] reuse = recycled.stream().toArray();
    long made =
        Race.run(
            reuse.length + 1000,
            8,
            i -> {
              int local = i < reuse.length ? reuse[i] : limit + i - reuse.length;
              c.fields.get(0).add(local, TextAnalysis.tokens(c.text(6)));
              c.fields.get(1).add(local, TextAnalysis.tokens(c.text(25)));
            },
            checks);
    assertTrue(made > 0);
  }
}
