package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.PartialUpdate;
import org.searchlab.testing.PossibleDocuments.Verdict;

class PossibleDocumentsTest {
  private static Document version(int v) {
    return new Document("id-0", "title " + v, "description", "c" + v, v, 1f, new float[] {1, 0});
  }

  @Test
  void anUnansweredOperationLeavesBothStatesPossibleUntilResolved() {
    PossibleDocuments p = new PossibleDocuments(3);
    assertTrue(p.isCertain(0));
    assertNull(p.certain(0));
    p.invoke(0, version(1));
    assertFalse(p.isCertain(0));
    assertThrows(IllegalStateException.class, () -> p.certain(0));
    assertThrows(IllegalStateException.class, () -> p.invoke(0, version(2)));
    assertEquals(Verdict.OK, p.verdict(0, null));
    assertEquals(Verdict.OK, p.verdict(0, version(1)));
    p.resolve(0, version(1));
    assertTrue(p.isCertain(0));
    assertEquals(version(1), p.certain(0));
    assertEquals(Arrays.asList(version(1)), p.possible(0));
  }

  @Test
  void violationsAreNamedLostResurrectedOrTorn() {
    PossibleDocuments p = new PossibleDocuments(1);
    p.invoke(0, version(1));
    p.acknowledge(0, version(1));
    assertEquals(Verdict.LOST, p.verdict(0, null), "an acknowledged put missing");

    PartialUpdate u = PartialUpdate.of("id-0").withPrice(7);
    p.invoke(0, u.applyTo(version(1)));
    p.acknowledge(0, u.applyTo(version(1)));
    assertEquals(
        Verdict.LOST, p.verdict(0, version(1)), "the version before an acknowledged update");
    assertEquals(Verdict.TORN, p.verdict(0, version(9)), "a version nobody wrote");

    p.invoke(0, null);
    p.acknowledge(0, null);
    assertEquals(Verdict.RESURRECTED, p.verdict(0, version(1)), "a deleted version back");
    assertEquals(Verdict.TORN, p.verdict(0, version(3)));
    assertEquals(Verdict.OK, p.verdict(0, null));
  }

  @Test
  void describesTheStatesForAViolationsMessage() {
    PossibleDocuments p = new PossibleDocuments(1);
    p.invoke(0, version(4));
    assertEquals("[absent, 'title 4' price 4 c4]", p.describe(0));
    assertThrows(IllegalArgumentException.class, () -> new PossibleDocuments(0));
  }
}
