// Over 500 lines: the top-k run (block-max MaxScore, leap-frogging with a filter), the every-match
// collection aggregations read and the exact per-id scoring share the bound terms, cursors and
// scoring helpers below; split apart they would each need the query's private arrays.
package org.searchlab.mutable.postings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.searchlab.core.scoring.Bm25;
import org.searchlab.mutable.memory.PagedBytes;

/**
 * A lexical query bound to the index at one moment: for every (field, distinct query term) with
 * postings, the BM25 weight {@code count · idf} (a repeated query token counts as often as it is
 * repeated, as Lucene's boolean query counts repeated clauses), the field's norm-inverse cache and
 * the score bound. The document score is the max over fields of the sum over that field's terms:
 * Elasticsearch {@code multi_match} {@code best_fields} with tie breaker 0.
 *
 * <p>{@link #run} finds the exact top k with block-max MaxScore: the terms are sorted by score
 * bound; the longest prefix whose combined bound cannot beat the current k-th score is
 * <em>non-essential</em> (only looked up for candidates of the others); a candidate is skipped,
 * with its whole block range, when the block bounds of the terms on it cannot beat it either. The
 * bounds are multiplied by {@code 1 + 1e-5} before comparing, so float rounding in a different
 * summation order never prunes a competitive document. An unfiltered run goes a window of ids at a
 * time instead ({@link WindowedMaxScore}, Lucene's {@code MaxScoreBulkScorer} shape); a filtered
 * one leap-frogs document at a time with the filter.
 *
 * <p>Thread safety: immutable after {@link #prepare}; {@link #run} may be called concurrently over
 * disjoint id ranges (each call makes its own cursors).
 */
public final class LexicalQuery {
  static final float SLACK = 1 + 1e-5f;

  /**
   * Whether unfiltered runs go through {@link WindowedMaxScore} (default); {@code
   * -Dsearchlab.mutable.windowedLexical=false} keeps them on the document-at-a-time loop, for
   * measuring one against the other.
   */
  /**
   * The share of the ids a filter must hold for a filtered run to go window at a time (testing each
   * posting against the filter's bits) rather than leap-frogging with the filter document at a
   * time.
   */
  static final double WINDOWED_FILTER_SHARE = 0.02;

  static final boolean WINDOWED =
      Boolean.parseBoolean(System.getProperty("searchlab.mutable.windowedLexical", "true"));

  private final int fieldCount;
  private final PostingList[] lists;
  private final int[] fields;
  private final float[] weights;
  private final float[][] caches;
  private final FieldIndex[] fieldIndexes;
  private final float[] bounds;
  // globalPrefix[i][f]: sum of the bounds of terms 0..i on field f (terms sorted by bound).
  private final float[][] globalPrefix;

  private LexicalQuery(
      int fieldCount,
      PostingList[] lists,
      int[] fields,
      float[] weights,
      float[][] caches,
      FieldIndex[] fieldIndexes,
      float[] bounds) {
    this.fieldCount = fieldCount;
    this.lists = lists;
    this.fields = fields;
    this.weights = weights;
    this.caches = caches;
    this.fieldIndexes = fieldIndexes;
    this.bounds = bounds;
    this.globalPrefix = new float[lists.length][fieldCount];
    for (int i = 0; i < lists.length; i++) {
      if (i > 0) {
        System.arraycopy(globalPrefix[i - 1], 0, globalPrefix[i], 0, fieldCount);
      }
      globalPrefix[i][fields[i]] += bounds[i];
    }
  }

