package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Hit;

class QualityTest {
  @Test
  void recallSkipsEmptyTruthAndCountsIntersections() {
    List<List<String>> exact = List.of(List.of("a", "b", "c", "d"), List.of(), List.of("x"));
    List<List<String>> got = List.of(List.of("a", "c", "z", "q"), List.of("y"), List.of("x"));
    assertEquals((0.5 + 1.0) / 2, Quality.recall(got, exact, 10), 1e-12);
    assertNull(Quality.recall(List.of(List.of()), List.of(List.of()), 10));
  }

  @Test
  void recallLooksAtTheFirstKOnly() {
    List<List<String>> exact = List.of(List.of("a", "b"));
    List<List<String>> got = List.of(List.of("b", "x"));
    assertEquals(0.5, Quality.recall(got, exact, 2), 1e-12);
    assertEquals(0.0, Quality.recall(got, exact, 1), 1e-12);
  }

  @Test
  void overlapDividesByTheLongerList() {
    assertEquals(
        (2 / 3.0 + 1.0) / 2,
        Quality.overlap(
            List.of(List.of("a", "b", "c"), List.of("q")),
            List.of(List.of("b", "a"), List.of("q")),
            10),
        1e-12);
  }

  /** An exact answer over a fixed score table (ids absent from it are not hits). */
  private static ExactAnswer answer(Map<String, Double> scores, int k) {
    List<Hit> top =
        scores.entrySet().stream()
            .map(e -> new Hit(e.getKey(), e.getValue().floatValue()))
            .sorted(org.searchlab.testing.ExactCorpus.BY_SCORE)
            .limit(k)
            .toList();
    return new ExactAnswer(top, id -> scores.getOrDefault(id, Double.NaN));
  }

  @Test
  void tieAwareRecallCountsAnyDocumentTiedAtTheKthPlace() {
    // b, c and d tie at the 2nd place: the exact top-2 is [a, b] by id order, but a store that
    // returns [a, d] or [c, a] is as correct.
    ExactAnswer exact = answer(Map.of("a", 3.0, "b", 2.0, "c", 2.0, "d", 2.0, "e", 1.0), 2);
    assertEquals(1.0, Quality.recall(List.of("a", "d"), exact, 2), 1e-12);
    assertEquals(1.0, Quality.recall(List.of("c", "a"), exact, 2), 1e-12);
    assertEquals(0.5, Quality.recall(List.of("a", "e"), exact, 2), 1e-12);
    assertEquals(0.5, Quality.recallIds(List.of("a", "d"), exact.ids(), 2), 1e-12);
    // a tied document that is not in the store's top-k does not count; neither do duplicates
    assertEquals(0.5, Quality.recall(List.of("d", "d"), exact, 2), 1e-12);
    // a non-hit (NaN) never counts
    assertEquals(0.5, Quality.recall(List.of("a", "zz"), exact, 2), 1e-12);
  }

  @Test
  void tieAwareRecallToleratesFloatSummationOrderButNotRealGaps() {
    double kth = 12.5;
    double ulps = kth * 3e-7; // a few float ulps below the k-th score
    ExactAnswer exact =
        answer(Map.of("a", 20.0, "b", kth, "c", kth - ulps, "d", kth * (1 - 1e-3)), 2);
    assertEquals(1.0, Quality.recall(List.of("a", "c"), exact, 2), 1e-12);
    assertEquals(0.5, Quality.recall(List.of("a", "d"), exact, 2), 1e-12);
  }

  @Test
  void tieAwareRecallDividesByTheExactAnswerWhenItIsShorterThanK() {
    ExactAnswer exact = answer(Map.of("a", 2.0, "b", 1.0), 10);
    assertEquals(1.0, Quality.recall(List.of("b", "a"), exact, 10), 1e-12);
    assertEquals(0.5, Quality.recall(List.of("a"), exact, 10), 1e-12);
    assertTrue(Double.isNaN(Quality.recall(List.of("a"), answer(Map.of(), 10), 10)));
  }

  @Test
  void tieAwareOverlapPairsEqualScoresOneToOne() {
    ExactAnswer exact =
        answer(Map.of("a", 5.0, "b", 4.0, "c", 4.0, "d", 4.0, "e", 3.0, "f", 2.0), 10);
    // b and c are the tie group's members on one side, d and c on the other: all shared.
    assertEquals(1.0, Quality.overlap(List.of("a", "b", "c"), List.of("a", "c", "d"), exact, 3));
    // one tied document cannot pair twice: [b, c] against [d, e] shares only one pair (b~d).
    assertEquals(0.5, Quality.overlap(List.of("b", "c"), List.of("d", "e"), exact, 2), 1e-12);
    assertEquals(0.0, Quality.overlapIds(List.of("b", "c"), List.of("d", "e"), 2), 1e-12);
    // different scores are not shared; the longer list is the denominator
    assertEquals(1 / 3.0, Quality.overlap(List.of("a", "e", "f"), List.of("a"), exact, 3), 1e-12);
    // non-hits pair with nothing, not even with each other
    assertEquals(0.0, Quality.overlap(List.of("x"), List.of("y"), exact, 1), 1e-12);
  }

  @Test
  void pairingWithinToleranceIsMaximal() {
    double e = 1e-7;
    // 4.0 could pair with either 4.0+e or 4.0-e; greedy from the top still finds two pairs.
    assertEquals(2, Quality.pairEqual(List.of(4.0 + e, 4.0 - e), List.of(4.0, 4.0 - 2 * e)));
    assertEquals(0, Quality.pairEqual(List.of(4.0), List.of(3.9)));
  }

  @Test
  void queryTextKeepsEightWordsWithoutQuotes() {
    assertEquals(
        "one two three four five six seven eight",
        BenchQuery.queryText("one \"two\" three four  five six seven eight nine ten", 8));
    assertEquals("short", BenchQuery.queryText("short", 8));
  }
}
