package org.searchlab.testing.crash;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;

/**
 * The exact state a store must hold after a sequence of writes: id to whole document (design note
 * of issue 70, §4.3). A put replaces (or creates) the document, a partial update merges its fields
 * into a present document as {@link org.searchlab.core.PartialUpdate#applyTo} does and is a no-op
 * on a missing one, a delete removes.
 *
 * <p>Not thread-safe.
 */
public final class ReferenceStore {
  private final TreeMap<String, Document> docs = new TreeMap<>();

  /** An empty store. */
  public ReferenceStore() {}

  /** Applies one write. */
  public void apply(Operation op) {
    switch (op) {
      case Operation.Put p -> {
        if (!p.ifAbsent() || !docs.containsKey(p.id())) {
          docs.put(p.id(), p.document());
        }
      }
      case Operation.Update u -> docs.computeIfPresent(u.id(), (id, d) -> u.update().applyTo(d));
      case Operation.Delete d -> docs.remove(d.id());
    }
  }

  /** The documents by id, a read-only view. */
  public Map<String, Document> documents() {
    return Collections.unmodifiableMap(docs);
  }

  /**
   * The state after the first {@code j} positions of {@code steps}, in order (a bulk's writes take
   * one position each, every other step one; see {@link CrashWorkload}).
   */
  public static ReferenceStore replay(List<CrashWorkload.Step> steps, int j) {
    ReferenceStore r = new ReferenceStore();
    int position = 0;
    for (CrashWorkload.Step s : steps) {
      for (Operation op : writes(s)) {
        if (position++ == j) {
          return r;
        }
        if (op != null) {
          r.apply(op);
        }
      }
    }
    if (position < j) {
      throw new IllegalArgumentException("j " + j + " is past the " + position + " positions");
    }
    return r;
  }

  /**
   * The state after each prefix of {@code steps}' positions: element j holds the documents after
   * the first j positions.
   */
  public static List<Map<String, Document>> everyPrefix(List<CrashWorkload.Step> steps) {
    ReferenceStore r = new ReferenceStore();
    List<Map<String, Document>> out = new java.util.ArrayList<>();
    out.add(Map.copyOf(r.docs));
    for (CrashWorkload.Step s : steps) {
      for (Operation op : writes(s)) {
        if (op != null) {
          r.apply(op);
        }
        out.add(Map.copyOf(r.docs));
      }
    }
    return out;
  }

  /** A step's positions: each write of a bulk, the write, or one null for a refresh or flush. */
  private static List<Operation> writes(CrashWorkload.Step s) {
    return switch (s) {
      case CrashWorkload.Write w -> List.of(w.op());
      case CrashWorkload.Bulk b -> b.ops();
      case CrashWorkload.Refresh r -> java.util.Collections.singletonList(null);
      case CrashWorkload.Flush f -> java.util.Collections.singletonList(null);
    };
  }
}
