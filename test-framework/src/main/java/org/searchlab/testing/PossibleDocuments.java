package org.searchlab.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.searchlab.core.Document;

/**
 * The documents each id of a crash test may hold after the crash: the one its last acknowledged
 * operation left, and the one of an operation that was invoked and never answered. A feeder that
 * owns an id writes it one operation at a time; {@link #invoke} before the call, {@link
 * #acknowledge} when it returns, nothing when it fails by the crash (both states stay possible).
 * After the restart, {@link #verdict} judges what the store gives back and {@link #resolve}
 * collapses the id to it, so the next cycle starts certain again.
 *
 * <p>Ids are {@code 0 .. size-1}; "absent" is {@code null}. Every id starts absent. An uncertain id
 * (two possible states) must not be written again before it is resolved: its next operation would
 * start from a state the feeder does not know.
 *
 * <p>A violation is named by comparing the document with every version ever invoked for the id
 * (kept as hashes, so a collision could misname a violation, never hide one: whether a document is
 * possible is decided by {@link Document#equals}).
 *
 * <p>Thread-safe: each id's state is one atomic reference. Several feeders may each write their own
 * ids concurrently; the check reads after they stopped.
 */
public final class PossibleDocuments {
  /** How a document read back after a crash compares with what could be there. */
  public enum Verdict {
    /** One of the possible states. */
    OK,
    /**
     * An acknowledged write is missing: the id is absent although a document was acknowledged, or
     * an older version came back.
     */
    LOST,
    /** A deleted version came back, although every possible state is absent. */
    RESURRECTED,
    /** A document no operation ever wrote whole: versions mixed, or bytes damaged. */
    TORN
  }

  private final AtomicReferenceArray<Document[]> possible;
  private final List<Set<Integer>> written;

  /** {@code ids} ids, all absent and certain. */
  public PossibleDocuments(int ids) {
    if (ids < 1) {
      throw new IllegalArgumentException("ids " + ids + " is less than 1");
    }
    possible = new AtomicReferenceArray<>(ids);
    written = new ArrayList<>(ids);
    for (int i = 0; i < ids; i++) {
      possible.set(i, new Document[] {null});
      written.add(Collections.synchronizedSet(new HashSet<>()));
    }
  }

  /** The number of ids. */
  public int size() {
    return possible.length();
  }

  /** Whether only one state is possible for {@code id}: it may be written. */
  public boolean isCertain(int id) {
    return possible.get(id).length == 1;
  }

  /**
   * The one state of {@code id} ({@code null}: absent).
   *
   * @throws IllegalStateException if an unanswered operation left it uncertain
   */
  public Document certain(int id) {
    Document[] p = possible.get(id);
    if (p.length != 1) {
      throw new IllegalStateException("id " + id + " is uncertain: " + describe(p));
    }
    return p[0];
  }

  /** An operation on {@code id} that leaves {@code next} ({@code null}: a delete) was sent. */
  public void invoke(int id, Document next) {
    Document now = certain(id);
    if (next != null) {
      written.get(id).add(next.hashCode());
    }
    possible.set(id, new Document[] {now, next});
  }

  /** The operation on {@code id} was acknowledged: {@code next} is its only state. */
  public void acknowledge(int id, Document next) {
    possible.set(id, new Document[] {next});
  }

  /** The states {@code id} may be in, oldest first. */
  public List<Document> possible(int id) {
    return Arrays.asList(possible.get(id).clone());
  }

  /** How {@code actual}, read back for {@code id} after a crash, compares with its states. */
  public Verdict verdict(int id, Document actual) {
    Document[] p = possible.get(id);
    for (Document d : p) {
      if (Objects.equals(d, actual)) {
        return Verdict.OK;
      }
    }
    if (actual == null) {
      return Verdict.LOST;
    }
    if (!written.get(id).contains(actual.hashCode())) {
      return Verdict.TORN;
    }
    return Arrays.stream(p).allMatch(Objects::isNull) ? Verdict.RESURRECTED : Verdict.LOST;
  }

  /** {@code id} holds {@code actual}, as read back: its only state from now on. */
  public void resolve(int id, Document actual) {
    if (actual != null) {
      written.get(id).add(actual.hashCode());
    }
    possible.set(id, new Document[] {actual});
  }

  /** The possible states of {@code id} in words, for a violation's message. */
  public String describe(int id) {
    return describe(possible.get(id));
  }

  private static String describe(Document[] p) {
    return Arrays.stream(p).map(PossibleDocuments::describe).toList().toString();
  }

  /**
   * Version {@code v} of the crash tests' document {@code id} (named {@code name}): a product whose
   * text and numbers derive from {@code v}, with a random unit vector of {@code dimension}
   * components drawn from {@code random}.
   */
  public static Document version(
      String name, int id, int v, int dimension, java.util.SplittableRandom random) {
    float[] e = new float[dimension];
    double sq = 0;
    for (int i = 0; i < e.length; i++) {
      e[i] = (float) random.nextGaussian();
      sq += (double) e[i] * e[i];
    }
    float inv = (float) (1 / Math.sqrt(sq));
    for (int i = 0; i < e.length; i++) {
      e[i] *= inv;
    }
    return new Document(
        name,
        "title of " + id + " version " + v,
        "description " + v + " words " + (v % 97),
        "c" + (v % 9),
        v,
        (v % 50) / 10f,
        e);
  }

  /** A document in a few words: its title, price and category, or "absent". */
  public static String describe(Document d) {
    return d == null ? "absent" : "'" + d.title() + "' price " + d.price() + " " + d.category();
  }
}
