package org.searchlab.testing.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Jepsen-style diagnostics of a document history, reported next to the linearizability verdict:
 * they name the operations at fault where the verdict only says that no order exists. Each is sound
 * (a linearizable history has none), none is complete (the checker is the judge).
 *
 * <ul>
 *   <li>A <em>lost write</em>: an acknowledged write {@code w} (PUT or CREATE answered {@code
 *       created}/{@code updated}, UPDATE answered {@code updated}/{@code noop}, DELETE answered
 *       {@code deleted}) and a GET {@code r} invoked after {@code w} completed, with no other
 *       operation that may have changed the document able to fall between them, where {@code r}
 *       does not show {@code w}'s effect: a PUT's document whole, an UPDATE's fields, a DELETE's
 *       absence. A history's final quiet read is such a GET for every acknowledged write.
 *   <li>A <em>dirty read</em> (or phantom): a GET that found a document holding a value (a leaf of
 *       its field tree, at its path) that no write the GET does not precede could have produced:
 *       written only by FAILED operations, by an UPDATE that found nothing, by a CREATE that
 *       conflicted, by a later write, or by none at all.
 * </ul>
 *
 * <p>"May have changed" means: an indeterminate write, or one acknowledged with {@code created},
 * {@code updated} or {@code deleted}. Immutable and thread-safe.
 *
 * @param lost one entry per lost write, with the first read that missed it
 * @param dirtyReads one entry per dirty read, with its first unexplained value
 */
public record Anomalies(List<LostWrite> lost, List<DirtyRead> dirtyReads) {

  /** An acknowledged write that a read which had to see it did not see. */
  public record LostWrite(Op<DocInput, DocOutput> write, Op<DocInput, DocOutput> read) {
    /** Two lines: the write and the read. */
    public String describe() {
      return "lost write: " + write.describe() + "\n  not seen by: " + read.describe();
    }
  }

  /**
   * A read of a value no write could have produced.
   *
   * @param path the dotted path of the value in the document, empty when no write of the document
   *     could precede the read at all
   * @param value the value read
   */
  public record DirtyRead(Op<DocInput, DocOutput> read, String path, Object value) {
    /** One line: the read and the value. */
    public String describe() {
      return "dirty read of [" + path + "] = " + value + ": " + read.describe();
    }
  }

  public Anomalies {
    lost = List.copyOf(lost);
    dirtyReads = List.copyOf(dirtyReads);
  }

  /** The anomalies of a history of document operations, key by key. */
  public static Anomalies of(List<Op<DocInput, DocOutput>> history) {
    Map<String, List<Op<DocInput, DocOutput>>> byKey = new TreeMap<>();
    for (Op<DocInput, DocOutput> op : history) {
      byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
    }
    List<LostWrite> lost = new ArrayList<>();
    List<DirtyRead> dirty = new ArrayList<>();
    for (List<Op<DocInput, DocOutput>> ops : byKey.values()) {
      lostWrites(ops, lost);
      dirtyReads(ops, dirty);
    }
    return new Anomalies(lost, dirty);
  }

  /** Whether there are none. */
  public boolean isEmpty() {
    return lost.isEmpty() && dirtyReads.isEmpty();
  }

