package org.searchlab.bench.history;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.searchlab.testing.history.DocInput;
import org.searchlab.testing.history.DocOutput;
import org.searchlab.testing.history.Op;

/**
 * The search-after-refresh check: a weaker guarantee than the real-time get's, judged apart from
 * the linearizability verdicts.
 *
 * <p>The guarantee (Elasticsearch's "read your writes after refresh"): once {@code POST _refresh}
 * has completed, a search sees every write that was acknowledged before the refresh was invoked. A
 * search is not linearizable and need not see writes concurrent with the refresh or the search; it
 * may show any state at least as new as those acknowledged writes. Every write of a history puts a
 * unique token into the document, so a search hit names the write whose state it shows. For each
 * search and each id:
 *
 * <ul>
 *   <li><em>phantom</em>: the hit's token is one no write that took effect wrote (a FAILED write, a
 *       create that conflicted, an update that found nothing, or none at all), or its write was
 *       invoked after the search completed;
 *   <li><em>stale</em>: the state shown (the write of the hit's token, or for an absent document a
 *       delete or the initial absence) completed before some write that was acknowledged before the
 *       refresh was invoked was itself invoked: that write replaced it, so the search missed it.
 * </ul>
 *
 * <p>Writes that "took effect" are those answered {@code created}, {@code updated} or {@code
 * deleted}, and the indeterminate ones (which may have). A write that changes nothing ({@code
 * not_found}, {@code conflict}, {@code noop}) neither explains a state nor replaces one. Only the
 * token is compared, not the whole document: the real-time get's check compares documents whole.
 * Stateless and thread-safe.
 */
public final class RefreshVisibility {
  private RefreshVisibility() {}

  /**
   * One refresh and the search after it, as recorded.
   *
   * @param tokens the token of each document the search returned, by id ({@code ""} for a hit
   *     without one); an id that is not there was absent
   */
  public record Search(
      int client,
      long refreshInvoked,
      long refreshCompleted,
      long searchInvoked,
      long searchCompleted,
      Map<String, String> tokens) {
    public Search {
      tokens = Map.copyOf(tokens);
    }
  }

  /**
   * A document a search showed wrongly.
   *
   * @param seen the token the search showed, or null when the document was absent from it
   * @param why what the history says instead
   */
  public record Violation(Search search, String id, String seen, String why) {
    /** One line. */
    public String describe() {
      return "search by client "
          + search.client()
          + " after the refresh invoked @"
          + search.refreshInvoked()
          + " (search completed @"
          + search.searchCompleted()
          + ") shows ["
          + id
          + "] "
          + (seen == null ? "absent" : "with token " + seen)
          + ": "
          + why;
    }
  }

  /** The outcome of the check over a history's searches. */
  public record Result(
      int searches, long documentsChecked, List<Violation> stale, List<Violation> phantom) {
    public Result {
      stale = List.copyOf(stale);
      phantom = List.copyOf(phantom);
    }

    /** Whether no search showed anything wrong. */
    public boolean ok() {
      return stale.isEmpty() && phantom.isEmpty();
    }
  }

  /**
   * Checks every search against the history's document operations.
   *
   * @param ids every id the history used (an id no search returned is checked as absent)
   */
  public static Result check(
      List<Op<DocInput, DocOutput>> ops, List<Search> searches, Collection<String> ids) {
    List<Violation> stale = new ArrayList<>();
    List<Violation> phantom = new ArrayList<>();
    long checked = 0;
    for (Search s : searches) {
      TreeSet<String> all = new TreeSet<>(ids);
      all.addAll(s.tokens().keySet());
      for (String id : all) {
        checked++;
        String seen = s.tokens().get(id);
        List<Op<DocInput, DocOutput>> writes = new ArrayList<>();
        List<Op<DocInput, DocOutput>> ackedBefore = new ArrayList<>();
        for (Op<DocInput, DocOutput> op : ops) {
          if (op.key().equals(id) && tookEffect(op)) {
            writes.add(op);
            if (op.outcome() == Op.Outcome.OK && op.completed() < s.refreshInvoked()) {
              ackedBefore.add(op);
            }
          }
        }
        if (seen != null) {
          Op<DocInput, DocOutput> c = null;
          for (Op<DocInput, DocOutput> w : writes) {
            if (w.input().kind() != DocInput.Kind.DELETE
                && Objects.equals(w.input().fields().get("token"), seen)) {
              c = w;
            }
          }
          if (c == null) {
            phantom.add(new Violation(s, id, seen, "no write that took effect wrote this token"));
          } else if (c.invoked() > s.searchCompleted()) {
            phantom.add(new Violation(s, id, seen, "its write was invoked later: " + c.describe()));
          } else {
            Op<DocInput, DocOutput> newer = replacedBy(c.completed(), ackedBefore);
            if (newer != null) {
              stale.add(new Violation(s, id, seen, staleWhy(c.describe(), newer)));
            }
          }
        } else {
          // Absent: the initial absence (which every write replaces) or a delete shows it.
          Op<DocInput, DocOutput> newer = replacedBy(Long.MIN_VALUE, ackedBefore);
          for (Op<DocInput, DocOutput> w : writes) {
            if (newer != null
                && w.input().kind() == DocInput.Kind.DELETE
                && w.invoked() <= s.searchCompleted()
                && replacedBy(w.completed(), ackedBefore) == null) {
              newer = null;
            }
          }
          if (newer != null) {
            stale.add(new Violation(s, id, null, staleWhy("no delete", newer)));
          }
        }
      }
    }
    return new Result(searches.size(), checked, stale, phantom);
  }

  /** The first write in {@code ackedBefore} invoked after {@code completed}, or null. */
  private static Op<DocInput, DocOutput> replacedBy(
      long completed, List<Op<DocInput, DocOutput>> ackedBefore) {
    for (Op<DocInput, DocOutput> w : ackedBefore) {
      if (completed < w.invoked()) {
        return w;
      }
    }
    return null;
  }

  private static String staleWhy(String shown, Op<DocInput, DocOutput> newer) {
    return shown
        + " precedes a write acknowledged before the refresh was invoked: "
        + newer.describe();
  }

  /** A write that changed the document, or may have. */
  static boolean tookEffect(Op<DocInput, DocOutput> op) {
    if (!op.input().writes()) {
      return false;
    }
    return switch (op.outcome()) {
      case FAILED -> false;
      case INDETERMINATE -> true;
      case OK -> {
        DocOutput.Result r = op.output().result();
        yield r == DocOutput.Result.CREATED
            || r == DocOutput.Result.UPDATED
            || r == DocOutput.Result.DELETED;
      }
    };
  }
}
