package org.searchlab.bench.history;

import java.util.List;
import java.util.Objects;
import org.searchlab.testing.history.DocInput;
import org.searchlab.testing.history.DocOutput;
import org.searchlab.testing.history.Op;

/**
 * One recorded history: what was run, every document call, the refresh-then-search checks, the
 * kills, and the answers outside the outcome mapping. Immutable and thread-safe.
 *
 * @param store {@code mutable} or {@code segmented}
 * @param seed the seed of the operations and kill moments (the thread interleaving is not seeded)
 * @param clients the client threads; the final read is client number {@code clients}
 * @param ids the documents {@code d0 … d<ids-1>}
 * @param ops every document call, each client's in its order, the final reads last
 * @param searches the refresh-then-search pairs that both answered 200
 * @param kills each SIGKILL: when, and how long the restart took
 * @param unexpected how many answers were outside the outcome mapping
 * @param unexpectedSamples the first of them, as text
 */
public record RecordedHistory(
    String store,
    long seed,
    int clients,
    int ids,
    List<Op<DocInput, DocOutput>> ops,
    List<RefreshVisibility.Search> searches,
    List<Kill> kills,
    long unexpected,
    List<String> unexpectedSamples) {

  /**
   * A SIGKILL of the server.
   *
   * @param at {@code System.nanoTime()} just before the kill, on the calls' clock
   * @param restartMillis how long the restarted server took to answer {@code /health}
   */
  public record Kill(long at, long restartMillis) {}

  public RecordedHistory {
    Objects.requireNonNull(store, "store");
    ops = List.copyOf(ops);
    searches = List.copyOf(searches);
    kills = List.copyOf(kills);
    unexpectedSamples = List.copyOf(unexpectedSamples);
  }

  /** The ids {@code d0 … d<ids-1>}. */
  public List<String> idNames() {
    return java.util.stream.IntStream.range(0, ids).mapToObj(RecordedHistory::id).toList();
  }

  /** The name of document {@code i}. */
  static String id(int i) {
    return "d" + i;
  }

  /** How many calls ended with this outcome. */
  public long count(Op.Outcome outcome) {
    return ops.stream().filter(o -> o.outcome() == outcome).count();
  }
}