  /** Binds the analysed query tokens to the fields' current dictionaries and statistics. */
  public static LexicalQuery prepare(List<FieldIndex> fieldList, List<String> tokens) {
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String t : tokens) {
      counts.merge(t, 1, Integer::sum);
    }
    List<Object[]> terms = new ArrayList<>();
    FieldIndex[] fis = fieldList.toArray(new FieldIndex[0]);
    for (int f = 0; f < fis.length; f++) {
      FieldIndex fi = fis[f];
      long docCount = fi.docCount();
      if (docCount <= 0) {
        continue;
      }
      float[] cache = Bm25.normInverseCache(Bm25.avgFieldLength(fi.sumTotalTermFreq(), docCount));
      for (Map.Entry<String, Integer> e : counts.entrySet()) {
        PostingList list = fi.postings(e.getKey());
        if (list == null || list.docFreq() <= 0) {
          continue;
        }
        float weight = e.getValue() * Bm25.idf(list.docFreq(), docCount);
        float bound = Bm25.upperBound(weight, cache, list.maxFreq(), (byte) list.minNorm());
        terms.add(new Object[] {list, f, weight, cache, bound});
      }
    }
    terms.sort((a, b) -> Float.compare((float) a[4], (float) b[4]));
    int n = terms.size();
    PostingList[] lists = new PostingList[n];
    int[] fields = new int[n];
    float[] weights = new float[n];
    float[][] caches = new float[n][];
    float[] bounds = new float[n];
    for (int i = 0; i < n; i++) {
      Object[] t = terms.get(i);
      lists[i] = (PostingList) t[0];
      fields[i] = (int) t[1];
      weights[i] = (float) t[2];
      caches[i] = (float[]) t[3];
      bounds[i] = (float) t[4];
    }
    return new LexicalQuery(fis.length, lists, fields, weights, caches, fis, bounds);
  }

  /** Whether no term has postings (nothing can match). */
  public boolean isEmpty() {
    return lists.length == 0;
  }

  /**
   * A float shared by the threads of one query: the best known k-th score, only ever raised. A
   * caller may raise it before the run to a floor it knows no document below can matter (a hybrid
   * query's k-th fused vector hit).
   */
  public static final class SharedThreshold {
    private final AtomicInteger bits = new AtomicInteger(Float.floatToIntBits(0f));

    float get() {
      return Float.intBitsToFloat(bits.get());
    }

    public void raise(float v) {
      if (v > 0) { // scores are positive, so their int bits order like the floats
        bits.accumulateAndGet(Float.floatToIntBits(v), Math::max);
      }
    }
  }

  /**
   * The result of one run.
   *
   * @param top the best hits
   * @param matches documents counted as matching
   * @param exact whether {@code matches} is exact (pruning never started)
   * @param scored documents fully scored (for stats)
   */
  public record Outcome(TopHits top, long matches, boolean exact, long scored) {}

  /**
   * Finds the exact top {@code k} among ids in [minDoc, maxDoc) that match, that {@code filter}
   * lists and that {@code accept} takes. Counts every match exactly until {@code trackTotal} is
   * reached; only then does pruning start (Lucene's {@code totalHitsThreshold}).
   *
   * <p>The filter leap-frogs with the postings before anything is scored: the next candidate is the
   * smallest id on an essential term's postings; if the filter's next id after it is larger, the
   * essential cursors jump there (skipping whole blocks) and the step repeats. So a document
   * outside the filter costs at most one cursor advance, never a score, and a sparse category
   * drives the loop while a dense one barely costs a bit test. {@code accept} (visibility, price)
   * is still asked for the documents both sides agree on.
   *
   * @param filter the filter's ids, {@link FilterIds#ALL} for none
   * @param accept the final per-document check (visibility at the search's serial, the price range)
   */
  public Outcome run(
      FilterIds filter,
      IntPredicate accept,
      int k,
      int trackTotal,
      int minDoc,
      int maxDoc,
      SharedThreshold shared) {
    int n = lists.length;
    TopHits top = new TopHits(k);
    if (n == 0 || minDoc >= maxDoc) {
      return new Outcome(top, 0, true, 0);
    }
    FilterBits mask = filter instanceof FilterBits b ? b : null;
    if (WINDOWED
        && (filter == FilterIds.ALL
            || mask != null && mask.cardinality() >= WINDOWED_FILTER_SHARE * (maxDoc - minDoc))) {
      return new WindowedMaxScore(this, minDoc, mask)
          .run(
              accept,
              k,
              trackTotal,
              maxDoc,
              shared == null ? new SharedThreshold() : shared,
              minDoc);
    }
    PostingCursor[] cur = new PostingCursor[n];
    for (int i = 0; i < n; i++) {
      cur[i] = new PostingCursor(lists[i]);
      cur[i].advance(minDoc);
    }
    float[][] prefix = globalPrefix; // the non-essential lookups' budget
    double[] sums = new double[fieldCount];
    float[] blockSums = new float[fieldCount];
    long matches = 0;
    long scored = 0;
    boolean pruning = trackTotal <= 0;
    boolean exact = !pruning;
    float theta = Float.NEGATIVE_INFINITY;
    int firstEssential = 0;
    if (pruning) {
      theta = shared == null ? Float.NEGATIVE_INFINITY : shared.get();
      firstEssential = partition(prefix, theta);
    }
    while (firstEssential < n) {
      int d = nextCandidate(cur, firstEssential, filter, maxDoc);
      if (d >= maxDoc) {
        break;
      }
      if (pruning) {
        // Block-max check: the block bounds of the terms on d (and of the non-essential terms'
        // blocks around d) bound every doc up to the first block end or the next candidate.
        java.util.Arrays.fill(blockSums, 0);
        int upTo = maxDoc;
        for (int i = firstEssential; i < n; i++) {
          PostingCursor c = cur[i];
          if (c.doc() == d) {
            blockSums[fields[i]] += blockBound(i, c.blockMaxFreq(), c.blockMinNorm());
            upTo = Math.min(upTo, c.blockLastDoc() + 1);
          } else {
            upTo = Math.min(upTo, c.doc());
          }
        }
        for (int i = 0; i < firstEssential; i++) {
          PostingCursor c = cur[i];
          if (c.shallowAdvance(d)) {
            blockSums[fields[i]] += blockBound(i, c.shallowMaxFreq(), c.shallowMinNorm());
            upTo = Math.min(upTo, c.shallowLastDoc() + 1);
          } else if (!c.shallowExhausted()) {
            upTo = Math.min(upTo, c.shallowFirstDoc());
          }
        }
        if (max(blockSums) * SLACK < theta) {
          for (int i = firstEssential; i < n; i++) {
            if (cur[i].doc() < upTo) {
              cur[i].advance(upTo);
            }
          }
          continue;
        }
      } else if (!accept.test(d)) {
        advanceOn(cur, firstEssential, d);
        continue;
      }
      java.util.Arrays.fill(sums, 0);
      for (int i = firstEssential; i < n; i++) {
        PostingCursor c = cur[i];
        if (c.doc() == d) {
          sums[fields[i]] += score(i, c.freq(), d);
        }
      }
      boolean competitive = true;
      for (int i = firstEssential - 1; i >= 0; i--) {
        double bound = 0;
        for (int f = 0; f < fieldCount; f++) {
          bound = Math.max(bound, sums[f] + prefix[i][f]);
        }
        if (bound * SLACK < theta) {
          competitive = false;
          break;
        }
        PostingCursor c = cur[i];
        if (c.advance(d) == d) {
          sums[fields[i]] += score(i, c.freq(), d);
        }
      }
      advanceOn(cur, firstEssential, d);
      if (!competitive) {
        continue;
      }
      float s = max(sums);
      scored++;
      if (pruning) {
        if (!top.competitive(d, s) || !accept.test(d)) {
          continue;
        }
      }
      matches++;
      top.insert(d, s);
      if (!pruning && matches >= trackTotal) {
        pruning = true;
        if (shared != null && shared.get() > theta) {
          // A floor known before the run (another thread's, or a hybrid query's vector hits)
          // prunes from the first pruned document on.
          theta = shared.get();
          firstEssential = partition(prefix, theta);
        }
      }
      if (pruning && top.full()) {
        float t = top.threshold();
        if (shared != null) {
          shared.raise(t);
          t = Math.max(t, shared.get());
        }
        if (t > theta) {
          theta = t;
          firstEssential = partition(prefix, theta);
        }
      }
    }
    return new Outcome(top, matches, exact && !pruning, scored);
  }

  /**
   * Every match, in increasing local id order, each with its score.
   *
   * @param docs {@code docs[0..count)} increasing
   * @param scores their scores
   * @param count how many
   */
  public record Matches(int[] docs, float[] scores, int count) {
    /** No match. */
    public static final Matches NONE = new Matches(new int[0], new float[0], 0);
  }

  /**
   * Every document among ids in [minDoc, maxDoc) that matches, that {@code filter} lists and that
   * {@code accept} takes, in increasing id order, with the score {@link #run} gives it: what an
   * aggregation reads. Nothing is ranked or pruned, so no heap of every match is built and sorted;
   * the filter leap-frogs with the postings as in {@link #run}.
   */
  public Matches collectAll(FilterIds filter, IntPredicate accept, int minDoc, int maxDoc) {
    int n = lists.length;
    if (n == 0 || minDoc >= maxDoc) {
      return Matches.NONE;
    }
    PostingCursor[] cur = new PostingCursor[n];
    for (int i = 0; i < n; i++) {
      cur[i] = new PostingCursor(lists[i]);
      cur[i].advance(minDoc);
    }
    double[] sums = new double[fieldCount];
    int[] docs = new int[256];
    float[] scores = new float[256];
    int count = 0;
    while (true) {
      int d = nextCandidate(cur, 0, filter, maxDoc);
      if (d >= maxDoc) {
        break;
      }
      if (!accept.test(d)) {
        advanceOn(cur, 0, d);
        continue;
      }
      java.util.Arrays.fill(sums, 0);
      for (int i = 0; i < n; i++) {
        PostingCursor c = cur[i];
        if (c.doc() == d) {
          sums[fields[i]] += score(i, c.freq(), d);
        }
      }
      advanceOn(cur, 0, d);
      if (count == docs.length) {
        docs = java.util.Arrays.copyOf(docs, count * 2);
        scores = java.util.Arrays.copyOf(scores, count * 2);
      }
      docs[count] = d;
      scores[count] = max(sums);
      count++;
    }
    return new Matches(docs, scores, count);
  }

  /**
   * The next id below {@code maxDoc} on a cursor from {@code from} on that the filter lists, or
   * {@link PostingCursor#NO_MORE}: leap-frogs the cursors with the filter, since no term on them
   * can match before the filter's next id.
   */
  private static int nextCandidate(PostingCursor[] cur, int from, FilterIds filter, int maxDoc) {
    while (true) {
      int d = PostingCursor.NO_MORE;
      for (int i = from; i < cur.length; i++) {
        d = Math.min(d, cur[i].doc());
      }
      if (d >= maxDoc) {
        return PostingCursor.NO_MORE;
      }
      int next = filter.advance(d);
      if (next == d) {
        return d;
      }
      if (next >= maxDoc) {
        return PostingCursor.NO_MORE;
      }
      advanceAll(cur, from, next);
    }
  }

  /** Moves the cursors from {@code from} on that are before {@code target} to it or past it. */
  private static void advanceAll(PostingCursor[] cur, int from, int target) {
    for (int i = from; i < cur.length; i++) {
      if (cur[i].doc() < target) {
        cur[i].advance(target);
      }
    }
  }

  private static void advanceOn(PostingCursor[] cur, int from, int d) {
    for (int i = from; i < cur.length; i++) {
      if (cur[i].doc() == d) {
        cur[i].nextDoc();
      }
    }
  }

  /** The longest prefix of terms whose combined bound stays below theta. */
  private int partition(float[][] prefix, float theta) {
    int p = 0;
    while (p < prefix.length && max(prefix[p]) * SLACK < theta) {
      p++;
    }
    return p;
  }

  /** The longest prefix of terms whose combined whole-list bounds stay below theta. */
  int partition(float theta) {
    return partition(globalPrefix, theta);
  }

  int termCount() {
    return lists.length;
  }

  int fieldCount() {
    return fieldCount;
  }

  int field(int term) {
    return fields[term];
  }

  float weight(int term) {
    return weights[term];
  }

  float[] cache(int term) {
    return caches[term];
  }

  PagedBytes norms(int term) {
    return fieldIndexes[fields[term]].norms();
  }

  PostingCursor cursor(int term) {
    return new PostingCursor(lists[term]);
  }

  /**
   * The bound of {@code term} over the blocks of {@code c}'s list that hold ids in [from, to), 0
   * when none does; moves {@code c}'s shallow pointer (from must not decrease).
   */
  float windowBound(int term, PostingCursor c, int from, int to) {
    long impact = c.windowImpact(from, to);
    if (impact < 0) {
      return 0;
    }
    return blockBound(term, (int) (impact >>> 8), (int) (impact & 0xFF));
  }

  private float blockBound(int term, int maxFreq, int minNorm) {
    return Bm25.upperBound(weights[term], caches[term], maxFreq, (byte) minNorm);
  }

  float score(int term, int freq, int doc) {
    byte norm = fieldIndexes[fields[term]].norm(doc);
    return Bm25.score(weights[term], freq, caches[term][norm & 0xFF]);
  }

  /**
   * The best field's score: each field's sum of term scores (added in double, as Lucene's
   * disjunctions add their clauses, so that the sum is exact and does not depend on the order the
   * terms were visited in, which follows the terms' bounds and changes as postings are written),
   * rounded to float, then the largest of them (Elasticsearch's {@code best_fields}).
   */
  static float max(double[] a) {
    float m = 0;
    for (double v : a) {
      m = Math.max(m, (float) v);
    }
    return m;
  }

  /** The largest of per-field bounds. */
  static float max(float[] a) {
    float m = 0;
    for (float v : a) {
      m = Math.max(m, v);
    }
    return m;
  }

  /**
   * The exact lexical score of each of the given ids (ascending), 0 when it matches no term; for
   * the hybrid union, where vector hits need their lexical part.
   */
  public float[] scoreDocs(int[] ascendingDocs) {
    float[] out = new float[ascendingDocs.length];
    int n = lists.length;
    PostingCursor[] cur = new PostingCursor[n];
    for (int i = 0; i < n; i++) {
      cur[i] = new PostingCursor(lists[i]);
    }
    double[] sums = new double[fieldCount];
    for (int j = 0; j < ascendingDocs.length; j++) {
      int d = ascendingDocs[j];
      java.util.Arrays.fill(sums, 0);
      for (int i = 0; i < n; i++) {
        if (cur[i].advance(d) == d) {
          sums[fields[i]] += score(i, cur[i].freq(), d);
        }
      }
      out[j] = max(sums);
    }
    return out;
  }
}
