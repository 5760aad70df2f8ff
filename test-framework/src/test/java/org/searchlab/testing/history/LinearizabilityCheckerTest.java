package org.searchlab.testing.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.searchlab.testing.history.DocOps.create;
import static org.searchlab.testing.history.DocOps.delete;
import static org.searchlab.testing.history.DocOps.failedPut;
import static org.searchlab.testing.history.DocOps.get;
import static org.searchlab.testing.history.DocOps.getAbsent;
import static org.searchlab.testing.history.DocOps.getDoc;
import static org.searchlab.testing.history.DocOps.keyed;
import static org.searchlab.testing.history.DocOps.put;
import static org.searchlab.testing.history.DocOps.unknownDelete;
import static org.searchlab.testing.history.DocOps.unknownPut;
import static org.searchlab.testing.history.DocOps.update;
import static org.searchlab.testing.history.DocOutput.Result.CONFLICT;
import static org.searchlab.testing.history.DocOutput.Result.CREATED;
import static org.searchlab.testing.history.DocOutput.Result.DELETED;
import static org.searchlab.testing.history.DocOutput.Result.NOOP;
import static org.searchlab.testing.history.DocOutput.Result.NOT_FOUND;
import static org.searchlab.testing.history.DocOutput.Result.UPDATED;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * The checker on hand-made document histories of 1–6 operations whose verdict is known: each
 * non-linearizable case is the smallest history of one kind of bug a server could have (stale read,
 * new-then-old, a value from nowhere, a resurrected or lost document, double create), next to a
 * linearizable twin that differs in one time or one output.
 */
class LinearizabilityCheckerTest {
  private static final LinearizabilityChecker.Budget BUDGET =
      new LinearizabilityChecker.Budget(1_000_000, Duration.ofSeconds(30));

  @SafeVarargs
  private static Verdict<DocInput, DocOutput> check(Op<DocInput, DocOutput>... ops) {
    List<Op<DocInput, DocOutput>> history = List.of(ops);
    Verdict<DocInput, DocOutput> v = LinearizabilityChecker.check(history, DocOps.MODEL, BUDGET);
    DocOps.assertEvidence(v, history, DocOps.MODEL);
    return v;
  }

  @SafeVarargs
  private static void assertLinearizable(Op<DocInput, DocOutput>... ops) {
    Verdict<DocInput, DocOutput> v = check(ops);
    assertEquals(Verdict.Result.OK, v.result(), v.describe());
  }

  @SafeVarargs
  private static Verdict<DocInput, DocOutput> assertIllegal(Op<DocInput, DocOutput>... ops) {
    Verdict<DocInput, DocOutput> v = check(ops);
    assertEquals(Verdict.Result.ILLEGAL, v.result(), v.describe());
    return v;
  }

  @Test
  void emptyAndSequentialHistoriesAreLinearizable() {
    assertLinearizable();
    assertLinearizable(
        getAbsent(0, 0, 10),
        put(0, "a", CREATED, 20, 30),
        get(1, "a", 40, 50),
        update(0, "w", "x", UPDATED, 60, 70),
        getDoc(1, Map.of("v", "a", "w", "x"), 80, 90),
        delete(0, DELETED, 100, 110));
  }

  @Test
  void theLinearizationOfAnOkHistoryIsGiven() {
    Op<DocInput, DocOutput> put = put(0, "a", CREATED, 0, 100);
    Op<DocInput, DocOutput> get = get(1, "a", 10, 20);
    Verdict<DocInput, DocOutput> v = check(get, put);
    assertEquals(List.of(put, get), v.prefix(), v.describe());
  }

  @Test
  void aReadConcurrentWithAPutMaySeeEitherValue() {
    assertLinearizable(
        put(0, "a", CREATED, 0, 10), put(0, "b", UPDATED, 20, 60), get(1, "b", 30, 40));
    assertLinearizable(
        put(0, "a", CREATED, 0, 10), put(0, "b", UPDATED, 20, 60), get(1, "a", 30, 40));
    // Touching intervals are concurrent: the read may still be ordered first.
    assertLinearizable(
        put(0, "a", CREATED, 0, 10), put(0, "b", UPDATED, 20, 30), get(1, "a", 30, 40));
  }

  @Test
  void aStaleReadAfterAnAcknowledgedPutIsIllegal() {
    Verdict<DocInput, DocOutput> v =
        assertIllegal(
            put(0, "a", CREATED, 0, 10), put(0, "b", UPDATED, 20, 30), get(1, "a", 31, 40));
    assertTrue(v.describe().contains("get -> {v=a}"), v.describe());
    assertEquals(2, v.prefix().size(), v.describe());
  }

