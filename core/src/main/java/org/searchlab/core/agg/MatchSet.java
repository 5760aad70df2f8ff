package org.searchlab.core.agg;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The documents a search aggregates over, leaf by leaf: each leaf's matching document numbers in
 * increasing order with their scores. A store collects it while it searches ({@link Builder}); the
 * aggregations then read values for these documents only. Immutable once built.
 */
public final class MatchSet {
  /** One leaf's matches: {@code docs[0..count)} increasing, {@code scores} beside them. */
  record LeafMatches(int leaf, int[] docs, float[] scores, int count) {}

  private final List<LeafMatches> leaves;
  private final long size;

  private MatchSet(List<LeafMatches> leaves) {
    this.leaves = List.copyOf(leaves);
    long n = 0;
    for (LeafMatches l : leaves) {
      n += l.count();
    }
    this.size = n;
  }

  /**
   * One leaf's matches, already in increasing document order (a store that collects them in that
   * order skips {@link Builder}'s copy and check of every key); the arrays are taken, not copied.
   *
   * @throws IllegalArgumentException when {@code docs[0..count)} is not strictly increasing
   */
  public static MatchSet ofLeaf(int leaf, int[] docs, float[] scores, int count) {
    if (leaf < 0 || count < 0 || count > docs.length || count > scores.length) {
      throw new IllegalArgumentException("leaf " + leaf + ", count " + count + ": out of range");
    }
    for (int i = 0; i < count; i++) {
      if (docs[i] < 0 || (i > 0 && docs[i] <= docs[i - 1])) {
        throw new IllegalArgumentException(
            "doc " + docs[i] + " at " + i + ": not increasing and non-negative");
      }
    }
    return count == 0 ? EMPTY : new MatchSet(List.of(new LeafMatches(leaf, docs, scores, count)));
  }

  /** No documents. */
  public static final MatchSet EMPTY = new MatchSet(List.of());

  List<LeafMatches> leaves() {
    return leaves;
  }

  /** How many documents. */
  public long size() {
    return size;
  }

  /** A subset of this set: the documents {@code keep} selects, per leaf. */
  MatchSet filter(LeafFilter keep) throws java.io.IOException {
    List<LeafMatches> out = new ArrayList<>();
    for (LeafMatches l : leaves) {
      int[] docs = new int[l.count()];
      float[] scores = new float[l.count()];
      int n = 0;
      for (int i = 0; i < l.count(); i++) {
        if (keep.keep(l.leaf(), i, l.docs()[i])) {
          docs[n] = l.docs()[i];
          scores[n] = l.scores()[i];
          n++;
        }
      }
      if (n > 0) {
        out.add(new LeafMatches(l.leaf(), docs, scores, n));
      }
    }
    return new MatchSet(out);
  }

  /** Chooses documents of a leaf. */
  interface LeafFilter {
    boolean keep(int leaf, int index, int doc) throws java.io.IOException;
  }

  /**
   * Builds a {@link MatchSet} from matches added in any order (a lexical search's in document
   * order, a kNN search's by score), each document once with its final score. Not thread-safe.
   */
  public static final class Builder {
    private long[] keys = new long[16];
    private float[] scores = new float[16];
    private int count;

    /** Adds a match: document {@code doc} of leaf {@code leaf}, with its score. */
    public Builder add(int leaf, int doc, float score) {
      if (leaf < 0 || doc < 0) {
        throw new IllegalArgumentException("leaf " + leaf + ", doc " + doc + ": negative");
      }
      if (count == keys.length) {
        keys = Arrays.copyOf(keys, count * 2);
        scores = Arrays.copyOf(scores, count * 2);
      }
      keys[count] = ((long) leaf << 32) | doc;
      scores[count] = score;
      count++;
      return this;
    }

    /**
     * The set; throws {@link IllegalStateException} when a document was added twice (a store's
     * union must give each document its one fused score).
     */
    public MatchSet build() {
      boolean sorted = true;
      for (int i = 1; i < count && sorted; i++) {
        sorted = keys[i - 1] < keys[i];
      }
      long[] k = keys;
      float[] sc = scores;
      if (!sorted) {
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
          order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(keys[a], keys[b]));
        k = new long[count];
        sc = new float[count];
        for (int i = 0; i < count; i++) {
          k[i] = keys[order[i]];
          sc[i] = scores[order[i]];
        }
      }
      List<LeafMatches> out = new ArrayList<>();
      int start = 0;
      for (int i = 1; i <= count; i++) {
        if (i < count && k[i] == k[i - 1]) {
          throw new IllegalStateException(
              "document " + (int) k[i] + " of leaf " + (k[i] >>> 32) + " was added twice");
        }
        if (i == count || (k[i] >>> 32) != (k[start] >>> 32)) {
          int n = i - start;
          int[] docs = new int[n];
          for (int j = 0; j < n; j++) {
            docs[j] = (int) k[start + j];
          }
          out.add(
              new LeafMatches((int) (k[start] >>> 32), docs, Arrays.copyOfRange(sc, start, i), n));
          start = i;
        }
      }
      return new MatchSet(out);
    }
  }
}
