package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * {@link FloatSlots} on the heap, an array per id. In an unquantized store each array is a row
 * holding the node's bottom-level links in front of its vector, as hnswlib lays out {@code
 * data_level0_memory_}: {@code row[0]} is the link count, {@code row[1 ..]} the links (ids as raw
 * float bits, up to the graph's level-0 capacity, {@link #reserveLinks}), and the vector starts at
 * {@link #offset()}. Without links reserved (quantized stores, whose graph walks the int8 codes)
 * the array is the vector alone, and {@link #get} returns it without a copy. A beam search expands
 * a node shortly after it scored it, so the node's links arrive with (or just before) the vector
 * lines it already read, instead of from a separate {@code int[]} reached through a second table.
 * The float vectors of an unquantized store live here; the graph ({@link HnswAdjacency}) mirrors
 * each level-0 list into its node's row with {@link #setLinks}, and keeps its own lists for the
 * writer.
 *
 * <p>Measured with {@code hnsw-bench} against the previous layout (a {@code float[]} per vector and
 * an {@code int[]} per list): see {@code bench/README.md}. The cost is {@code 4 + 4 × 2M} bytes per
 * vector for the mirrored links (132 bytes at M 16, 9% of a 384-d vector).
 *
 * <p>Thread-safety: one writer calls {@link #put}, {@link #clear}, {@link #reserveLinks} and {@link
 * #setLinks}; readers call {@link #row}, {@link #get} and the link readers from any thread without
 * locks.
 *
 * <ol>
 *   <li>A vector is never rewritten in place: {@link #put} builds a new row (carrying the old row's
 *       links over) and stores it with a release store, so a reader that acquires a row sees a
 *       whole vector, old or new, or none.
 *   <li>The table grows by copying the references into a larger table published through a volatile
 *       field; a reader still holding the old table may miss ids set after the copy, which it
 *       treats as absent, exactly as if it had read a moment earlier. Later writes go to the new
 *       table only, which is why {@link #row} re-reads the volatile field on each call.
 *   <li>Links are rewritten in place: the writer stores the new ids, then the count with a release
 *       store. A reader loads the count with an acquire load, then the ids; it may see a mix of the
 *       old and new lists' ids, or ids of earlier lists, all of them real node ids (or 0, the
 *       initial value), which a search treats like any stale link: a node without a row is skipped.
 *       hnswlib's searches read links the same way.
 * </ol>
 */
final class RowFloatSlots implements FloatSlots {
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(float[][].class);
  private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(float[].class);

  private final int dimension;
  private int linkCapacity;
  private volatile int offset;
  private volatile float[][] table = new float[16][];
  private volatile int present; // written by the writer only

  RowFloatSlots(int dimension) {
    this.dimension = dimension;
  }

  /**
   * Sizes every row for {@code capacity} links. Writer thread, while no vector is stored.
   *
   * @throws IllegalStateException when vectors are stored with another capacity
   */
  void reserveLinks(int capacity) {
    if (capacity == linkCapacity) {
      return;
    }
    if (present > 0) {
      throw new IllegalStateException(
          "the vector rows hold "
              + present
              + " vectors with room for "
              + linkCapacity
              + " links, not "
              + capacity);
    }
    linkCapacity = capacity;
    offset = capacity == 0 ? 0 : 1 + capacity;
  }

  /** Where a row's vector starts. */
  @Override
  public int offset() {
    return offset;
  }

  /**
   * Stores {@code vector} under {@code id}; without links the array itself, so the caller passes
   * one nobody else writes. Writer only.
   */
  @Override
  public void put(int id, float[] vector) {
    float[][] t = table;
    if (id >= t.length) {
      t = Arrays.copyOf(t, Math.max(id + 1, t.length + (t.length >> 1)));
      table = t;
    }
    int off = offset;
    float[] old = t[id];
    float[] row = vector;
    if (off > 0) {
      row = new float[off + dimension];
      if (old != null) {
        System.arraycopy(old, 0, row, 0, off);
      }
      System.arraycopy(vector, 0, row, off, dimension);
    }
    if (old == null) {
      present++;
    }
    SLOT.setRelease(t, id, row);
  }

  /** The row of {@code id} (links, then the vector at {@link #offset}), or null. Any thread. */
  @Override
  public float[] row(int id) {
    float[][] t = table;
    return id >= 0 && id < t.length ? (float[]) SLOT.getAcquire(t, id) : null;
  }

  /** The vector of {@code id} (a copy when it sits behind links), or null. Any thread. */
  @Override
  public float[] get(int id) {
    float[] row = row(id);
    int off = offset;
    return row == null || off == 0 ? row : Arrays.copyOfRange(row, off, off + dimension);
  }

  @Override
  public boolean has(int id) {
    return row(id) != null;
  }

  @Override
  public boolean clear(int id) {
    float[][] t = table;
    if (id < 0 || id >= t.length || t[id] == null) {
      return false;
    }
    SLOT.setRelease(t, id, (float[]) null);
    present--;
    return true;
  }

  /**
   * Mirrors {@code ids} as the level-0 links of {@code id}'s row (nothing when the row is absent):
   * the ids first, then the count with a release store. Writer thread.
   *
   * @throws IllegalStateException when {@code ids} exceeds the reserved capacity
   */
  void setLinks(int id, int[] ids) {
    float[][] t = table;
    float[] row = id < t.length ? t[id] : null;
    if (row == null) {
      return;
    }
    if (ids.length > linkCapacity) {
      throw new IllegalStateException(
          ids.length + " links for node " + id + ", rows hold " + linkCapacity);
    }
    for (int j = 0; j < ids.length; j++) {
      row[1 + j] = Float.intBitsToFloat(ids[j]);
    }
    CELL.setRelease(row, 0, Float.intBitsToFloat(ids.length));
  }

  /** The link count of {@code row} (acquire: the ids it counts are visible). Any thread. */
  static int linkCount(float[] row) {
    return Float.floatToRawIntBits((float) CELL.getAcquire(row, 0));
  }

  /** The {@code j}-th link of {@code row}, {@code j < linkCount(row)}. Any thread. */
  static int link(float[] row, int j) {
    return Float.floatToRawIntBits(row[1 + j]);
  }

  /**
   * Heap bytes of the vectors alone: the table, each row's header and its vector. The links in
   * front of them are the graph's bytes ({@link #linkBytes}), which it reports.
   */
  @Override
  public long heapBytes(int size, int dimension) {
    return 16L + 8L * table.length + (long) size * (16L + 4L * dimension);
  }

  /** Heap bytes of the mirrored links in front of the vectors, count included. */
  long linkBytes() {
    return 4L * offset * present;
  }

  @Override
  public long mappedBytes() {
    return 0;
  }
}