  @Test
  void newThenOldIsIllegalEvenWhileTheWriteIsPending() {
    // w2 is still pending when both reads run, so either value alone is fine; but once a read has
    // seen w2, a later read cannot see w1 again.
    Op<DocInput, DocOutput> w1 = put(0, "a", CREATED, 0, 10);
    Op<DocInput, DocOutput> w2 = put(0, "b", UPDATED, 20, 100);
    assertLinearizable(w1, w2, get(2, "a", 50, 60));
    assertLinearizable(w1, w2, get(1, "a", 30, 40), get(2, "b", 50, 60));
    assertIllegal(w1, w2, get(1, "b", 30, 40), get(2, "a", 50, 60));
  }

  @Test
  void concurrentPutsThenReadsMustAgreeOnTheLastOne() {
    // The answers fix the order: "a" created the document, so "b" came second and stays.
    Op<DocInput, DocOutput> wa = put(0, "a", CREATED, 0, 50);
    Op<DocInput, DocOutput> wb = put(1, "b", UPDATED, 10, 40);
    assertLinearizable(wa, wb, get(2, "b", 60, 70));
    assertIllegal(wa, wb, get(2, "a", 60, 70));
    // Both answered updated: either order, but every later read agrees on one of them.
    Op<DocInput, DocOutput> z = create(3, "z", CREATED, 0, 5);
    Op<DocInput, DocOutput> ua = put(0, "a", UPDATED, 10, 60);
    Op<DocInput, DocOutput> ub = put(1, "b", UPDATED, 20, 50);
    assertLinearizable(z, ua, ub, get(2, "a", 70, 80), get(2, "a", 90, 100));
    assertLinearizable(z, ua, ub, get(2, "b", 70, 80), get(2, "b", 90, 100));
    assertIllegal(z, ua, ub, get(2, "a", 70, 80), get(2, "b", 90, 100));
  }

  @Test
  void aReadOfAValueNeverWrittenIsIllegal() {
    Verdict<DocInput, DocOutput> v =
        assertIllegal(put(0, "a", CREATED, 0, 10), get(1, "zz", 0, 40));
    assertEquals("{v=zz}", v.stuckAt().orElseThrow().output().toString(), v.describe());
    assertIllegal(getDoc(1, Map.of("v", "a"), 0, 10));
  }

  @Test
  void aFailedWriteIsLeftOutSoReadingItsValueIsIllegal() {
    assertLinearizable(put(0, "a", CREATED, 0, 10), failedPut(0, "b", 20, 30), get(1, "a", 40, 50));
    assertIllegal(put(0, "a", CREATED, 0, 10), failedPut(0, "b", 20, 30), get(1, "b", 25, 50));
  }

  @Test
  void anIndeterminateWriteMayApplyLaterOrNever() {
    Op<DocInput, DocOutput> w1 = put(0, "a", CREATED, 0, 10);
    // Seen much later: it may take effect any time after its call.
    assertLinearizable(w1, unknownPut(1, "b", 20), get(2, "a", 30, 40), get(2, "b", 500, 510));
    // Never seen.
    assertLinearizable(w1, unknownPut(1, "b", 20), get(2, "a", 30, 40), get(2, "a", 500, 510));
    // Seen, then unseen with nothing else written: it cannot have happened twice.
    assertIllegal(w1, unknownPut(1, "b", 20), get(2, "b", 30, 40), get(2, "a", 500, 510));
    // Seen before it was sent.
    assertIllegal(w1, unknownPut(1, "b", 20), get(2, "b", 0, 15));
  }

  @Test
  void anIndeterminateDeleteMayApplyLaterOrNever() {
    Op<DocInput, DocOutput> w = put(0, "a", CREATED, 0, 10);
    assertLinearizable(w, unknownDelete(1, 20), get(2, "a", 30, 40), getAbsent(2, 50, 60));
    assertLinearizable(w, unknownDelete(1, 20), get(2, "a", 30, 40), get(2, "a", 50, 60));
    assertIllegal(w, unknownDelete(1, 20), getAbsent(2, 30, 40), get(2, "a", 50, 60));
  }

  @Test
  void aDocumentFoundAfterAnAcknowledgedDeleteIsIllegal() {
    Op<DocInput, DocOutput> w = put(0, "a", CREATED, 0, 10);
    assertIllegal(w, delete(0, DELETED, 20, 30), get(1, "a", 40, 50));
    assertLinearizable(w, delete(0, DELETED, 20, 30), get(1, "a", 25, 50));
    // A delete of an absent document answers not_found and changes nothing.
    assertIllegal(w, delete(0, NOT_FOUND, 20, 30));
    assertLinearizable(delete(0, NOT_FOUND, 0, 10), getAbsent(1, 20, 30));
  }

