package org.searchlab.testing.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A linearizability checker: the Wing–Gong search with Lowe's cache of configurations seen, as
 * Porcupine's {@code checkSingle} runs it, and a per-object driver ({@link #checkPerKey}) that
 * checks each document's sub-history alone, which linearizability's locality makes sound.
 *
 * <p>The search walks a doubly-linked list of call and return entries in time order (calls before
 * returns at equal times, so touching intervals are concurrent):
 *
 * <ol>
 *   <li>At a call entry, step the model with the operation. If the step is legal and the
 *       configuration (linearized set ∪ {op}, new state) was not seen before, remember it, push
 *       (entry, old state), lift the operation's call and return out of the list and start again
 *       from the head. Otherwise go on to the next entry.
 *   <li>At a return entry, the operation it ends was not linearized while it was pending with the
 *       ones before it in any order tried from here: pop the last linearized operation, put its
 *       entries back, restore the state and try the entry after its call. An empty stack means no
 *       order exists: not linearizable.
 *   <li>An empty list means every operation is linearized: the stack is the linearization.
 * </ol>
 *
 * <p>A configuration seen before is not explored again because its future (the operations left and
 * the state) is the same: it failed before, or it is an ancestor on the stack. Indeterminate
 * operations get a return entry at +∞, so they may be linearized anywhere after their call; one
 * linearized at the very end is indistinguishable from one that never took effect. FAILED
 * operations are left out. Worst-case time is exponential in the number of concurrent operations,
 * hence the {@link Budget}.
 *
 * <p>Stateless and thread-safe (each call has its own search state); the model must be thread-safe
 * to be used from several threads at once.
 */
public final class LinearizabilityChecker {
  private LinearizabilityChecker() {}

  /**
   * How much search one object's history may take before its verdict is {@link
   * Verdict.Result#UNKNOWN}.
   *
   * @param maxSteps the most model steps, at least 1; more finds more verdicts, slower
   * @param maxTime the most wall-clock time, positive and at most a day; checked every 1,024 steps
   */
  public record Budget(long maxSteps, Duration maxTime) {
    /** 50 million steps or one minute per object, whichever comes first. */
    public static final Budget DEFAULT = new Budget(50_000_000L, Duration.ofMinutes(1));

    public Budget {
      if (maxSteps < 1) {
        throw new IllegalArgumentException("maxSteps [" + maxSteps + "] must be at least 1");
      }
      if (maxTime.isNegative() || maxTime.isZero() || maxTime.compareTo(Duration.ofDays(1)) > 0) {
        throw new IllegalArgumentException(
            "maxTime [" + maxTime + "] must be positive and at most one day");
      }
    }
  }

  /**
   * Checks a history as the history of one object, whatever its keys say.
   *
   * @return the verdict, labelled with the first operation's key (empty for an empty history)
   */
  public static <S, I, O> Verdict<I, O> check(
      List<Op<I, O>> history, Model<S, I, O> model, Budget budget) {
    String key = history.isEmpty() ? "" : history.get(0).key();
    return checkSingle(key, history, model, budget);
  }

  /**
   * Checks each object's sub-history alone: a history of single-object operations is linearizable
   * iff every sub-history is (Herlihy and Wing's locality). The budget applies to each object.
   *
   * @return a verdict per key, in key order
   */
  public static <S, I, O> SortedMap<String, Verdict<I, O>> checkPerKey(
      List<Op<I, O>> history, Model<S, I, O> model, Budget budget) {
    Map<String, List<Op<I, O>>> byKey = new TreeMap<>();
    for (Op<I, O> op : history) {
      byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
    }
    SortedMap<String, Verdict<I, O>> verdicts = new TreeMap<>();
    for (Map.Entry<String, List<Op<I, O>>> e : byKey.entrySet()) {
      verdicts.put(e.getKey(), checkSingle(e.getKey(), e.getValue(), model, budget));
    }
    return verdicts;
  }

