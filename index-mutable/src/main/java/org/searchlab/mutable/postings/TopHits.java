package org.searchlab.mutable.postings;

import java.util.Arrays;

/**
 * The best {@code k} (local id, score) pairs seen so far, in a min-heap; on equal scores the lower
 * local id wins, as Lucene's collector prefers the earlier document.
 *
 * <p>Not thread-safe: one per query thread; {@link #merge} combines them.
 */
public final class TopHits {
  private final int k;
  private final int[] docs;
  private final float[] scores;
  private int size;

  public TopHits(int k) {
    this.k = k;
    this.docs = new int[Math.max(k, 1)];
    this.scores = new float[Math.max(k, 1)];
  }

  public int size() {
    return size;
  }

  public boolean full() {
    return size >= k;
  }

  /** The score a new hit must beat, or −∞ while the heap is not full. */
  public float threshold() {
    return size >= k && k > 0 ? scores[0] : Float.NEGATIVE_INFINITY;
  }

  /** Whether a hit with this score and id would enter. */
  public boolean competitive(int doc, float score) {
    if (k == 0) {
      return false;
    }
    return size < k || worse(scores[0], docs[0], score, doc);
  }

  /** Offers a hit; returns whether it entered. */
  public boolean insert(int doc, float score) {
    if (k == 0) {
      return false;
    }
    if (size < k) {
      docs[size] = doc;
      scores[size] = score;
      up(size++);
      return true;
    }
    if (!worse(scores[0], docs[0], score, doc)) {
      return false;
    }
    docs[0] = doc;
    scores[0] = score;
    down(0);
    return true;
  }

  /** a (scoreA, docA) ranks below b. */
  private static boolean worse(float sa, int da, float sb, int db) {
    return sa < sb || (sa == sb && da > db);
  }

  private void up(int i) {
    while (i > 0) {
      int p = (i - 1) >>> 1;
      if (worse(scores[i], docs[i], scores[p], docs[p])) {
        swap(i, p);
        i = p;
      } else {
        return;
      }
    }
  }

  private void down(int i) {
    while (true) {
      int l = 2 * i + 1;
      if (l >= size) {
        return;
      }
      int m = l;
      if (l + 1 < size && worse(scores[l + 1], docs[l + 1], scores[l], docs[l])) {
        m = l + 1;
      }
      if (worse(scores[m], docs[m], scores[i], docs[i])) {
        swap(i, m);
        i = m;
      } else {
        return;
      }
    }
  }

  private void swap(int a, int b) {
    int d = docs[a];
    docs[a] = docs[b];
    docs[b] = d;
    float s = scores[a];
    scores[a] = scores[b];
    scores[b] = s;
  }

  /** Adds every hit of {@code other}. */
  public void merge(TopHits other) {
    for (int i = 0; i < other.size; i++) {
      insert(other.docs[i], other.scores[i]);
    }
  }

  /**
   * The hits, best first, equal scores by lower local id. Sorted as primitive keys (the score's
   * order-preserving bits, inverted so that higher scores come first, above the id), so sorting a
   * large heap (every match of an aggregating search's ranking window) neither boxes nor compares
   * through a lambda; the order is {@link Float#compare}'s, then the id's.
   */
  public Sorted sorted() {
    long[] keys = new long[size];
    for (int i = 0; i < size; i++) {
      keys[i] = key(scores[i], docs[i]);
    }
    Arrays.sort(keys);
    int[] d = new int[size];
    float[] s = new float[size];
    for (int i = 0; i < size; i++) {
      d[i] = (int) keys[i];
      s[i] = scoreOf(keys[i]);
    }
    return new Sorted(d, s);
  }

  /** A key whose ascending order is descending score, then ascending id (ids are ≥ 0). */
  static long key(float score, int doc) {
    int bits = Float.floatToIntBits(score);
    int sortable = bits ^ ((bits >> 31) & 0x7fffffff); // ascending ints ⇔ ascending floats
    return ((long) ~sortable << 32) | (doc & 0xffffffffL);
  }

  /** The score {@link #key} encoded. */
  static float scoreOf(long key) {
    int sortable = ~(int) (key >>> 32);
    return Float.intBitsToFloat(sortable ^ ((sortable >> 31) & 0x7fffffff));
  }

  /**
   * Hits best first.
   *
   * @param docs local ids
   * @param scores their scores
   */
  public record Sorted(int[] docs, float[] scores) {
    public int size() {
      return docs.length;
    }
  }
}
