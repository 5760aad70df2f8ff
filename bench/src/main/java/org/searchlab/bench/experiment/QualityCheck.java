package org.searchlab.bench.experiment;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Judges several answer lists to the same queries (one per variant, or per calibration setting)
 * against the exact answers, for one query type and filter setting: tie-aware and id-based
 * recall@10 of each, and overlap@10 of the named pairs. Each query's exact answer is computed once,
 * used for every list and dropped, so memory does not grow with the number of lists; queries run on
 * the common pool. Stateless and thread-safe.
 */
final class QualityCheck {
  static final int K = 10;

  /**
   * The measures, keyed by the answer lists' names (overlaps by {@code "a|b"}); a measure defined
   * for no query is absent. {@code exact} holds the exact top-10 ids of each query.
   */
  record Result(
      Map<String, Double> recall,
      Map<String, Double> recallIds,
      Map<String, Double> overlap,
      Map<String, Double> overlapIds,
      List<List<String>> exact) {}

  private QualityCheck() {}

  /**
   * @param answers per name, the ids each query returned, in the order of {@code queries}
   * @param pairs names whose overlap is wanted, as {@code [a, b]}
   */
  static Result evaluate(
      ExactSearch exact,
      List<BenchQuery> queries,
      QueryType type,
      boolean filtered,
      Map<String, List<List<String>>> answers,
      List<List<String>> pairs) {
    return evaluate(truths(exact, queries, type, filtered), answers, pairs);
  }

  /**
   * The exact top-10 of every query, for callers that evaluate several sets of answers to the same
   * queries (the exact hybrid answer scores the whole corpus: worth computing once).
   */
  static List<ExactAnswer> truths(
      ExactSearch exact, List<BenchQuery> queries, QueryType type, boolean filtered) {
    return IntStream.range(0, queries.size())
        .parallel()
        .mapToObj(i -> exact.answer(queries.get(i), type, filtered, K))
        .toList();
  }

  /**
   * As {@link #evaluate(ExactSearch, List, QueryType, boolean, Map, List)}, against exact answers
   * computed once ({@link #truths}).
   */
  static Result evaluate(
      List<ExactAnswer> truths, Map<String, List<List<String>>> answers, List<List<String>> pairs) {
    List<String> names = List.copyOf(answers.keySet());
    int nq = truths.size();
    // per query: [recall per name, recallIds per name, overlap per pair, overlapIds per pair]
    List<List<String>> exactIds =
        new java.util.ArrayList<>(java.util.Collections.nCopies(nq, null));
    double[][] perQuery =
        IntStream.range(0, nq)
            .parallel()
            .mapToObj(
                i -> {
                  ExactAnswer truth = truths.get(i);
                  // Every id a list returned, looked up at once: one pass over the query's matches
                  // for all of them, where one id at a time would make one each.
                  java.util.Set<String> returned = new java.util.HashSet<>();
                  for (String n : names) {
                    returned.addAll(answers.get(n).get(i));
                  }
                  truth.prepare(returned);
                  List<String> truthIds = truth.ids();
                  exactIds.set(i, truthIds);
                  double[] v = new double[2 * names.size() + 2 * pairs.size()];
                  int j = 0;
                  for (String n : names) {
                    v[j++] = Quality.recall(answers.get(n).get(i), truth, K);
                  }
                  for (String n : names) {
                    v[j++] = Quality.recallIds(answers.get(n).get(i), truthIds, K);
                  }
                  for (List<String> p : pairs) {
                    v[j++] =
                        Quality.overlap(
                            answers.get(p.get(0)).get(i), answers.get(p.get(1)).get(i), truth, K);
                  }
                  for (List<String> p : pairs) {
                    v[j++] =
                        Quality.overlapIds(
                            answers.get(p.get(0)).get(i), answers.get(p.get(1)).get(i), K);
                  }
                  return v;
                })
            .toArray(double[][]::new);
    Map<String, Double> recall = new LinkedHashMap<>();
    Map<String, Double> recallIds = new LinkedHashMap<>();
    Map<String, Double> overlap = new LinkedHashMap<>();
    Map<String, Double> overlapIds = new LinkedHashMap<>();
    int j = 0;
    for (String n : names) {
      put(recall, n, column(perQuery, j++));
    }
    for (String n : names) {
      put(recallIds, n, column(perQuery, j++));
    }
    for (List<String> p : pairs) {
      put(overlap, p.get(0) + "|" + p.get(1), column(perQuery, j++));
    }
    for (List<String> p : pairs) {
      put(overlapIds, p.get(0) + "|" + p.get(1), column(perQuery, j++));
    }
    return new Result(recall, recallIds, overlap, overlapIds, List.copyOf(exactIds));
  }

  private static Double column(double[][] rows, int j) {
    double[] c = new double[rows.length];
    for (int i = 0; i < rows.length; i++) {
      c[i] = rows[i][j];
    }
    return Quality.mean(c);
  }

  private static void put(Map<String, Double> m, String k, Double v) {
    if (v != null) {
      m.put(k, v);
    }
  }
}
