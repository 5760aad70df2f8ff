package org.searchlab.testing.disk;

import java.util.List;
import java.util.Objects;

/**
 * A kind of power cut: which of the operations that were issued but not forced survive it (design
 * note of issue 70, §3). Immutable.
 *
 * <p>Data ({@link Kind}) and metadata are chosen apart. {@code DROP_UNFORCED} keeps no unforced
 * metadata and {@code KEEP_ALL} keeps all of it. {@code TEAR_LAST} and {@code SKIP_ONE_DATA} keep
 * what {@link DiskModel.Options#order()} allows: under {@code ORDERED} a random prefix of each
 * directory's unforced entry changes, under {@code POSIX} all of them but one.
 *
 * @param kind what happens to unforced data
 * @param tearBytes for {@code TEAR_LAST}, the unit a write tears at: 512 (a logical sector) or 4096
 *     (a page and a modern drive's sector); 0 for the other kinds
 * @param fill for {@code TEAR_LAST}, what the torn part of the write becomes; {@code null} for the
 *     other kinds
 */
public record PowerCut(Kind kind, int tearBytes, TearFill fill) {
  /** What a cut does to data that was written and not forced. */
  public enum Kind {
    /** Only forced data survives. */
    DROP_UNFORCED,
    /**
     * For each file, its unforced writes survive up to the last one, which is torn at a {@code
     * tearBytes} boundary of the file offset.
     */
    TEAR_LAST,
    /**
     * Every unforced write survives except one 4 KiB page of one file: writeback persists pages in
     * any order, so a later page can persist while an earlier one does not.
     */
    SKIP_ONE_DATA,
    /** Everything written survives, as after a SIGKILL: a control, equal to the live tree. */
    KEEP_ALL
  }

  /** What the part of a torn write past the tear becomes, where it lies past the durable size. */
  public enum TearFill {
    /** Zeros up to the write's end: the size was journaled, the blocks were not. */
    ZEROS,
    /** The file ends at the tear. */
    SHORT
  }

  public PowerCut {
    Objects.requireNonNull(kind, "kind");
    if (kind == Kind.TEAR_LAST) {
      if (tearBytes != 512 && tearBytes != 4096) {
        throw new IllegalArgumentException("tearBytes " + tearBytes + " is not 512 or 4096");
      }
      Objects.requireNonNull(fill, "fill");
    } else if (tearBytes != 0 || fill != null) {
      throw new IllegalArgumentException(
          kind + " takes no tear (tearBytes " + tearBytes + ", fill " + fill + ")");
    }
  }

  /** Only forced data and forced directory entries survive. */
  public static PowerCut dropUnforced() {
    return new PowerCut(Kind.DROP_UNFORCED, 0, null);
  }

  /** Everything written survives (a SIGKILL). */
  public static PowerCut keepAll() {
    return new PowerCut(Kind.KEEP_ALL, 0, null);
  }

  /** The last unforced write of each file torn at a {@code tearBytes} boundary. */
  public static PowerCut tearLast(int tearBytes, TearFill fill) {
    return new PowerCut(Kind.TEAR_LAST, tearBytes, fill);
  }

  /** All unforced data but one page. */
  public static PowerCut skipOneData() {
    return new PowerCut(Kind.SKIP_ONE_DATA, 0, null);
  }

  /** Every cut: the four kinds, with the tear at 512 and 4096 bytes, zero-filled and short. */
  public static List<PowerCut> all() {
    return List.of(
        dropUnforced(),
        keepAll(),
        tearLast(512, TearFill.ZEROS),
        tearLast(512, TearFill.SHORT),
        tearLast(4096, TearFill.ZEROS),
        tearLast(4096, TearFill.SHORT),
        skipOneData());
  }

  @Override
  public String toString() {
    return kind == Kind.TEAR_LAST ? kind + "(" + tearBytes + ", " + fill + ")" : kind.toString();
  }
}
