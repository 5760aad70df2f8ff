package org.searchlab.testing.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builders of document operations for hand-made histories (on document {@value #KEY} unless
 * re-keyed), and the check that a verdict's evidence is what it claims. Stateless.
 */
final class DocOps {
  static final String KEY = "d";
  static final DocumentModel MODEL = new DocumentModel();

  private DocOps() {}

  static Map<String, Object> doc(String v) {
    return Map.of("v", v);
  }

  static Op<DocInput, DocOutput> put(
      int client, String v, DocOutput.Result r, long invoked, long completed) {
    return Op.ok(client, KEY, DocInput.put(doc(v)), DocOutput.of(r), invoked, completed);
  }

  static Op<DocInput, DocOutput> create(
      int client, String v, DocOutput.Result r, long invoked, long completed) {
    return Op.ok(client, KEY, DocInput.create(doc(v)), DocOutput.of(r), invoked, completed);
  }

  static Op<DocInput, DocOutput> update(
      int client, String field, String v, DocOutput.Result r, long invoked, long completed) {
    return Op.ok(
        client, KEY, DocInput.update(Map.of(field, v)), DocOutput.of(r), invoked, completed);
  }

  static Op<DocInput, DocOutput> delete(
      int client, DocOutput.Result r, long invoked, long completed) {
    return Op.ok(client, KEY, DocInput.delete(), DocOutput.of(r), invoked, completed);
  }

  static Op<DocInput, DocOutput> get(int client, String v, long invoked, long completed) {
    return getDoc(client, doc(v), invoked, completed);
  }

  static Op<DocInput, DocOutput> getDoc(
      int client, Map<String, Object> doc, long invoked, long completed) {
    return Op.ok(client, KEY, DocInput.get(), DocOutput.found(doc), invoked, completed);
  }

  static Op<DocInput, DocOutput> getAbsent(int client, long invoked, long completed) {
    return Op.ok(client, KEY, DocInput.get(), DocOutput.notFound(), invoked, completed);
  }

  static Op<DocInput, DocOutput> unknownPut(int client, String v, long invoked) {
    return Op.indeterminate(client, KEY, DocInput.put(doc(v)), invoked);
  }

  static Op<DocInput, DocOutput> unknownDelete(int client, long invoked) {
    return Op.indeterminate(client, KEY, DocInput.delete(), invoked);
  }

  static Op<DocInput, DocOutput> failedPut(int client, String v, long invoked, long completed) {
    return Op.failed(client, KEY, DocInput.put(doc(v)), invoked, completed);
  }

  static <I, O> Op<I, O> keyed(String key, Op<I, O> op) {
    return new Op<>(
        op.client(), key, op.input(), op.outcome(), op.output(), op.invoked(), op.completed());
  }

  /** The verdict's prefix respects real time and is a legal run; an OK one holds every op. */
  static <S, I, O> void assertEvidence(
      Verdict<I, O> verdict, List<Op<I, O>> history, Model<S, I, O> model) {
    List<Op<I, O>> prefix = verdict.prefix();
    String why = verdict.describe();
    Set<Op<I, O>> in = Collections.newSetFromMap(new IdentityHashMap<>());
    S state = model.init();
    for (int i = 0; i < prefix.size(); i++) {
      Op<I, O> op = prefix.get(i);
      assertTrue(in.add(op), "twice in the prefix: " + op.describe() + "\n" + why);
      assertFalse(op.outcome() == Op.Outcome.FAILED, "a FAILED op in the prefix\n" + why);
      for (int j = i + 1; j < prefix.size(); j++) {
        assertFalse(prefix.get(j).precedes(op), "real-time order broken at " + i + "\n" + why);
      }
      state =
          op.outcome() == Op.Outcome.OK
              ? model.step(state, op.input(), op.output())
              : model.apply(state, op.input());
      assertNotNull(state, "illegal step " + (i + 1) + "\n" + why);
    }
    assertEquals(String.valueOf(state), verdict.stateAfter(), why);
    List<Op<I, O>> considered = new ArrayList<>();
    for (Op<I, O> op : history) {
      if (op.outcome() != Op.Outcome.FAILED) {
        considered.add(op);
      }
    }
    assertEquals(considered.size(), verdict.operations(), why);
    if (verdict.result() == Verdict.Result.OK) {
      assertEquals(considered.size(), prefix.size(), why);
      assertTrue(verdict.stuckAt().isEmpty(), why);
    } else if (verdict.result() == Verdict.Result.ILLEGAL) {
      Op<I, O> stuck = verdict.stuckAt().orElseThrow();
      assertFalse(in.contains(stuck), "the op it is stuck at is in the prefix\n" + why);
      assertTrue(prefix.size() < considered.size(), why);
    }
  }
}
