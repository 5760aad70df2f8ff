package org.searchlab.testing.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * The WGL checker against the brute-force definition ({@link ExhaustiveChecker}) on thousands of
 * random small document histories ({@link RandomHistories}), both verdicts occurring; plus the
 * properties that need no reference: a history whose intervals contain their linearization points
 * passes, the same history with one read of a value never written fails, the evidence is a legal
 * prefix, per-key checking equals checking each key alone, and a linearizable history has no
 * anomalies.
 */
class CheckerAgreementTest {
  private static final int HISTORIES = 3000;
  private static final int MAX_OPS = 7;
  private static final LinearizabilityChecker.Budget BUDGET =
      new LinearizabilityChecker.Budget(10_000_000, Duration.ofMinutes(1));

  @Test
  void wglAgreesWithBruteForceOnRandomSmallHistories() {
    long seed = TestSeeds.seed("CheckerAgreementTest");
    SplittableRandom random = new SplittableRandom(seed);
    int ok = 0;
    int illegal = 0;
    int poisoned = 0;
    List<Op<DocInput, DocOutput>> batch = new ArrayList<>();
    Map<String, Verdict.Result> expected = new HashMap<>();
    for (int h = 0; h < HISTORIES; h++) {
      String key = "k" + (h % 3);
      RandomHistories.Generated g = RandomHistories.next(random, key, MAX_OPS);
      String where = "seed " + seed + ", history " + h + ", " + g.describe();
      Verdict<DocInput, DocOutput> v =
          LinearizabilityChecker.check(g.history(), DocOps.MODEL, BUDGET);
      boolean brute = ExhaustiveChecker.linearizable(g.history(), DocOps.MODEL);
      assertEquals(
          brute ? Verdict.Result.OK : Verdict.Result.ILLEGAL, v.result(), where + v.describe());
      DocOps.assertEvidence(v, g.history(), DocOps.MODEL);
      if (g.shape() == RandomHistories.Shape.CONTAINED) {
        assertTrue(v.ok(), where + v.describe());
        poisoned += assertPoisonedReadFails(g, where);
      }
      if (v.ok()) {
        ok++;
        Anomalies a = Anomalies.of(g.history());
        assertTrue(a.isEmpty(), where + a.describe());
      } else {
        illegal++;
      }
      batch.addAll(g.history());
      expected.put(key, v.result());
      if (h % 3 == 2) {
        // Three documents' histories over the same times: judged apart, each as alone.
        SortedMap<String, Verdict<DocInput, DocOutput>> perKey =
            LinearizabilityChecker.checkPerKey(batch, DocOps.MODEL, BUDGET);
        for (Map.Entry<String, Verdict.Result> e : expected.entrySet()) {
          assertEquals(e.getValue(), perKey.get(e.getKey()).result(), where);
        }
        batch.clear();
        expected.clear();
      }
    }
    String figures =
        HISTORIES
            + " random histories of 1–"
            + MAX_OPS
            + " operations (seed "
            + seed
            + "): "
            + ok
            + " linearizable, "
            + illegal
            + " not, brute force agreeing on all; "
            + poisoned
            + " reads of a value never written caught";
    System.out.println("[history] " + figures);
    // Both verdicts, each in a good share (about 2:1 with these shapes), so neither side of the
    // comparison is vacuous.
    assertTrue(ok >= HISTORIES / 5 && illegal >= HISTORIES / 8, figures);
    assertTrue(poisoned >= HISTORIES / 10, figures);
  }

  /** Makes one read of a contained history return a value nobody wrote; returns 1 if it could. */
  private static int assertPoisonedReadFails(RandomHistories.Generated g, String where) {
    List<Op<DocInput, DocOutput>> ops = new ArrayList<>(g.history());
    for (int i = 0; i < ops.size(); i++) {
      Op<DocInput, DocOutput> op = ops.get(i);
      if (op.outcome() == Op.Outcome.OK && op.input().kind() == DocInput.Kind.GET) {
        ops.set(i, RandomHistories.withOutput(op, DocOutput.found(Map.of("v", "never"))));
        Verdict<DocInput, DocOutput> v = LinearizabilityChecker.check(ops, DocOps.MODEL, BUDGET);
        assertEquals(Verdict.Result.ILLEGAL, v.result(), where + v.describe());
        assertFalse(ExhaustiveChecker.linearizable(ops, DocOps.MODEL), where);
        assertFalse(Anomalies.of(ops).dirtyReads().isEmpty(), where);
        return 1;
      }
    }
    return 0;
  }
}
