package org.searchlab.testing.history;

import java.util.ArrayList;
import java.util.List;

/**
 * The definition of linearizability run as a brute-force search, as the reference the WGL checker
 * is compared with: some order of all acknowledged operations and any subset of the indeterminate
 * ones, in which no operation comes before one that completed before it was invoked, is a legal run
 * of the model. Tries every such order (depth-first, pruning only on an illegal step), with no
 * cache, no entry list and nothing shared with {@link LinearizabilityChecker}. For histories of a
 * few operations only: n! orders. Stateless and thread-safe.
 */
final class ExhaustiveChecker {
  private ExhaustiveChecker() {}

  static <S, I, O> boolean linearizable(List<Op<I, O>> history, Model<S, I, O> model) {
    List<Op<I, O>> ops = new ArrayList<>();
    int definite = 0;
    for (Op<I, O> op : history) {
      if (op.outcome() != Op.Outcome.FAILED) {
        ops.add(op);
        definite += op.outcome() == Op.Outcome.OK ? 1 : 0;
      }
    }
    if (ops.size() > 10) {
      throw new IllegalArgumentException(
          "a brute-force search of [" + ops.size() + "] operations; at most 10");
    }
    return search(ops, new boolean[ops.size()], model.init(), definite, model);
  }

  private static <S, I, O> boolean search(
      List<Op<I, O>> ops, boolean[] placed, S state, int definiteLeft, Model<S, I, O> model) {
    if (definiteLeft == 0) {
      // The indeterminate operations not placed never took effect.
      return true;
    }
    for (int i = 0; i < ops.size(); i++) {
      if (placed[i] || !allPredecessorsPlaced(ops, placed, i)) {
        continue;
      }
      Op<I, O> op = ops.get(i);
      boolean ok = op.outcome() == Op.Outcome.OK;
      S next = ok ? model.step(state, op.input(), op.output()) : model.apply(state, op.input());
      if (next == null) {
        continue;
      }
      placed[i] = true;
      if (search(ops, placed, next, definiteLeft - (ok ? 1 : 0), model)) {
        return true;
      }
      placed[i] = false;
    }
    return false;
  }

  private static <I, O> boolean allPredecessorsPlaced(List<Op<I, O>> ops, boolean[] placed, int i) {
    for (int j = 0; j < ops.size(); j++) {
      if (!placed[j] && j != i && ops.get(j).precedes(ops.get(i))) {
        return false;
      }
    }
    return true;
  }
}
