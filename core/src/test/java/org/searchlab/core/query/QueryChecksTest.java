package org.searchlab.core.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.mapping.Mapping;

/** The term-clause count of {@code multi_match} fields, patterns included. */
class QueryChecksTest {
  private static final Mapping PRODUCT = Mapping.product(2);

  private static int clauses(Query q) {
    int[] n = {0};
    QueryChecks.check(q, PRODUCT, n, Integer.MAX_VALUE);
    return n[0];
  }

  private static Query multiMatch(String text, String... fields) {
    return new Query.MultiMatch(
        text,
        java.util.Arrays.stream(fields).map(f -> new Query.FieldBoost(f, 1f)).toList(),
        Query.MultiMatchType.BEST_FIELDS,
        0f,
        Query.Operator.OR,
        null,
        1f);
  }

  @Test
  void aPatternCountsEveryTextAndKeywordFieldItMatches() {
    String text = "w ".repeat(100);
    int perTextField = clauses(multiMatch(text, "title"));
    assertEquals(100, perTextField);
    // "*" on the product mapping: title and description (text), id and category (keyword).
    assertEquals(2 * perTextField + 2, clauses(multiMatch(text, "*")));
    assertEquals(2 * perTextField, clauses(multiMatch(text, "*i*t*")));
    assertEquals(0, clauses(multiMatch(text, "nothing*")), "a pattern matching no field");
  }

  @Test
  void aPatternCanExceedTheLimit() {
    String text = "w ".repeat(600);
    int[] n = {0};
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class,
            () -> QueryChecks.check(multiMatch(text, "*"), PRODUCT, n, 1024));
    assertTrue(e.getMessage().contains("the limit is 1024"), e.getMessage());
    QueryChecks.check(multiMatch(text, "title"), PRODUCT, new int[] {0}, 1024);
  }
}
