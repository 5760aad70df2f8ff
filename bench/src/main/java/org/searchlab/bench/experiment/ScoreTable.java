package org.searchlab.bench.experiment;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The exact scores of every document one query matches, kept for the life of an exact answer
 * ({@link ExactSearch#answerWithEveryScore}, the reference the compact answers are checked against;
 * the runner's answers keep only the scores they are asked for) in eight bytes a match: each
 * match's corpus ordinal and its score's bits in one {@code long}, sorted by ordinal, looked up by
 * binary search. A {@code Map<String, Float>} of the same matches costs about 56 bytes each (entry,
 * boxed score, table slot); the experiment keeps the answers of a few hundred queries of up to
 * 100,000 matches each, and in that form they outgrew the runner's 3 GB heap. Immutable and
 * thread-safe.
 */
final class ScoreTable implements ToDoubleFunction<String> {
  private final Map<String, Integer> ordinals;
  private final long[] keys;
  // Matches whose id has no ordinal (not in the corpus the ordinals were taken from); empty in
  // practice, kept so that no score is ever lost.
  private final Map<String, Float> others;

  /**
   * @param scores each matching id's exact score
   * @param ordinals the corpus's ids by ordinal (shared by every table, never changed)
   */
  ScoreTable(Map<String, Float> scores, Map<String, Integer> ordinals) {
    this.ordinals = ordinals;
    long[] k = new long[scores.size()];
    int n = 0;
    Map<String, Float> rest = new HashMap<>();
    for (Map.Entry<String, Float> e : scores.entrySet()) {
      Integer ord = ordinals.get(e.getKey());
      if (ord == null) {
        rest.put(e.getKey(), e.getValue());
      } else {
        k[n++] = key(ord, e.getValue());
      }
    }
    this.keys = Arrays.copyOf(k, n);
    Arrays.sort(keys);
    this.others = rest.isEmpty() ? Map.of() : Map.copyOf(rest);
  }

  private static long key(int ordinal, float score) {
    return ((long) ordinal << 32) | (Float.floatToRawIntBits(score) & 0xffffffffL);
  }

  /** How many matches. */
  int size() {
    return keys.length + others.size();
  }

  /** The exact score of {@code id}, or NaN when the query does not match it. */
  @Override
  public double applyAsDouble(String id) {
    Integer ord = ordinals.get(id);
    if (ord == null) {
      Float s = others.get(id);
      return s == null ? Double.NaN : s;
    }
    int at = Arrays.binarySearch(keys, (long) ord << 32);
    if (at < 0) {
      at = -at - 1;
    }
    if (at < keys.length && (int) (keys[at] >>> 32) == ord) {
      return Float.intBitsToFloat((int) keys[at]);
    }
    return Double.NaN;
  }
}
