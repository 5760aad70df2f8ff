package org.searchlab.bench.history;

import java.util.SortedMap;
import org.searchlab.testing.history.Anomalies;
import org.searchlab.testing.history.DocInput;
import org.searchlab.testing.history.DocOutput;
import org.searchlab.testing.history.DocumentModel;
import org.searchlab.testing.history.LinearizabilityChecker;
import org.searchlab.testing.history.Verdict;

/**
 * The judgement of one recorded history: a linearizability verdict per document ({@link
 * LinearizabilityChecker#checkPerKey} with the {@link DocumentModel}), Jepsen's lost writes and
 * dirty reads ({@link Anomalies}), and apart from them the search-after-refresh check ({@link
 * RefreshVisibility}). Immutable and thread-safe.
 *
 * @param verdicts one per document id, in id order
 * @param anomalies the lost writes and dirty reads
 * @param refresh the search-after-refresh check
 * @param checkNanos how long the checks took
 */
public record HistoryCheck(
    SortedMap<String, Verdict<DocInput, DocOutput>> verdicts,
    Anomalies anomalies,
    RefreshVisibility.Result refresh,
    long checkNanos) {

  /** Checks a history. */
  public static HistoryCheck of(RecordedHistory h, LinearizabilityChecker.Budget budget) {
    long t0 = System.nanoTime();
    SortedMap<String, Verdict<DocInput, DocOutput>> verdicts =
        LinearizabilityChecker.checkPerKey(h.ops(), new DocumentModel(), budget);
    Anomalies anomalies = Anomalies.of(h.ops());
    RefreshVisibility.Result refresh = RefreshVisibility.check(h.ops(), h.searches(), h.idNames());
    return new HistoryCheck(verdicts, anomalies, refresh, System.nanoTime() - t0);
  }

  /** How many documents got this verdict. */
  public int count(Verdict.Result result) {
    return (int) verdicts.values().stream().filter(v -> v.result() == result).count();
  }

  /**
   * Whether the history broke a guarantee: a document not linearizable, a lost write, a dirty read,
   * or a search after a refresh that missed an acknowledged write or showed one never made. An
   * {@link Verdict.Result#UNKNOWN} verdict (the budget ran out) is not a violation; it is counted.
   */
  public boolean violated() {
    return count(Verdict.Result.ILLEGAL) > 0 || !anomalies.isEmpty() || !refresh.ok();
  }

  /**
   * The evidence of every violation: each non-linearizable document's key, longest linearizable
   * prefix and the call it stuck at; the anomalies; the refresh violations.
   */
  public String describeViolations() {
    StringBuilder sb = new StringBuilder();
    for (Verdict<DocInput, DocOutput> v : verdicts.values()) {
      if (v.result() == Verdict.Result.ILLEGAL) {
        sb.append("NOT LINEARIZABLE ").append(v.describe());
      }
    }
    sb.append(anomalies.describe());
    refresh.stale().forEach(s -> sb.append("refresh: stale ").append(s.describe()).append('\n'));
    refresh
        .phantom()
        .forEach(s -> sb.append("refresh: phantom ").append(s.describe()).append('\n'));
    return sb.toString();
  }
}
