package org.searchlab.bench.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.history.DocInput;
import org.searchlab.testing.history.DocOutput;
import org.searchlab.testing.history.LinearizabilityChecker;
import org.searchlab.testing.history.Op;
import org.searchlab.testing.history.Verdict;

/**
 * One short history, as CI runs it: a real server child, four clients, one SIGKILL among the calls
 * and a restart on the same directory, then the final read; every document must be linearizable
 * with no lost write, dirty read or stale search. The same recorded history with one read made to
 * show a token no write wrote must fail the check, so a pass is not vacuous; and it must survive
 * the trip through its file.
 *
 * <p>One store a run, chosen by the seed's parity (the seed line names it), because two server
 * starts per store cost CI about 8 s each on an idle 2-core machine; seeds cover both stores, and
 * {@code searchlab history} runs either at length.
 */
class HistoryRunTest {
  @TempDir Path tmp;

  @Test
  void aHistoryWithAKillIsLinearizablePerDocument() throws Exception {
    long seed = TestSeeds.seed("HistoryRunTest");
    String store = (seed & 1) == 0 ? "mutable" : "segmented";
    System.out.println("HistoryRunTest: store " + store);
    int ops = 300;
    int ids = 8;
    RecordedHistory h =
        new HistoryRun(
                new HistoryRun.Settings(
                    store, 4, ops, ids, 1, false, 0.03, seed, tmp.resolve("data"), "256m"))
            .run();
    HistoryCheck check = HistoryCheck.of(h, LinearizabilityChecker.Budget.DEFAULT);
    String evidence = check.describeViolations() + "unexpected: " + h.unexpectedSamples();
    System.out.printf(
        "%s: %d calls, %d indeterminate, %d searches, restart %d ms, check %.2f s%n",
        store,
        h.ops().size(),
        h.count(Op.Outcome.INDETERMINATE),
        h.searches().size(),
        h.kills().get(0).restartMillis(),
        check.checkNanos() / 1e9);

    assertEquals(1, h.kills().size());
    assertEquals(ops + ids, h.ops().size(), "every call and one final read per id");
    long acknowledgedWrites =
        h.ops().stream().filter(o -> o.outcome() == Op.Outcome.OK && o.input().writes()).count();
    assertTrue(acknowledgedWrites > ops / 4, "acknowledged writes: " + acknowledgedWrites);
    assertEquals(ids, check.verdicts().size());
    assertEquals(ids, check.count(Verdict.Result.OK), evidence);
    assertFalse(check.violated(), evidence);
    assertEquals(0, h.unexpected(), evidence);

    Path file = tmp.resolve("history.jsonl");
    HistoryFile.write(file, h);
    assertEquals(h, HistoryFile.read(file));

    RecordedHistory forged = withNeverWrittenFinalRead(h);
    HistoryCheck bad = HistoryCheck.of(forged, LinearizabilityChecker.Budget.DEFAULT);
    assertEquals(1, bad.count(Verdict.Result.ILLEGAL), bad.describeViolations());
    assertEquals(1, bad.anomalies().dirtyReads().size(), bad.describeViolations());
    assertTrue(bad.violated());
  }

  /** The history with the last final read showing a token that no write of it carried. */
  private static RecordedHistory withNeverWrittenFinalRead(RecordedHistory h) {
    List<Op<DocInput, DocOutput>> ops = new ArrayList<>(h.ops());
    int last = ops.size() - 1;
    Op<DocInput, DocOutput> read = ops.get(last);
    assertEquals(Op.Outcome.OK, read.outcome(), "the final read answered");
    ops.set(
        last,
        Op.ok(
            read.client(),
            read.key(),
            read.input(),
            DocOutput.found(Map.of("token", "never-written", "n", 0L, "tag", "t0")),
            read.invoked(),
            read.completed()));
    return new RecordedHistory(
        h.store(),
        h.seed(),
        h.clients(),
        h.ids(),
        ops,
        h.searches(),
        h.kills(),
        h.unexpected(),
        h.unexpectedSamples());
  }
}
