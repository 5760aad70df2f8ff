package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The int8 codes of a {@link VectorStore} ({@link Int8Codes}' layout: components, scale, norm), or
 * its 1-bit codes ({@link BinaryCodes}), a {@code byte[]} per id; in a quantized store, whose graph
 * walks the codes, each array is a <em>row</em>: the code, then the node's bottom-level link count
 * and links, as {@link RowFloatSlots} keeps them behind a float vector and hnswlib beside its
 * vectors. The graph ({@link HnswAdjacency}) mirrors each level-0 list into its node's row with
 * {@link #setLinks}; a beam search that scored a node by its code reads the node's links from the
 * same array, mostly from the lines that scoring brought into the cache, instead of from an {@code
 * int[]} reached through a second table. Without links reserved (unquantized stores, whose exact
 * scans alone read codes) the array is the code alone.
 *
 * <p>Layout of a row: the code's {@code dimension + 8} bytes, padding up to a multiple of four, the
 * count as an int, then up to the reserved capacity of links as ints, in the platform's byte order,
 * through an int {@link VarHandle} view of the array. Such a view offers plain reads and writes
 * only (a heap {@code byte[]} promises no alignment), so the count is published by a release fence
 * before its plain store and read by a plain load followed by an acquire fence: the release and
 * acquire of {@link RowFloatSlots}' count, as fences. A heap array's elements start a multiple of
 * four bytes into the object (16, or 12 with compact headers), so the count, at a multiple of four,
 * is one aligned store that no reader sees torn.
 *
 * <p>Thread-safety: one writer calls {@link #put}, {@link #clear}, {@link #reserveLinks} and {@link
 * #setLinks}; readers call {@link #row} and the link readers from any thread without locks, under
 * the same three rules as {@link RowFloatSlots}:
 *
 * <ol>
 *   <li>A code is never rewritten in place: {@link #put} builds a new row (carrying the old row's
 *       links over) and stores it with a release store, so a reader that acquires a row sees a
 *       whole code, old or new, or none.
 *   <li>The table grows by copying the references into a larger table published through a volatile
 *       field; a reader still holding the old table may miss ids set after the copy, which it
 *       treats as absent.
 *   <li>Links are rewritten in place: the writer stores the new ids (and zeroes the ones a shorter
 *       list leaves behind), then the count with a release store. A reader loads the count with an
 *       acquire load, then the ids; it may see a mix of the old and new lists' ids, all real node
 *       ids (or 0), which a search treats like any stale link.
 * </ol>
 *
 * <p>The zeroing keeps a row's bytes a function of its code and its current list, so that a graph
 * loaded from a snapshot has the very rows of the graph that wrote it.
 */
final class RowCodes implements LinkRows {
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(byte[][].class);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());

  private final int codeLength;
  // Where the count sits: the code's length rounded up to a multiple of four.
  private final int countAt;
  private int linkCapacity;
  private volatile int rowLength; // codeLength without links, else countAt + 4 + 4 × capacity
  private volatile byte[][] table = new byte[16][];
  private int present; // writer only

  /** Rows of the int8 codes of {@code dimension}-component vectors ({@link Int8Codes}). */
  RowCodes(int dimension) {
    this(dimension + Int8Codes.TAIL, true);
  }

  private RowCodes(int codeLength, boolean unused) {
    this.codeLength = codeLength;
    this.countAt = (codeLength + 3) & ~3;
    this.rowLength = codeLength;
  }

  /**
   * Rows of codes of {@code codeLength} bytes of another layout: the 1-bit codes of {@link
   * BinaryCodes}, whose graph walks them as an int8 graph walks its codes.
   */
  static RowCodes ofLength(int codeLength) {
    return new RowCodes(codeLength, true);
  }

  /**
   * Sizes every row for {@code capacity} links. Writer thread, while no code is stored.
   *
   * @throws IllegalStateException when codes are stored with another capacity
   */
  void reserveLinks(int capacity) {
    if (capacity == linkCapacity) {
      return;
    }
    if (present > 0) {
      throw new IllegalStateException(
          "the code rows hold "
              + present
              + " codes with room for "
              + linkCapacity
              + " links, not "
              + capacity);
    }
    linkCapacity = capacity;
    rowLength = capacity == 0 ? codeLength : countAt + Integer.BYTES * (1 + capacity);
  }

  /** The length of a new row for a code of {@code codeLength} bytes. */
  int rowLength() {
    return rowLength;
  }

  /**
   * Stores {@code row} under {@code id}: a new array of {@link #rowLength()} bytes that begins with
   * the code, the rest zero; the old row's links are carried over into it. Writer thread.
   */
  void put(int id, byte[] row) {
    assert row.length == rowLength : row.length + " bytes, rows are " + rowLength;
    byte[][] t = table;
    if (id >= t.length) {
      t = Arrays.copyOf(t, Math.max(id + 1, t.length + (t.length >> 1)));
      table = t;
    }
    byte[] old = t[id];
    if (row.length > codeLength && old != null) {
      System.arraycopy(old, countAt, row, countAt, row.length - countAt);
    }
    if (old == null) {
      present++;
    }
    SLOT.setRelease(t, id, row);
  }

  /** The row of {@code id} (the code, then any links), or null. Any thread. */
  byte[] row(int id) {
    byte[][] t = table;
    return id >= 0 && id < t.length ? (byte[]) SLOT.getAcquire(t, id) : null;
  }

  /** Removes the row of {@code id}; whether one was there. Writer thread. */
  boolean clear(int id) {
    byte[][] t = table;
    if (id < 0 || id >= t.length || t[id] == null) {
      return false;
    }
    SLOT.setRelease(t, id, (byte[]) null);
    present--;
    return true;
  }

  /**
   * Mirrors {@code ids} as the level-0 links of {@code id}'s row (nothing when the row is absent or
   * holds no links): the ids first, zeros after them up to the old count, then the count with a
   * release store. Writer thread.
   *
   * @throws IllegalStateException when {@code ids} exceeds the reserved capacity
   */
  @Override
  public void setLinks(int id, int[] ids) {
    byte[][] t = table;
    byte[] row = id < t.length ? t[id] : null;
    if (row == null || row.length == codeLength) {
      return;
    }
    if (ids.length > linkCapacity) {
      throw new IllegalStateException(
          ids.length + " links for node " + id + ", rows hold " + linkCapacity);
    }
    int first = countAt + Integer.BYTES;
    for (int j = 0; j < ids.length; j++) {
      INT.set(row, first + Integer.BYTES * j, ids[j]);
    }
    int old = (int) INT.get(row, countAt);
    for (int j = ids.length; j < old; j++) {
      INT.set(row, first + Integer.BYTES * j, 0);
    }
    VarHandle.releaseFence(); // the ids above before the count below
    INT.set(row, countAt, ids.length);
  }

  /** The link count of {@code row} (acquire: the ids it counts are visible). Any thread. */
  int linkCount(byte[] row) {
    int count = (int) INT.get(row, countAt);
    VarHandle.acquireFence(); // the count above before the ids the caller reads
    return count;
  }

  /** The {@code j}-th link of {@code row}, {@code j < linkCount(row)}. Any thread. */
  int link(byte[] row, int j) {
    return (int) INT.get(row, countAt + Integer.BYTES * (1 + j));
  }

  /** Where a row's count sits: loaded to start the fetch of a node's links early. */
  int countOffset() {
    return countAt;
  }

  /** Heap bytes of the codes alone: the table, each array's header and its code. */
  long codeBytes() {
    return 16L + 8L * table.length + (long) present * (16L + codeLength);
  }

  /** Heap bytes of the links behind the codes: padding, counts and ids. */
  @Override
  public long linkBytes() {
    return (long) (rowLength - codeLength) * present;
  }
}