  private static <S, I, O> Verdict<I, O> checkSingle(
      String key, List<Op<I, O>> history, Model<S, I, O> model, Budget budget) {
    List<Op<I, O>> ops = new ArrayList<>(history.size());
    for (Op<I, O> op : history) {
      if (op.outcome() != Op.Outcome.FAILED) {
        ops.add(op);
      }
    }
    int n = ops.size();
    EntryList list = EntryList.of(ops);
    long[] linearized = new long[(n + 63) >>> 6];
    Set<Configuration> seen = new HashSet<>();
    int[] stackEntry = new int[n];
    List<S> stackState = new ArrayList<>(n);
    S state = model.init();
    long deadline = System.nanoTime() + budget.maxTime().toNanos();
    long steps = 0;

    // The evidence: the deepest stack seen at a return entry, as Porcupine's "longest".
    int bestDepth = -1;
    List<Op<I, O>> bestPrefix = List.of();
    S bestState = state;
    Op<I, O> bestStuck = null;

    int entry = list.first();
    while (!list.isEmpty()) {
      if (EntryList.isCall(entry)) {
        int i = EntryList.op(entry);
        Op<I, O> op = ops.get(i);
        if (++steps > budget.maxSteps()
            || ((steps & 1023) == 0 && System.nanoTime() - deadline > 0)) {
          return new Verdict<>(
              key,
              Verdict.Result.UNKNOWN,
              bestPrefix,
              String.valueOf(bestState),
              Optional.empty(),
              n,
              steps - 1);
        }
        S next =
            op.outcome() == Op.Outcome.OK
                ? model.step(state, op.input(), op.output())
                : model.apply(state, op.input());
        if (next != null) {
          linearized[i >>> 6] |= 1L << i;
          if (seen.add(new Configuration(linearized.clone(), next))) {
            stackEntry[stackState.size()] = entry;
            stackState.add(state);
            state = next;
            list.lift(entry);
            entry = list.first();
            continue;
          }
          linearized[i >>> 6] &= ~(1L << i);
        }
        entry = list.after(entry);
      } else {
        int depth = stackState.size();
        if (depth > bestDepth) {
          bestDepth = depth;
          bestPrefix = prefix(ops, stackEntry, depth);
          bestState = state;
          bestStuck = ops.get(EntryList.op(entry));
        }
        if (depth == 0) {
          return new Verdict<>(
              key,
              Verdict.Result.ILLEGAL,
              bestPrefix,
              String.valueOf(bestState),
              Optional.of(bestStuck),
              n,
              steps);
        }
        entry = stackEntry[depth - 1];
        state = stackState.remove(depth - 1);
        int i = EntryList.op(entry);
        linearized[i >>> 6] &= ~(1L << i);
        list.unlift(entry);
        entry = list.after(entry);
      }
    }
    return new Verdict<>(
        key,
        Verdict.Result.OK,
        prefix(ops, stackEntry, stackState.size()),
        String.valueOf(state),
        Optional.empty(),
        n,
        steps);
  }

  private static <I, O> List<Op<I, O>> prefix(List<Op<I, O>> ops, int[] stackEntry, int depth) {
    List<Op<I, O>> prefix = new ArrayList<>(depth);
    for (int d = 0; d < depth; d++) {
      prefix.add(ops.get(EntryList.op(stackEntry[d])));
    }
    return prefix;
  }

  /** A (linearized set, state) pair of Lowe's cache. Immutable once built. */
  private static final class Configuration {
    private final long[] linearized;
    private final Object state;
    private final int hash;

    Configuration(long[] linearized, Object state) {
      this.linearized = linearized;
      this.state = state;
      this.hash = Arrays.hashCode(linearized) * 31 + state.hashCode();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Configuration c
          && hash == c.hash
          && Arrays.equals(linearized, c.linearized)
          && state.equals(c.state);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /**
   * The call and return entries of a history as a doubly-linked list over arrays, with Knuth's
   * dancing-links removal: a lifted entry keeps its own links, so putting entries back in the
   * reverse order of their removal restores the list exactly. Entry {@code 2i} is the call of
   * operation {@code i} and {@code 2i + 1} its return. Not thread-safe (one search owns it).
   */
  private static final class EntryList {
    private static final int NIL = -1;
    private final int head;
    private final int[] next;
    private final int[] prev;

    private EntryList(int head, int[] next, int[] prev) {
      this.head = head;
      this.next = next;
      this.prev = prev;
    }

    static <I, O> EntryList of(List<Op<I, O>> ops) {
      int n = ops.size();
      Integer[] entries = new Integer[2 * n];
      for (int e = 0; e < entries.length; e++) {
        entries[e] = e;
      }
      // Time order; at equal times calls before returns (touching intervals are concurrent), then
      // by operation index so that the search is deterministic.
      Arrays.sort(
          entries,
          (a, b) -> {
            int c = Long.compare(time(ops, a), time(ops, b));
            if (c != 0) {
              return c;
            }
            c = Boolean.compare(!isCall(a), !isCall(b));
            return c != 0 ? c : Integer.compare(a, b);
          });
      int head = 2 * n;
      int[] next = new int[2 * n + 1];
      int[] prev = new int[2 * n + 1];
      int last = head;
      prev[head] = NIL;
      for (int e : entries) {
        next[last] = e;
        prev[e] = last;
        last = e;
      }
      next[last] = NIL;
      return new EntryList(head, next, prev);
    }

    private static <I, O> long time(List<Op<I, O>> ops, int entry) {
      Op<I, O> op = ops.get(op(entry));
      return isCall(entry) ? op.invoked() : op.completed();
    }

    static boolean isCall(int entry) {
      return (entry & 1) == 0;
    }

    static int op(int entry) {
      return entry >>> 1;
    }

    boolean isEmpty() {
      return next[head] == NIL;
    }

    int first() {
      return next[head];
    }

    int after(int entry) {
      return next[entry];
    }

    /** Removes a call entry and its return. A call is always followed by its return. */
    void lift(int call) {
      int ret = call + 1;
      next[prev[call]] = next[call];
      prev[next[call]] = prev[call];
      next[prev[ret]] = next[ret];
      if (next[ret] != NIL) {
        prev[next[ret]] = prev[ret];
      }
    }

    /** Undoes the {@link #lift} of {@code call}; lifts must be undone in reverse order. */
    void unlift(int call) {
      int ret = call + 1;
      next[prev[ret]] = ret;
      if (next[ret] != NIL) {
        prev[next[ret]] = ret;
      }
      next[prev[call]] = call;
      prev[next[call]] = call;
    }
  }
}