  @Test
  void anUpdateOfAMissingDocumentIsNotFoundAndChangesNothing() {
    assertLinearizable(update(0, "w", "x", NOT_FOUND, 0, 10), getAbsent(1, 20, 30));
    assertIllegal(update(0, "w", "x", UPDATED, 0, 10));
    assertIllegal(update(0, "w", "x", NOT_FOUND, 0, 10), getDoc(1, Map.of("w", "x"), 20, 30));
    // not_found while an acknowledged put precedes it: the put was lost.
    assertIllegal(put(0, "a", CREATED, 0, 10), update(1, "w", "x", NOT_FOUND, 20, 30));
    assertLinearizable(put(0, "a", CREATED, 0, 25), update(1, "w", "x", NOT_FOUND, 20, 30));
  }

  @Test
  void anUpdateMergesAndANoopChangesNothing() {
    Op<DocInput, DocOutput> w = put(0, "a", CREATED, 0, 10);
    assertLinearizable(
        w, update(1, "w", "x", UPDATED, 20, 30), getDoc(2, Map.of("v", "a", "w", "x"), 40, 50));
    assertIllegal(w, update(1, "w", "x", UPDATED, 20, 30), get(2, "a", 40, 50));
    // A merge that changes nothing may answer noop (segmented) or updated (mutable).
    assertLinearizable(w, update(1, "v", "a", NOOP, 20, 30), get(2, "a", 40, 50));
    assertLinearizable(w, update(1, "v", "a", UPDATED, 20, 30), get(2, "a", 40, 50));
    assertIllegal(w, update(1, "v", "b", NOOP, 20, 30));
  }

  @Test
  void twoCreatedAnswersForSequentialCreatesAreIllegal() {
    assertIllegal(create(0, "a", CREATED, 0, 10), create(1, "b", CREATED, 20, 30));
    assertLinearizable(
        create(0, "a", CREATED, 0, 10), create(1, "b", CONFLICT, 20, 30), get(2, "a", 40, 50));
    assertIllegal(create(0, "a", CREATED, 0, 10), put(1, "b", CREATED, 20, 30));
    // With a delete in between, both may create.
    assertLinearizable(
        create(0, "a", CREATED, 0, 10), delete(2, DELETED, 5, 25), create(1, "b", CREATED, 20, 30));
  }

  @Test
  void eachDocumentIsJudgedAlone() {
    List<Op<DocInput, DocOutput>> history = new ArrayList<>();
    history.add(keyed("x", put(0, "a", CREATED, 0, 10)));
    history.add(keyed("y", put(1, "a", CREATED, 5, 15)));
    history.add(keyed("x", get(0, "a", 20, 30)));
    history.add(keyed("y", getAbsent(1, 25, 35)));
    history.add(keyed("z", failedPut(2, "a", 0, 1)));
    SortedMap<String, Verdict<DocInput, DocOutput>> verdicts =
        LinearizabilityChecker.checkPerKey(history, DocOps.MODEL, BUDGET);
    assertEquals(List.of("x", "y", "z"), List.copyOf(verdicts.keySet()));
    assertEquals(Verdict.Result.OK, verdicts.get("x").result());
    assertEquals(Verdict.Result.ILLEGAL, verdicts.get("y").result(), verdicts.get("y").describe());
    assertEquals(Verdict.Result.OK, verdicts.get("z").result());
    assertEquals(0, verdicts.get("z").operations());
    // As one object the same operations are not linearizable: two created answers.
    assertEquals(
        Verdict.Result.ILLEGAL,
        LinearizabilityChecker.check(history, DocOps.MODEL, BUDGET).result());
  }

  @Test
  void aSpentBudgetIsUnknownNotAVerdict() {
    List<Op<DocInput, DocOutput>> history = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      history.add(put(i, "v" + i, i == 0 ? CREATED : UPDATED, 0, 100));
    }
    history.add(get(12, "v13", 200, 210));
    LinearizabilityChecker.Budget small =
        new LinearizabilityChecker.Budget(50, Duration.ofSeconds(30));
    Verdict<DocInput, DocOutput> v = LinearizabilityChecker.check(history, DocOps.MODEL, small);
    assertEquals(Verdict.Result.UNKNOWN, v.result(), v.describe());
    assertEquals(50, v.steps());
    assertEquals(
        Verdict.Result.ILLEGAL,
        LinearizabilityChecker.check(history, DocOps.MODEL, BUDGET).result());
  }

  @Test
  void badInputIsRefusedNamingTheValue() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> put(0, "a", CREATED, 10, 5));
    assertTrue(e.getMessage().contains("[5]"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> new Op<>(0, "d", DocInput.get(), Op.Outcome.INDETERMINATE, null, 0, 10));
    assertThrows(
        IllegalArgumentException.class, () -> DocInput.put(Map.of("vector", new float[] {1f})));
    assertThrows(
        IllegalArgumentException.class, () -> new DocInput(DocInput.Kind.GET, Map.of("a", "b")));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LinearizabilityChecker.Budget(0, Duration.ofSeconds(1)));
  }
}
