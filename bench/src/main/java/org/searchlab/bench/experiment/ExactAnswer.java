package org.searchlab.bench.experiment;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.searchlab.core.Hit;

/**
 * The exact answer to one benchmark query of one type and filter setting: the exact top-k (best
 * first, ties in the oracle's order) and the exact score of any document id, so that a store's
 * answer can be judged tie-aware (a returned document is as good as an exact one when its exact
 * score is as high).
 *
 * <p>Scores come either from a scorer of any id ({@link #ExactAnswer(List, ToDoubleFunction)}) or,
 * for the answers {@link ExactSearch} makes, from a lookup that recomputes the query's scores and
 * keeps only those of the ids asked for: a lexical query at 1M documents matches up to about a
 * million of them, and the runner holds the answers of hundreds of queries at once, so an answer
 * keeps its top-k and the scores of the ids the variants returned ({@link #prepare}), not a table
 * of every match. Thread-safe: the kept scores are guarded by the answer's lock; the scorer and the
 * lookup must be thread-safe.
 */
public final class ExactAnswer {
  private final List<Hit> top;
  private final ToDoubleFunction<String> scorer;
  private final Function<Set<String>, Map<String, Double>> lookup;

  /** The scores looked up so far, by id; NaN for ids that are no hit. Guarded by {@code this}. */
  private final Map<String, Double> known;

  /**
   * @param top the exact top-k, best first
   * @param scorer the exact score of a document id under this query, {@link Double#NaN} when the
   *     document would not be a hit at all (filtered out, no matching term, no vector)
   */
  public ExactAnswer(List<Hit> top, ToDoubleFunction<String> scorer) {
    this.top = List.copyOf(top);
    this.scorer = scorer;
    this.lookup = null;
    this.known = null;
  }

  /**
   * An answer that looks scores up in batches and keeps them.
   *
   * @param top the exact top-k, best first (their scores are kept from the start)
   * @param lookup the exact scores of a set of ids, each id present, NaN for one that is no hit;
   *     one call may cost a pass over the query's matches, so callers ask for many ids at once
   */
  static ExactAnswer lookingUp(List<Hit> top, Function<Set<String>, Map<String, Double>> lookup) {
    return new ExactAnswer(top, java.util.Objects.requireNonNull(lookup, "lookup"), true);
  }

  private ExactAnswer(
      List<Hit> top, Function<Set<String>, Map<String, Double>> lookup, boolean kept) {
    this.top = List.copyOf(top);
    this.scorer = null;
    this.lookup = lookup;
    this.known = new HashMap<>();
    for (Hit h : this.top) {
      known.put(h.id(), (double) h.score());
    }
  }

  /** The exact top-k hits, best first. */
  public List<Hit> top() {
    return top;
  }

  /** The exact top-k ids, best first. */
  public List<String> ids() {
    return top.stream().map(Hit::id).toList();
  }

  /**
   * Looks up the exact scores of {@code ids} at once, so that {@link #score} of each of them is a
   * map read; a no-op for an answer with a scorer, and for ids already looked up.
   */
  public void prepare(Collection<String> ids) {
    if (lookup == null) {
      return;
    }
    synchronized (this) {
      Set<String> missing = new LinkedHashSet<>();
      for (String id : ids) {
        if (!known.containsKey(id)) {
          missing.add(id);
        }
      }
      if (!missing.isEmpty()) {
        Map<String, Double> found = lookup.apply(missing);
        for (String id : missing) {
          known.put(id, found.getOrDefault(id, Double.NaN));
        }
      }
    }
  }

  /** The exact score of {@code id}, or NaN when that document is not a hit of this query. */
  public double score(String id) {
    if (lookup == null) {
      return scorer.applyAsDouble(id);
    }
    prepare(List.of(id));
    synchronized (this) {
      return known.get(id);
    }
  }

  /** How many scores the answer keeps: its top-k and the ids looked up since (for tests). */
  synchronized int kept() {
    return known == null ? 0 : known.size();
  }
}
