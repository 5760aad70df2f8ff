package org.searchlab.testing.disk;

import java.util.Objects;

/**
 * One crash state of a recorded trace: the power went off after the first {@code prefix}
 * operations, and the cut kept the data and entry changes this record names (design note of issue
 * 70, §4.2). Unlike a {@link PowerCut} drawn at random, every choice is explicit, so a state is
 * reproducible from its trace alone ({@link TraceReplayer#image}). Immutable.
 *
 * @param prefix how many operations of the trace happened, 0 to its size
 * @param cut what happens to unforced data: {@code KEEP_ALL} (all of it), {@code DROP_UNFORCED}
 *     (none), {@code TEAR_LAST} (the pending writes of {@code inode} up to its last one, which is
 *     torn at file offset {@code at}; other files keep none) or {@code SKIP_ONE_DATA} (all of it
 *     but page {@code at} of {@code inode})
 * @param inode the torn or skipped file for {@code TEAR_LAST} and {@code SKIP_ONE_DATA}, else −1
 * @param at the tear's file offset (a multiple of the tear size strictly inside the last write, or
 *     the write's start when it crosses none) or the skipped page's index; else −1
 * @param metadata which unforced entry changes (creates, renames, unlinks) persist
 * @param metaIndex for {@link Metadata#PREFIX} how many, in issue order; for {@link
 *     Metadata#ALL_BUT_ONE} the index in issue order of the one lost; else −1
 */
public record CrashState(
    int prefix, PowerCut cut, long inode, long at, Metadata metadata, int metaIndex) {
  /**
   * Which of the unforced entry changes persist. Losing one loses every later change to the same
   * entry or inode: a rename of a file whose creation was lost cannot persist.
   */
  public enum Metadata {
    /** None. */
    NONE,
    /** All of them. */
    ALL,
    /** The first {@code metaIndex} in issue order, as a journal commits them ({@code ORDERED}). */
    PREFIX,
    /** All but the one at {@code metaIndex}, in any order ({@code POSIX}). */
    ALL_BUT_ONE
  }

  public CrashState {
    Objects.requireNonNull(cut, "cut");
    Objects.requireNonNull(metadata, "metadata");
    if (prefix < 0) {
      throw new IllegalArgumentException("prefix " + prefix + " is negative");
    }
    boolean chosen =
        cut.kind() == PowerCut.Kind.TEAR_LAST || cut.kind() == PowerCut.Kind.SKIP_ONE_DATA;
    if (chosen != (inode >= 0 && at >= 0)) {
      throw new IllegalArgumentException(
          cut + " " + (chosen ? "needs" : "takes no") + " inode and offset: " + inode + ", " + at);
    }
    boolean indexed = metadata == Metadata.PREFIX || metadata == Metadata.ALL_BUT_ONE;
    if (indexed != (metaIndex >= 0)) {
      throw new IllegalArgumentException(
          metadata + " " + (indexed ? "needs" : "takes no") + " metaIndex: " + metaIndex);
    }
  }

  /** After {@code prefix} operations, every unforced change kept: what a SIGKILL leaves. */
  public static CrashState keepAll(int prefix) {
    return new CrashState(prefix, PowerCut.keepAll(), -1, -1, Metadata.ALL, -1);
  }

  /** After {@code prefix} operations, the durable state alone. */
  public static CrashState dropUnforced(int prefix) {
    return new CrashState(prefix, PowerCut.dropUnforced(), -1, -1, Metadata.NONE, -1);
  }

  /** A short description, for failure messages. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("state[prefix ").append(prefix).append(", ").append(cut);
    if (inode >= 0) {
      sb.append(" inode ").append(inode);
      sb.append(cut.kind() == PowerCut.Kind.TEAR_LAST ? " at byte " : " page ").append(at);
    }
    sb.append(", metadata ").append(metadata);
    if (metaIndex >= 0) {
      sb.append(' ').append(metaIndex);
    }
    return sb.append(']').toString();
  }
}