  /** Every anomaly, one a line (two for a lost write). */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    lost.forEach(l -> sb.append(l.describe()).append('\n'));
    dirtyReads.forEach(d -> sb.append(d.describe()).append('\n'));
    return sb.toString();
  }

  private static void lostWrites(List<Op<DocInput, DocOutput>> ops, List<LostWrite> out) {
    for (Op<DocInput, DocOutput> w : ops) {
      if (!acknowledgedChange(w)) {
        continue;
      }
      // A read is excused when another change may fall between w and it: one that does not
      // precede w and that the read does not precede (invoked no later than the read completed;
      // touching intervals are concurrent). So only the earliest such invocation matters.
      long firstOther = Long.MAX_VALUE;
      for (Op<DocInput, DocOutput> x : ops) {
        if (x != w && mayChange(x) && !x.precedes(w)) {
          firstOther = Math.min(firstOther, x.invoked());
        }
      }
      Op<DocInput, DocOutput> missed = null;
      for (Op<DocInput, DocOutput> r : ops) {
        if (isRead(r)
            && w.precedes(r)
            && r.completed() < firstOther
            && !shows(r.output(), w)
            && (missed == null || r.invoked() < missed.invoked())) {
          missed = r;
        }
      }
      if (missed != null) {
        out.add(new LostWrite(w, missed));
      }
    }
  }

  private static void dirtyReads(List<Op<DocInput, DocOutput>> ops, List<DirtyRead> out) {
    for (Op<DocInput, DocOutput> r : ops) {
      if (!isRead(r) || r.output().document().isEmpty()) {
        continue;
      }
      List<Map<String, Object>> written = new ArrayList<>();
      for (Op<DocInput, DocOutput> x : ops) {
        if (mayWrite(x) && !r.precedes(x)) {
          written.add(leaves(x.input().fields()));
        }
      }
      Map<String, Object> read = r.output().document().get();
      if (written.isEmpty()) {
        out.add(new DirtyRead(r, "", read));
        continue;
      }
      for (Map.Entry<String, Object> leaf : leaves(read).entrySet()) {
        if (written.stream().noneMatch(w -> sameLeaf(w, leaf))) {
          out.add(new DirtyRead(r, leaf.getKey(), leaf.getValue()));
          break;
        }
      }
    }
  }

  private static boolean sameLeaf(Map<String, Object> leaves, Map.Entry<String, Object> leaf) {
    return leaves.containsKey(leaf.getKey())
        && Objects.equals(leaves.get(leaf.getKey()), leaf.getValue());
  }

  private static boolean isRead(Op<DocInput, DocOutput> op) {
    return op.outcome() == Op.Outcome.OK && op.input().kind() == DocInput.Kind.GET;
  }

  private static boolean acknowledgedChange(Op<DocInput, DocOutput> op) {
    if (op.outcome() != Op.Outcome.OK) {
      return false;
    }
    DocOutput.Result r = op.output().result();
    return switch (op.input().kind()) {
      case PUT, CREATE -> r == DocOutput.Result.CREATED || r == DocOutput.Result.UPDATED;
      case UPDATE -> r == DocOutput.Result.UPDATED || r == DocOutput.Result.NOOP;
      case DELETE -> r == DocOutput.Result.DELETED;
      case GET -> false;
    };
  }

  private static boolean mayChange(Op<DocInput, DocOutput> op) {
    if (!op.input().writes() || op.outcome() == Op.Outcome.FAILED) {
      return false;
    }
    if (op.outcome() == Op.Outcome.INDETERMINATE) {
      return true;
    }
    DocOutput.Result r = op.output().result();
    return r == DocOutput.Result.CREATED
        || r == DocOutput.Result.UPDATED
        || r == DocOutput.Result.DELETED;
  }

  /** A write whose fields may be in the document afterwards (a no-op's already were). */
  private static boolean mayWrite(Op<DocInput, DocOutput> op) {
    DocInput.Kind k = op.input().kind();
    if (k == DocInput.Kind.GET || k == DocInput.Kind.DELETE) {
      return false;
    }
    if (op.outcome() != Op.Outcome.OK) {
      return op.outcome() == Op.Outcome.INDETERMINATE;
    }
    DocOutput.Result r = op.output().result();
    return r != DocOutput.Result.NOT_FOUND && r != DocOutput.Result.CONFLICT;
  }

  /** Whether a read's answer shows the effect of {@code w} as the only change since. */
  private static boolean shows(DocOutput read, Op<DocInput, DocOutput> w) {
    Optional<Map<String, Object>> doc = read.document();
    return switch (w.input().kind()) {
      case PUT, CREATE -> doc.equals(Optional.of(w.input().fields()));
      case UPDATE -> doc.isPresent() && contains(doc.get(), w.input().fields());
      case DELETE -> doc.isEmpty();
      case GET -> true;
    };
  }

  /** Whether {@code doc} holds every leaf of {@code partial} (the result of merging it in). */
  private static boolean contains(Map<String, Object> doc, Map<String, Object> partial) {
    Map<String, Object> all = leaves(doc);
    for (Map.Entry<String, Object> leaf : leaves(partial).entrySet()) {
      if (!sameLeaf(all, leaf)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The leaves of a field tree by dotted path: every value that is not a non-empty object (a merge
   * replaces those whole, and keeps the leaves of objects key by key).
   */
  static Map<String, Object> leaves(Map<String, Object> fields) {
    Map<String, Object> out = new LinkedHashMap<>();
    addLeaves("", fields, out);
    return out;
  }

  private static void addLeaves(String prefix, Map<?, ?> tree, Map<String, Object> out) {
    for (Map.Entry<?, ?> e : tree.entrySet()) {
      String path = prefix.isEmpty() ? (String) e.getKey() : prefix + "." + e.getKey();
      if (e.getValue() instanceof Map<?, ?> m && !m.isEmpty()) {
        addLeaves(path, m, out);
      } else {
        out.put(path, e.getValue());
      }
    }
  }
}
