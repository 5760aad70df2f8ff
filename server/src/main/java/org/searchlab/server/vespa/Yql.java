package org.searchlab.server.vespa;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * The syntax tree of the YQL subset. Every node records the 1-based column where it starts, so a
 * translation error can point at it. Immutable.
 */
sealed interface Yql {
  /** The 1-based column of the node's first character. */
  int column();

  /**
   * A value in a statement: a literal or a reference to a request parameter ({@code @name}).
   *
   * @param literal a {@link String}, {@link BigDecimal} or {@link Boolean}; null for a reference
   * @param param the parameter's name without {@code @}; null for a literal
   */
  record Value(Object literal, String param) {
    static Value of(Object literal) {
      return new Value(literal, null);
    }

    static Value ref(String param) {
      return new Value(null, param);
    }
  }

  /** {@code a and b and ...}. */
  record And(List<Yql> terms, int column) implements Yql {}

  /** {@code a or b or ...}. */
  record Or(List<Yql> terms, int column) implements Yql {}

  /** {@code !a}. */
  record Not(Yql term, int column) implements Yql {}

  /** {@code weakAnd(a, b, ...)}, with its annotations ({@code targetHits}). */
  record WeakAnd(List<Yql> terms, Map<String, Object> annotations, int column) implements Yql {}

  /** {@code rank(a, b, ...)}: {@code a} decides the matches, the rest only add to the score. */
  record Rank(List<Yql> terms, int column) implements Yql {}

  /** {@code userQuery()}: the {@code query} parameter, searched over the default text fields. */
  record UserQuery(int column) implements Yql {}

  /**
   * {@code {annotations}userInput("text")} or {@code userInput(@param)}.
   *
   * @param annotations {@code defaultIndex} and {@code grammar}
   */
  record UserInput(Value text, Map<String, Object> annotations, int column) implements Yql {}

  /**
   * {@code {annotations}nearestNeighbor(field, queryTensor)}.
   *
   * @param annotations {@code targetHits}, {@code approximate}, {@code hnsw.exploreAdditionalHits},
   *     {@code distanceThreshold} and {@code label}, as parsed literals (Long, Double, Boolean or
   *     String)
   */
  record NearestNeighbor(
      String field, String queryTensor, Map<String, Object> annotations, int column)
      implements Yql {}

  /**
   * {@code field contains "value"}, or {@code field contains text("value")} ({@code text} true: any
   * of the words rather than all of them).
   */
  record Contains(String field, Value value, boolean text, int column) implements Yql {}

  /**
   * {@code field op value} with op one of {@code < <= > >= =}, the field on the left ({@code 5 <
   * price} is read as {@code price > 5}); the value is a {@link BigDecimal}, or for {@code =} also
   * a string or a boolean.
   */
  record Compare(String field, String op, Object value, int column) implements Yql {}

  /**
   * {@code {bounds: ...}range(field, low, high)}.
   *
   * @param low the lower bound, null for {@code -Infinity}
   * @param high the upper bound, null for {@code Infinity}
   * @param lowInclusive whether {@code low} itself matches
   * @param highInclusive whether {@code high} itself matches
   */
  record Range(
      String field,
      BigDecimal low,
      BigDecimal high,
      boolean lowInclusive,
      boolean highInclusive,
      int column)
      implements Yql {}

  /** {@code field in (v1, v2, ...)}; a value may be {@code @param}, a comma-separated list. */
  record In(String field, List<Value> values, int column) implements Yql {}

  /** {@code true}: matches every document. */
  record True(int column) implements Yql {}

  /** {@code false}: matches no document. */
  record False(int column) implements Yql {}

  /**
   * One key of {@code order by}: an attribute, or one of Vespa's special sort attributes written
   * quoted ({@code "[relevance]"}, its alias {@code "[rank]"}, {@code "[docid]"}).
   *
   * @param descending {@code desc}; the default is ascending, descending for {@code [relevance]}
   */
  record OrderBy(String field, boolean descending, int column) {}

  /**
   * A whole statement.
   *
   * @param fields the summary fields after {@code select}; empty for {@code *}
   * @param sources the document types after {@code from}; empty for {@code sources *}
   * @param where the condition
   * @param orderBy the {@code order by} keys; empty for by relevance
   * @param limit the {@code limit} clause, or -1
   * @param offset the {@code offset} clause, or -1
   * @param grouping the parsed grouping after {@code |}; empty without one
   */
  record Select(
      List<String> fields,
      List<String> sources,
      Yql where,
      List<OrderBy> orderBy,
      int limit,
      int offset,
      List<GroupingParser.Op> grouping) {}
}
