package org.searchlab.bench.experiment;

import java.util.List;
import java.util.function.ToDoubleFunction;
import org.searchlab.core.Hit;

/**
 * The exact answer to one benchmark query of one type and filter setting: the exact top-k (best
 * first, ties in the oracle's order) and the exact score of any document id, so that a store's
 * answer can be judged tie-aware (a returned document is as good as an exact one when its exact
 * score is as high). Immutable; thread-safe if the scorer is.
 */
public final class ExactAnswer {
  private final List<Hit> top;
  private final ToDoubleFunction<String> scorer;

  /**
   * @param top the exact top-k, best first
   * @param scorer the exact score of a document id under this query, {@link Double#NaN} when the
   *     document would not be a hit at all (filtered out, no matching term, no vector)
   */
  public ExactAnswer(List<Hit> top, ToDoubleFunction<String> scorer) {
    this.top = List.copyOf(top);
    this.scorer = scorer;
  }

  /** The exact top-k hits, best first. */
  public List<Hit> top() {
    return top;
  }

  /** The exact top-k ids, best first. */
  public List<String> ids() {
    return top.stream().map(Hit::id).toList();
  }

  /** The exact score of {@code id}, or NaN when that document is not a hit of this query. */
  public double score(String id) {
    return scorer.applyAsDouble(id);
  }
}
