package org.searchlab.testing.history;

import java.util.Objects;

/**
 * One client call of a history: who made it, which object (document id) it touched, its input, when
 * it was invoked and when it completed, and what came of it.
 *
 * <p>Times are nanoseconds from one clock shared by every client of the history ({@code
 * System.nanoTime()} in one JVM); only their order matters. An operation precedes another in real
 * time when its {@code completed} is strictly less than the other's {@code invoked}; equal times
 * count as concurrent, as in Porcupine.
 *
 * <p>Immutable when its input and output are; thread-safe then.
 *
 * @param client the client (process) that made the call; a client makes one call at a time, but the
 *     checker does not rely on that
 * @param key the object the call touched: the document id; {@link
 *     LinearizabilityChecker#checkPerKey} partitions by it
 * @param input what was asked, as the {@link Model} reads it
 * @param outcome what came of the call
 * @param output the answer when the outcome is {@link Outcome#OK}; {@code null} otherwise
 * @param invoked when the call was sent
 * @param completed when the answer was complete; {@link Long#MAX_VALUE} (+∞) when the outcome is
 *     {@link Outcome#INDETERMINATE}
 * @param <I> the model's input type
 * @param <O> the model's output type
 */
public record Op<I, O>(
    int client, String key, I input, Outcome outcome, O output, long invoked, long completed) {

  /** What came of a call. */
  public enum Outcome {
    /**
     * Answered: the output is what the operation returned, and it took effect as the model says.
     */
    OK,
    /**
     * Definitely not applied and nothing observed (a 4xx other than the model's own answers such as
     * 404 or 409): the checker leaves the operation out.
     */
    FAILED,
    /**
     * May or may not have taken effect (a timeout, a reset connection, a 5xx, a kill), at any time
     * after its invocation: completion is +∞ and the output unknown, as Jepsen's {@code :info} and
     * Porcupine's unknown outputs.
     */
    INDETERMINATE
  }

  public Op {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(outcome, "outcome");
    switch (outcome) {
      case OK -> {
        Objects.requireNonNull(output, "the output of an OK operation");
        if (completed < invoked) {
          throw new IllegalArgumentException(
              "completed [" + completed + "] is before invoked [" + invoked + "]");
        }
      }
      case FAILED -> {
        if (output != null || completed < invoked) {
          throw new IllegalArgumentException(
              "a FAILED operation has no output and completes after its invocation: output ["
                  + output
                  + "], invoked ["
                  + invoked
                  + "], completed ["
                  + completed
                  + "]");
        }
      }
      case INDETERMINATE -> {
        if (output != null || completed != Long.MAX_VALUE) {
          throw new IllegalArgumentException(
              "an INDETERMINATE operation has no output and completes at Long.MAX_VALUE: output ["
                  + output
                  + "], completed ["
                  + completed
                  + "]");
        }
      }
    }
  }

  /** An answered call. */
  public static <I, O> Op<I, O> ok(
      int client, String key, I input, O output, long invoked, long completed) {
    return new Op<>(client, key, input, Outcome.OK, output, invoked, completed);
  }

  /** A call that definitely had no effect and observed nothing. */
  public static <I, O> Op<I, O> failed(
      int client, String key, I input, long invoked, long completed) {
    return new Op<>(client, key, input, Outcome.FAILED, null, invoked, completed);
  }

  /** A call that may have taken effect at any time after {@code invoked}, or never. */
  public static <I, O> Op<I, O> indeterminate(int client, String key, I input, long invoked) {
    return new Op<>(client, key, input, Outcome.INDETERMINATE, null, invoked, Long.MAX_VALUE);
  }

  /** Whether this operation completed strictly before {@code other} was invoked. */
  public boolean precedes(Op<?, ?> other) {
    return completed < other.invoked;
  }

  /** One line: client, key, input, output or outcome, and the interval. */
  public String describe() {
    String out = outcome == Outcome.OK ? " -> " + output : " -> " + outcome;
    String end = completed == Long.MAX_VALUE ? "inf" : Long.toString(completed);
    return "client " + client + " [" + key + "] " + input + out + "  @" + invoked + ".." + end;
  }
}
