package org.searchlab.testing.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
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
import static org.searchlab.testing.history.DocOutput.Result.CREATED;
import static org.searchlab.testing.history.DocOutput.Result.DELETED;
import static org.searchlab.testing.history.DocOutput.Result.NOT_FOUND;
import static org.searchlab.testing.history.DocOutput.Result.UPDATED;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Lost writes and dirty reads on hand-made histories, and none on linearizable ones. */
class AnomaliesTest {

  @Test
  void anAcknowledgedPutThatALaterReadMissesIsLost() {
    Op<DocInput, DocOutput> w = put(0, "a", CREATED, 0, 10);
    Op<DocInput, DocOutput> r = getAbsent(1, 20, 30);
    Anomalies a = Anomalies.of(List.of(w, r, getAbsent(1, 40, 50)));
    assertEquals(1, a.lost().size(), a.describe());
    assertSame(w, a.lost().get(0).write());
    assertSame(r, a.lost().get(0).read(), "the first read that missed it");
    assertTrue(a.dirtyReads().isEmpty(), a.describe());
  }

  @Test
  void anOverwrittenValueIsLostOnlyWhenNothingCouldHaveReplacedIt() {
    Op<DocInput, DocOutput> w1 = put(0, "a", CREATED, 0, 10);
    Op<DocInput, DocOutput> w2 = put(0, "b", UPDATED, 20, 30);
    Anomalies stale = Anomalies.of(List.of(w1, w2, get(1, "a", 40, 50)));
    assertEquals(1, stale.lost().size(), stale.describe());
    assertSame(w2, stale.lost().get(0).write());
    // An indeterminate delete or put, or a write concurrent with the read, may explain it.
    assertTrue(Anomalies.of(List.of(w1, w2, unknownDelete(2, 35), getAbsent(1, 40, 50))).isEmpty());
    assertTrue(
        Anomalies.of(List.of(w1, w2, unknownPut(2, "a", 35), get(1, "a", 40, 50))).isEmpty());
    assertTrue(
        Anomalies.of(List.of(w1, put(2, "a", UPDATED, 45, 60), get(1, "a", 40, 50))).isEmpty());
    // A failed write explains nothing.
    Anomalies failed =
        Anomalies.of(List.of(w1, w2, failedPut(2, "a", 35, 36), get(1, "a", 40, 50)));
    assertEquals(1, failed.lost().size(), failed.describe());
  }

  @Test
  void lostUpdatesAndLostDeletes() {
    Op<DocInput, DocOutput> w = put(0, "a", CREATED, 0, 10);
    Op<DocInput, DocOutput> u = update(0, "w", "x", UPDATED, 20, 30);
    assertSame(u, Anomalies.of(List.of(w, u, get(1, "a", 40, 50))).lost().get(0).write());
    assertTrue(
        Anomalies.of(List.of(w, u, getDoc(1, Map.of("v", "a", "w", "x"), 40, 50))).isEmpty());
    Op<DocInput, DocOutput> d = delete(0, DELETED, 20, 30);
    Anomalies resurrected = Anomalies.of(List.of(w, d, get(1, "a", 40, 50)));
    assertSame(d, resurrected.lost().get(0).write(), resurrected.describe());
  }

  @Test
  void aReadOfAFailedWritesValueIsDirty() {
    Op<DocInput, DocOutput> r = get(1, "b", 40, 50);
    Anomalies a = Anomalies.of(List.of(put(0, "a", CREATED, 0, 10), failedPut(0, "b", 20, 30), r));
    assertEquals(1, a.dirtyReads().size(), a.describe());
    assertSame(r, a.dirtyReads().get(0).read());
    assertEquals("v", a.dirtyReads().get(0).path());
    assertEquals("b", a.dirtyReads().get(0).value());
  }

  @Test
  void phantomsNeverWrittenWrittenLaterOrByAnUpdateThatFoundNothing() {
    Anomalies none = Anomalies.of(List.of(get(1, "a", 0, 10)));
    assertEquals("", none.dirtyReads().get(0).path(), none.describe());
    Anomalies later = Anomalies.of(List.of(get(1, "a", 0, 10), put(0, "a", CREATED, 11, 20)));
    assertEquals(1, later.dirtyReads().size(), later.describe());
    Anomalies missing =
        Anomalies.of(
            List.of(
                put(0, "a", CREATED, 0, 10),
                update(0, "w", "x", NOT_FOUND, 20, 30),
                getDoc(1, Map.of("v", "a", "w", "x"), 40, 50)));
    assertEquals("w", missing.dirtyReads().get(0).path(), missing.describe());
    // Concurrent with the read, or indeterminate: it could have been read.
    assertTrue(Anomalies.of(List.of(get(1, "a", 0, 10), put(0, "a", CREATED, 5, 20))).isEmpty());
    assertTrue(Anomalies.of(List.of(unknownPut(0, "a", 0), get(1, "a", 10, 20))).isEmpty());
    // Touching intervals are concurrent (found by CheckerAgreementTest, seed
    // -3756351394408940949): a write invoked as the read completes may be what it read, and may
    // fall between an earlier write and the read.
    assertTrue(Anomalies.of(List.of(get(1, "a", 0, 10), put(0, "a", CREATED, 10, 20))).isEmpty());
    assertTrue(
        Anomalies.of(
                List.of(
                    put(0, "a", CREATED, 0, 5), put(2, "b", UPDATED, 20, 30), get(1, "b", 10, 20)))
            .isEmpty());
  }

  @Test
  void nestedUpdatesAreAttributedLeafByLeaf() {
    Op<DocInput, DocOutput> w =
        Op.ok(
            0,
            DocOps.KEY,
            DocInput.put(Map.of("o", Map.of("a", "1"))),
            DocOutput.of(CREATED),
            0,
            10);
    Op<DocInput, DocOutput> u =
        Op.ok(
            0,
            DocOps.KEY,
            DocInput.update(Map.of("o", Map.of("b", "2"))),
            DocOutput.of(UPDATED),
            20,
            30);
    Op<DocInput, DocOutput> r = getDoc(1, Map.of("o", Map.of("a", "1", "b", "2")), 40, 50);
    assertTrue(Anomalies.of(List.of(w, u, r)).isEmpty());
    Verdict<DocInput, DocOutput> v =
        LinearizabilityChecker.check(
            List.of(w, u, r), DocOps.MODEL, LinearizabilityChecker.Budget.DEFAULT);
    assertEquals(Verdict.Result.OK, v.result(), v.describe());
  }

  @Test
  void documentsAreSeparate() {
    Anomalies a =
        Anomalies.of(
            List.of(keyed("x", put(0, "a", CREATED, 0, 10)), keyed("y", get(1, "a", 20, 30))));
    assertEquals(1, a.dirtyReads().size(), a.describe());
    assertEquals(0, a.lost().size(), a.describe());
  }
}
