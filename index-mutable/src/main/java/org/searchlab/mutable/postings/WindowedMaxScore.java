package org.searchlab.mutable.postings;

import java.util.function.IntPredicate;
import org.searchlab.mutable.postings.LexicalQuery.Outcome;
import org.searchlab.mutable.postings.LexicalQuery.SharedThreshold;

/**
 * A {@link LexicalQuery} run a window of ids at a time, as Lucene's {@code MaxScoreBulkScorer} runs
 * a disjunction: for each window of {@value #WINDOW} ids, every term's bound over the blocks that
 * overlap the window decides which terms are essential there (those whose bounds, added up from the
 * smallest, could beat the k-th score); the essential terms' postings in the window are scored term
 * at a time into a per-field score array and a match bit set; then each matching id, in order, gets
 * the non-essential terms' scores looked up only while its bound can still beat the k-th score.
 * Term-at-a-time inside a window keeps each posting list's loop tight (no per-document minimum over
 * cursors), and window bounds are tighter than whole-list bounds, so more terms become
 * non-essential. A filter given as bits is tested per posting before anything is scored: cheaper
 * than leap-frogging once the filter holds more than a few percent of the ids.
 *
 * <p>While matches are still counted (below {@code trackTotal}), every match is counted but not
 * every match is scored: once k ids are kept, a window's terms whose bounds cannot lift an id past
 * the k-th score (or past the caller's floor) only record their frequencies and match bits, and an
 * id whose essential scores plus those bounds stay below the bar is counted unscored. With a
 * category of a few percent the counting phase runs to the end of the ids, so this is most of a
 * filtered query: on the Debian corpus it made filtered lexical queries about 4% cheaper (CPU per
 * query, interleaved passes in one JVM), on the synthetic corpus about 13%, with the same hits and
 * counts.
 *
 * <p>A dense term ({@link PostingList#denseBits}: the analysis keeps stop words, and on the Debian
 * corpus "the" is in 87% of the descriptions) is marked from its bits, 64 ids per word operation,
 * instead of posting by posting, and its frequency is looked up ({@link PostingCursor#advance})
 * only for an id that is scored. On the Debian corpus a query's terms hold about 133,000 postings,
 * 93% of them in terms in at least 5% of the documents; marking those from their bits made filtered
 * lexical queries 40% cheaper (0.51 → 0.31 ms) and filtered hybrid queries 22% (1.19 → 0.93 ms),
 * CPU per query over 1,000 category-filtered queries, interleaved passes in one JVM.
 *
 * <p>Same results as {@link LexicalQuery#run} document at a time: the same top k (scores may differ
 * in the last bits by summation order, as they do between any two engines), matches counted exactly
 * until {@code trackTotal}, then pruning.
 *
 * <p>Not thread-safe: one instance per run (it owns the cursors, and the window arrays while it
 * runs). The window arrays are the thread's {@link Scratch}, taken at construction and handed back
 * by a run that ends normally, all zero as every window leaves them; a run that throws keeps them,
 * and the thread's next run allocates new ones.
 */
final class WindowedMaxScore {
  /** Ids per window: Lucene's inner window (4096); the match bit set is 64 longs. */
  static final int WINDOW = 1 << 12;

  /**
   * Terms whose frequency and bit arrays a thread keeps between runs; a longer query allocates the
   * rest for its run only, so that one long query does not leave megabytes on every search thread.
   */
  static final int KEPT_TERMS = 32;

  /**
   * The window arrays of one thread's runs: a run needs a score array of {@value #WINDOW} doubles
   * per field and, while matches are counted, a frequency array of {@value #WINDOW} ints per
   * essential term, about 64 KB and more per run. Allocated per run, they were about a third of
   * what the search threads allocated in a quick Debian experiment (JFR allocation samples); kept
   * per thread, a run allocates only its cursors and small per-term arrays.
   */
  private static final class Scratch {
    double[][] windowScores = new double[0][];
    int[][] rankFreqs = new int[0][];
    long[][] rankBits = new long[0][];

    /** At least {@code fields} score arrays and {@code terms} rank slots (nulls until used). */
    void ensure(int fields, int terms) {
      if (windowScores.length < fields) {
        double[][] grown = java.util.Arrays.copyOf(windowScores, fields);
        for (int f = windowScores.length; f < fields; f++) {
          grown[f] = new double[WINDOW];
        }
        windowScores = grown;
      }
      if (rankFreqs.length < terms) {
        rankFreqs = java.util.Arrays.copyOf(rankFreqs, terms);
        rankBits = java.util.Arrays.copyOf(rankBits, terms);
      }
    }

    /** Drops the rank arrays beyond {@link #KEPT_TERMS}. */
    void trim() {
      if (rankFreqs.length > KEPT_TERMS) {
        rankFreqs = java.util.Arrays.copyOf(rankFreqs, KEPT_TERMS);
        rankBits = java.util.Arrays.copyOf(rankBits, KEPT_TERMS);
      }
    }
  }

  private static final ThreadLocal<Scratch> SCRATCH = new ThreadLocal<>();

  private final Scratch scratch;

