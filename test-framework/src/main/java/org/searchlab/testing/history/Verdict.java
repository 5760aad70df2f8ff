package org.searchlab.testing.history;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The checker's judgement of one object's history, with its evidence.
 *
 * <p>For {@link Result#OK} the prefix is a complete linearization: every operation the checker
 * considered, in an order that respects real time and that the model accepts (an indeterminate
 * operation placed after every operation it could affect may as well not have taken effect). For
 * {@link Result#ILLEGAL} it is the longest linearizable prefix the search found, {@code stateAfter}
 * is the model's state after it, and {@code stuckAt} is the operation that completed before any
 * order could place it: the point where every extension failed. For {@link Result#UNKNOWN} the
 * budget ran out first, and the prefix is the longest found until then. Immutable; thread-safe when
 * the operations are.
 *
 * @param key the object (document id) judged
 * @param result the judgement
 * @param prefix the linearization (OK) or the longest linearizable prefix found (otherwise)
 * @param stateAfter the model's state after {@code prefix}, as text
 * @param stuckAt for ILLEGAL, the operation whose completion no order could get past
 * @param operations how many operations were considered (FAILED ones are left out)
 * @param steps how many model steps the search took
 * @param <I> the model's input type
 * @param <O> the model's output type
 */
public record Verdict<I, O>(
    String key,
    Result result,
    List<Op<I, O>> prefix,
    String stateAfter,
    Optional<Op<I, O>> stuckAt,
    int operations,
    long steps) {

  /** What the checker found. */
  public enum Result {
    /** Linearizable. */
    OK,
    /** Not linearizable: no order of the operations is a legal run of the model. */
    ILLEGAL,
    /** The step or time budget ran out before either could be shown. */
    UNKNOWN
  }

  public Verdict {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(result, "result");
    prefix = List.copyOf(prefix);
    Objects.requireNonNull(stateAfter, "stateAfter");
    Objects.requireNonNull(stuckAt, "stuckAt");
  }

  /** Whether the history was shown linearizable. */
  public boolean ok() {
    return result == Result.OK;
  }

  /** The verdict and its evidence, one operation a line, for a failure message or a report. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    sb.append("[")
        .append(key)
        .append("] ")
        .append(result)
        .append(": ")
        .append(operations)
        .append(" operations, ")
        .append(steps)
        .append(" steps\n");
    sb.append(
        result == Result.OK
            ? "  linearization:\n"
            : "  longest linearizable prefix (" + prefix.size() + " operations):\n");
    for (int i = 0; i < prefix.size(); i++) {
      sb.append("    ").append(i + 1).append(". ").append(prefix.get(i).describe()).append('\n');
    }
    sb.append("  state after it: ").append(stateAfter).append('\n');
    stuckAt.ifPresent(
        op ->
            sb.append("  no operation can come next before this one completes: ")
                .append(op.describe())
                .append('\n'));
    return sb.toString();
  }
}
