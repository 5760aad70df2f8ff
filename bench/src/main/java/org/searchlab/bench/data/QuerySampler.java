package org.searchlab.bench.data;

import java.util.SplittableRandom;

/**
 * Picks the documents that become benchmark queries and turns a title into query text, as the
 * reference benchmark does. Stateless and thread-safe.
 */
final class QuerySampler {
  /** The number of title words kept in a query's text. */
  static final int QUERY_WORDS = 8;

  private QuerySampler() {}

  /**
   * {@code count} distinct ordinals out of {@code n}, in sampling order: the first {@code count}
   * positions of a Fisher–Yates shuffle driven by {@code seed}. The same {@code (n, count, seed)}
   * always gives the same ordinals.
   */
  static int[] sample(int n, int count, long seed) {
    if (count < 0 || count > n) {
      throw new IllegalArgumentException("cannot sample " + count + " of " + n + " documents");
    }
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < count; i++) {
      int j = i + random.nextInt(n - i);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    int[] out = new int[count];
    System.arraycopy(perm, 0, out, 0, count);
    return out;
  }

  /**
   * The query text of a title: its first {@value #QUERY_WORDS} whitespace-separated words with
   * double quotes (straight and typographic) removed, joined by single spaces.
   */
  static String queryText(String title) {
    String unquoted = title.replace("\"", "").replace("“", "").replace("”", "");
    String[] words = unquoted.strip().split("\\s+");
    int n = Math.min(QUERY_WORDS, words.length);
    return String.join(" ", java.util.Arrays.copyOf(words, n)).strip();
  }
}