  private final LexicalQuery q;
  private final FilterBits mask; // null: every id
  private final long[] maskWords = new long[WINDOW >>> 6];
  private final int n;
  private final int fieldCount;
  private final PostingCursor[] cur;
  private final double[][] windowScores;
  private final long[] windowMatches = new long[WINDOW >>> 6];
  private final float[] windowBounds;
  private final int[] order;
  private final float[][] prefix;
  private final double[] sums;
  // Counting phase: the frequencies and match bits of the terms read without scoring, by rank.
  private final int[][] rankFreqs;
  private final long[][] rankBits;
  // Whether the term of that rank was marked from its dense bits (no frequencies recorded).
  private final boolean[] rankDense;

  WindowedMaxScore(LexicalQuery q, int minDoc, FilterBits mask) {
    this.q = q;
    this.mask = mask;
    this.n = q.termCount();
    this.fieldCount = q.fieldCount();
    this.cur = new PostingCursor[n];
    for (int i = 0; i < n; i++) {
      cur[i] = q.cursor(i);
      cur[i].advance(minDoc);
    }
    Scratch kept = SCRATCH.get();
    if (kept != null) {
      SCRATCH.set(null);
    } else {
      kept = new Scratch();
    }
    kept.ensure(fieldCount, n);
    this.scratch = kept;
    this.windowScores = kept.windowScores;
    this.windowBounds = new float[n];
    this.order = new int[n];
    this.prefix = new float[n][fieldCount];
    this.sums = new double[fieldCount];
    this.rankFreqs = kept.rankFreqs;
    this.rankBits = kept.rankBits;
    this.rankDense = new boolean[n];
  }

  /** See {@link LexicalQuery#run}; ids in [minDoc, maxDoc) (the cursors start at minDoc). */
  Outcome run(
      IntPredicate accept, int k, int trackTotal, int maxDoc, SharedThreshold shared, int minDoc) {
    TopHits top = new TopHits(k);
    long matches = 0;
    long scored = 0;
    boolean pruning = trackTotal <= 0;
    boolean exact = !pruning;
    float theta = pruning ? shared.get() : Float.NEGATIVE_INFINITY;
    int from = minDoc;
    while (from < maxDoc) {
      // Terms whose whole-list bounds together cannot beat theta cannot make an id competitive
      // anywhere: an id only they match is skipped without a window.
      int globallyEssential = pruning ? q.partition(theta) : 0;
      if (globallyEssential == n) {
        break;
      }
      int next = PostingCursor.NO_MORE;
      for (int i = globallyEssential; i < n; i++) {
        PostingCursor c = cur[i];
        if (c.doc() < from) {
          c.advance(from);
        }
        next = Math.min(next, c.doc());
      }
      if (next >= maxDoc) {
        break;
      }
      // Windows start on a multiple of 64, so that their words line up with the filter's; ids
      // below next match only terms that cannot make them competitive, and no cursor goes there.
      int start = next & ~63;
      int end = (int) Math.min(maxDoc, (long) start + WINDOW);
      // While counting, every match is counted, but only an id whose bound can beat the k-th
      // score so far (or the caller's floor) is scored: the terms that cannot lift an id there
      // only record their frequencies, and are scored for the ids that pass the bound.
      float bar = pruning ? theta : countingBar(top, shared);
      int essential = bar > 0 ? partitionWindow(next, end, bar) : identity();
      boolean marked = !pruning && essential > 0;
      if (mask != null) {
        int first = start >>> 6;
        for (int w = 0; w < maskWords.length; w++) {
          maskWords[w] = mask.word(first + w);
        }
      }
      if (marked) {
        for (int r = 0; r < essential; r++) {
          int i = order[r];
          if (rankBits[r] == null) {
            rankBits[r] = new long[WINDOW >>> 6];
          }
          rankDense[r] = cur[i].dense();
          if (rankDense[r]) {
            cur[i].markWindowDense(
                start, from, end, rankBits[r], windowMatches, mask == null ? null : maskWords);
            continue;
          }
          if (rankFreqs[r] == null) {
            rankFreqs[r] = new int[WINDOW];
          }
          cur[i].markWindow(
              start,
              end,
              rankFreqs[r],
              rankBits[r],
              windowMatches,
              mask == null ? null : maskWords);
        }
      }
      for (int r = essential; r < n; r++) {
        int i = order[r];
        PostingCursor c = cur[i];
        if (c.doc() < next) {
          c.advance(next);
        }
        c.scoreWindow(
            start,
            end,
            windowScores[q.field(i)],
            windowMatches,
            mask == null ? null : maskWords,
            q,
            i);
      }
      for (int w = 0; w < windowMatches.length; w++) {
        long word = windowMatches[w];
        if (word == 0) {
          continue;
        }
        windowMatches[w] = 0;
        while (word != 0) {
          int o = (w << 6) | Long.numberOfTrailingZeros(word);
          word &= word - 1;
          int d = start + o;
          for (int f = 0; f < fieldCount; f++) {
            sums[f] = windowScores[f][o];
            windowScores[f][o] = 0;
          }
          if (marked) {
            if (!markedScores(d, o, essential, pruning ? theta : bar)) {
              if (!pruning && accept.test(d)) {
                // Counted, not scored: its bound is below the k-th score so far.
                matches++;
                if (matches >= trackTotal) {
                  pruning = true;
                  theta = Math.max(theta, Math.max(bar, shared.get()));
                }
              }
              continue;
            }
          } else if (!nonEssentialScores(d, essential, theta)) {
            continue;
          }
          float s = LexicalQuery.max(sums);
          scored++;
          if (pruning ? !top.competitive(d, s) || !accept.test(d) : !accept.test(d)) {
            continue;
          }
          matches++;
          top.insert(d, s);
          if (!pruning && matches >= trackTotal) {
            pruning = true;
            theta = Math.max(theta, shared.get());
          }
          if (pruning && top.full()) {
            float t = top.threshold();
            shared.raise(t);
            theta = Math.max(theta, Math.max(t, shared.get()));
          } else if (!pruning && top.full()) {
            // The k-th score of this range bounds the query's k-th from below, for the other
            // ranges' counting as well as for pruning.
            shared.raise(top.threshold());
            bar = countingBar(top, shared);
          }
        }
      }
      if (marked) {
        for (int r = 0; r < essential; r++) {
          java.util.Arrays.fill(rankBits[r], 0);
        }
      }
      from = end;
    }
    scratch.trim();
    SCRATCH.set(scratch);
    return new Outcome(top, matches, exact && !pruning, scored);
  }

