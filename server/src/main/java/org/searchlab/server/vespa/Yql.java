package org.searchlab.server.vespa;

import java.util.List;
import java.util.Map;

/**
 * The syntax tree of the YQL subset. Every node records the 1-based column where it starts, so a
 * translation error can point at it. Immutable.
 */
sealed interface Yql {
  /** The 1-based column of the node's first character. */
  int column();

  /** {@code a and b and ...}. */
  record And(List<Yql> terms, int column) implements Yql {}

  /** {@code a or b or ...}. */
  record Or(List<Yql> terms, int column) implements Yql {}

  /** {@code userQuery()}: the {@code query} parameter, searched over the default text fields. */
  record UserQuery(int column) implements Yql {}

  /**
   * {@code {annotations}nearestNeighbor(field, queryTensor)}.
   *
   * @param annotations {@code targetHits}, {@code approximate}, {@code hnsw.exploreAdditionalHits}
   *     and {@code label}, as parsed literals (Long, Boolean or String)
   */
  record NearestNeighbor(
      String field, String queryTensor, Map<String, Object> annotations, int column)
      implements Yql {}

  /** {@code field contains "value"}. */
  record Contains(String field, String value, int column) implements Yql {}

  /** {@code field op number} with op one of {@code < <= > >= =}. */
  record Compare(String field, String op, java.math.BigDecimal value, int column) implements Yql {}

  /** {@code true}: matches every document. */
  record True(int column) implements Yql {}

  /**
   * A whole statement.
   *
   * @param fields the summary fields after {@code select}; empty for {@code *}
   * @param sources the document types after {@code from}; empty for {@code sources *}
   * @param where the condition
   * @param limit the {@code limit} clause, or -1
   * @param offset the {@code offset} clause, or -1
   */
  record Select(List<String> fields, List<String> sources, Yql where, int limit, int offset) {}
}
