package org.searchlab.testing.history;

/**
 * A sequential specification of one object: its initial state and what each operation does to a
 * state. The checker asks whether some order of a history's operations is a legal run of it.
 *
 * <p>States must be immutable values with {@code equals} and {@code hashCode}: the checker caches
 * (linearized set, state) pairs, as Lowe's algorithm does, and compares states there. Models are
 * stateless and must be thread-safe.
 *
 * @param <S> the state
 * @param <I> an operation's input
 * @param <O> an operation's output
 */
public interface Model<S, I, O> {
  /** The state before any operation. */
  S init();

  /**
   * The state after {@code input} answered {@code output} in {@code state}, or {@code null} when
   * that output is impossible from {@code state} (the one meaning of {@code null} here).
   */
  S step(S state, I input, O output);

  /**
   * The state after {@code input} took effect in {@code state} with its output unknown (an
   * indeterminate operation). Never {@code null}: every input is possible in every state, only its
   * outputs are constrained. Whether it took effect at all is the checker's choice.
   */
  S apply(S state, I input);
}
