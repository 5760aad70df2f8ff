package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The merge-policy report's verdicts: a policy is named cheapest only when its per-round ratio to
 * every other one has an interval above 1, and a store figure agrees with a reading within 5%.
 */
class MergePolicyCellsTest {
  private static final Function<Double, Double> SAME = x -> x;

  @Test
  void namesTheCheapestOnlyWhereEveryIntervalLiesAbove1() {
    Map<String, Map<Integer, Double>> clear = new LinkedHashMap<>();
    clear.put("a", rounds(100, 104, 98, 101, 99, 103));
    clear.put("b", rounds(80, 82, 79, 83, 81, 80));
    clear.put("c", rounds(60, 61, 59, 62, 60, 58));
    MergePolicyCells.Verdict v = MergePolicyCells.cheapest(clear, SAME).orElseThrow();
    assertEquals("a", v.best());
    assertTrue(v.separated(), v.toString());
    assertEquals(2, v.against().size());

    // b overlaps a in some rounds: the per-round ratio's interval includes 1.
    Map<String, Map<Integer, Double>> close = new LinkedHashMap<>();
    close.put("a", rounds(100, 104, 98, 101, 99, 103));
    close.put("b", rounds(101, 99, 97, 104, 100, 98));
    MergePolicyCells.Verdict w = MergePolicyCells.cheapest(close, SAME).orElseThrow();
    assertFalse(w.separated(), w.toString());

    // One round is no interval: never separated.
    Map<String, Map<Integer, Double>> one = new LinkedHashMap<>();
    one.put("a", rounds(100));
    one.put("b", rounds(10));
    assertFalse(MergePolicyCells.cheapest(one, SAME).orElseThrow().separated());

    Map<String, Map<Integer, Double>> alone = new LinkedHashMap<>();
    alone.put("a", rounds(1, 2));
    assertTrue(MergePolicyCells.cheapest(alone, SAME).isEmpty());
  }

  @Test
  void aCheapestPolicyThatAnswersWorseIsNotComparable() {
    // The Debian run of a9aa07e, vector at 1 client while a refeed runs.
    Map<String, Double> recalls = new LinkedHashMap<>();
    recalls.put("tiered", 0.936);
    recalls.put("tiered:segments_per_tier=4", 0.954);
    recalls.put("log-byte-size", 0.963);
    recalls.put("none", 0.966);
    assertEquals(
        Map.of("tiered:segments_per_tier=4", 0.954, "log-byte-size", 0.963, "none", 0.966),
        MergePolicyCells.recallAbove(recalls, "tiered", 0.01));
    // Within the tolerance, or higher: level (hybrid filtered at rest, none 0.995 vs 0.998).
    assertTrue(MergePolicyCells.recallAbove(recalls, "none", 0.01).isEmpty());
    recalls.put("none", 0.945);
    assertEquals(
        Map.of("log-byte-size", 0.963), MergePolicyCells.recallAbove(recalls, "none", 0.01));
    // A lexical cell has no recall.
    Map<String, Double> lexical = new LinkedHashMap<>();
    lexical.put("tiered", null);
    lexical.put("none", null);
    assertTrue(MergePolicyCells.recallAbove(lexical, "none", 0.01).isEmpty());
  }

  @Test
  void agreementIsWithinFivePercentOfTheLarger() {
    assertTrue(check(100.0, 96.0).agrees());
    assertFalse(check(100.0, 94.0).agrees());
    assertTrue(check(0.0, 0.0).agrees());
    assertNull(check(null, 3.0).agrees());
    assertNull(check(3.0, null).agrees());
  }

  private static MergePolicyChecks.Check check(Double store, Double reading) {
    return new MergePolicyChecks.Check("v", "feed", "f", store, reading, "how");
  }

  private static Map<Integer, Double> rounds(double... v) {
    Map<Integer, Double> m = new LinkedHashMap<>();
    for (int i = 0; i < v.length; i++) {
      m.put(i + 1, v[i]);
    }
    return m;
  }
}
