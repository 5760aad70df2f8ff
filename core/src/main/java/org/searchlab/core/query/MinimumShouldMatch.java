package org.searchlab.core.query;

import org.searchlab.core.InvalidRequestException;

/**
 * Elasticsearch's {@code minimum_should_match}: an integer ({@code 2}), a negative integer ({@code
 * -1}: all but one), a percentage ({@code 75%}, rounded down) or a negative percentage.
 * Combinations ({@code 3<90%}) are not supported. Stateless and thread-safe.
 */
public final class MinimumShouldMatch {
  private MinimumShouldMatch() {}

  /** Rejects a value this class cannot read; null is fine (none). */
  public static void check(String spec) {
    if (spec != null) {
      of(spec, 10);
    }
  }

  /**
   * How many of {@code optional} clauses must match under {@code spec}, as Elasticsearch's {@code
   * Queries.calculateMinShouldMatch}: never below 0 nor above {@code optional}.
   */
  public static int of(String spec, int optional) {
    if (spec == null) {
      return 0;
    }
    String s = spec.trim();
    int result;
    try {
      if (s.endsWith("%")) {
        int pct = Integer.parseInt(s.substring(0, s.length() - 1).trim());
        int calc = (int) ((long) optional * pct / 100);
        result = pct < 0 ? optional + calc : calc;
      } else {
        int n = Integer.parseInt(s);
        result = n < 0 ? optional + n : n;
      }
    } catch (NumberFormatException e) {
      throw new InvalidRequestException(
          "[minimum_should_match] ["
              + (s.length() > 20 ? s.substring(0, 17) + "..." : s)
              + "] is not supported; use an integer or a percentage such as 75%");
    }
    return Math.max(0, Math.min(optional, result));
  }
}