  /**
   * The score an id must be able to beat to be worth scoring while matches are still counted: the
   * k-th score so far once k ids are kept, and the caller's floor (a hybrid query's k-th fused
   * vector hit, or another thread's k-th score). 0 (score everything) before either is known.
   */
  private static float countingBar(TopHits top, SharedThreshold shared) {
    float floor = shared.get();
    return top.full() ? Math.max(floor, top.threshold()) : floor;
  }

  /**
   * In a window whose non-essential terms were only marked ({@link PostingCursor#markWindow}): adds
   * their scores of {@code d} (at window offset {@code o}) to {@link #sums}, the largest bound
   * first, while the id can still beat {@code bar}; false as soon as it cannot.
   */
  private boolean markedScores(int d, int o, int essential, float bar) {
    long bit = 1L << o;
    for (int r = essential - 1; r >= 0; r--) {
      if (cannotBeat(r, bar)) {
        return false;
      }
      if ((rankBits[r][o >>> 6] & bit) != 0) {
        int i = order[r];
        int freq;
        if (rankDense[r]) {
          // Marked from the bits: the frequency is in the postings, at or after the cursor (the
          // ids of a window are scored in ascending order). A bit without a posting here is an id
          // this search cannot see; its visibility check rejects it.
          PostingCursor c = cur[i];
          if (c.advance(d) != d) {
            continue;
          }
          freq = c.freq();
        } else {
          freq = rankFreqs[r][o];
        }
        sums[q.field(i)] += q.score(i, freq, d);
      }
    }
    return true;
  }

  /**
   * Whether the id in {@link #sums} stays below {@code bar} even if every term of rank ≤ {@code r}
   * reached its window bound.
   */
  private boolean cannotBeat(int r, float bar) {
    double bound = 0;
    for (int f = 0; f < fieldCount; f++) {
      bound = Math.max(bound, sums[f] + prefix[r][f]);
    }
    return bound * LexicalQuery.SLACK < bar;
  }

  /** All terms essential, in the query's order (the counting phase). Returns 0. */
  private int identity() {
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return 0;
  }

  /**
   * Orders the terms by their bound over the blocks overlapping [start, end) and returns the rank
   * of the first essential one: the terms before it together (per field) cannot beat theta there.
   */
  private int partitionWindow(int start, int end, float theta) {
    for (int i = 0; i < n; i++) {
      windowBounds[i] = q.windowBound(i, cur[i], start, end);
      int r = i;
      while (r > 0 && windowBounds[order[r - 1]] > windowBounds[i]) {
        order[r] = order[r - 1];
        r--;
      }
      order[r] = i;
    }
    int essential = 0;
    for (int r = 0; r < n; r++) {
      int i = order[r];
      if (r > 0) {
        System.arraycopy(prefix[r - 1], 0, prefix[r], 0, fieldCount);
      } else {
        java.util.Arrays.fill(prefix[0], 0);
      }
      prefix[r][q.field(i)] += windowBounds[i];
      if (essential == r && LexicalQuery.max(prefix[r]) * LexicalQuery.SLACK < theta) {
        essential = r + 1;
      }
    }
    return essential;
  }

  /**
   * Adds the non-essential terms' scores of {@code d} to {@link #sums}, the largest bound first,
   * while the id can still beat theta; false when it cannot.
   */
  private boolean nonEssentialScores(int d, int essential, float theta) {
    for (int r = essential - 1; r >= 0; r--) {
      if (cannotBeat(r, theta)) {
        return false;
      }
      int i = order[r];
      PostingCursor c = cur[i];
      if (c.advance(d) == d) {
        sums[q.field(i)] += q.score(i, c.freq(), d);
      }
    }
    return true;
  }
}
