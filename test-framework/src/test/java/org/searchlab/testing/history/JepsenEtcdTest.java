package org.searchlab.testing.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The checker on real histories of a system that is not linearizable: Jepsen's etcd logs from
 * Porcupine's test data (14 of 102, {@code src/test/resources/porcupine/jepsen/NOTICE.md}), with a
 * compare-and-set register, giving the verdict Porcupine's own tests expect for each log. etcd 2.0
 * served reads without consensus ({@code quorum=false}), hence the stale reads.
 */
class JepsenEtcdTest {
  private static final CasRegisterModel MODEL = new CasRegisterModel();

  @ParameterizedTest(name = "etcd_{0}.log linearizable={1}")
  @CsvSource({
    "000, false", "001, false", "002, true", "003, false", "004, false", "005, true",
    "006, false", "007, true", "008, false", "010, false", "018, true", "025, true",
    "031, true", "045, true"
  })
  void givesPorcupinesVerdict(String log, boolean linearizable) {
    List<Op<CasRegisterModel.Input, CasRegisterModel.Output>> history =
        JepsenEtcdLog.read("/porcupine/jepsen/etcd_" + log + ".log");
    assertTrue(history.size() > 50, "parsed " + history.size() + " operations");
    Verdict<CasRegisterModel.Input, CasRegisterModel.Output> v =
        LinearizabilityChecker.check(history, MODEL, LinearizabilityChecker.Budget.DEFAULT);
    assertEquals(
        linearizable ? Verdict.Result.OK : Verdict.Result.ILLEGAL, v.result(), v.describe());
    DocOps.assertEvidence(v, history, MODEL);
  }

  @Test
  void readsPendingCallsAsIndeterminateAndFailedCasAsAnswered() {
    List<Op<CasRegisterModel.Input, CasRegisterModel.Output>> ops =
        JepsenEtcdLog.parse(
            List.of(
                "INFO  jepsen.util - 0\t:invoke\t:write\t4",
                "INFO  jepsen.util - 1\t:invoke\t:cas\t[3 0]",
                "INFO  jepsen.util - 2\t:invoke\t:read\tnil",
                "INFO  jepsen.util - 0\t:info\t:write\t:timed-out",
                "INFO  jepsen.util - 1\t:fail\t:cas\t[3 0]",
                "INFO  jepsen.util - 2\t:fail\t:read\t:timed-out"));
    assertEquals(3, ops.size());
    Op<CasRegisterModel.Input, CasRegisterModel.Output> cas = ops.get(0);
    assertEquals(Op.Outcome.OK, cas.outcome());
    assertEquals(1, cas.invoked());
    assertEquals(4, cas.completed());
    assertEquals(Op.Outcome.FAILED, ops.get(1).outcome());
    Op<CasRegisterModel.Input, CasRegisterModel.Output> write = ops.get(2);
    assertEquals(Op.Outcome.INDETERMINATE, write.outcome());
    assertEquals(OptionalInt.of(4), MODEL.apply(MODEL.init(), write.input()));
    assertThrows(
        IllegalArgumentException.class,
        () -> JepsenEtcdLog.parse(List.of("INFO  jepsen.util - 0\t:ok\t:read\t1")));
  }
}
