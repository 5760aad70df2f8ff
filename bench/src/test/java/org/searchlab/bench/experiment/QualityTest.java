package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

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

  @Test
  void queryTextKeepsEightWordsWithoutQuotes() {
    assertEquals(
        "one two three four five six seven eight",
        BenchQuery.queryText("one \"two\" three four  five six seven eight nine ten", 8));
    assertEquals("short", BenchQuery.queryText("short", 8));
  }
}
