package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * {@link FloatSlots} on the heap, an array per id. In an unquantized store each array is a row: the
 * vector, then the node's bottom-level link count and links (ids as raw float bits, up to the
 * graph's level-0 capacity, {@link #reserveLinks}), as hnswlib keeps a node's links and vector
 * together in {@code data_level0_memory_}. The graph ({@link HnswAdjacency}) mirrors each level-0
 * list into its node's row with {@link #setLinks} and keeps its own lists for the writer; a beam
 * search reads them here. Without links reserved (quantized stores, whose graph walks the int8
 * codes) the array is the vector alone, and {@link #get} returns it without a copy.
 *
 * <p>Why this layout: a beam search expands a node soon after it scored it, and scoring streamed
 * the whole vector through the cache, so links stored right after the vector arrive with its last
 * lines instead of from a separate {@code int[]} reached through a second table. Links in front of
 * the vector cost more: the array's header then sits lines away from the vector, and every scored
 * neighbour paid for one more line (its length, read by the bounds checks). On the Debian vectors
 * (62,665, 384-d, M 16, one thread, paired passes against hnswlib on a 2-core AMD EPYC), searches
 * cost 83–112 ns per visited node with a {@code float[]} per vector and an {@code int[]} per list,
 * 90–99 with the links in front of the vector, 81–94 with them behind it, and hnsw-bench's
 * read-only flat copy ({@code --impl mutable-flat}) 76–92. The cost is {@code 4 + 8M} bytes per
 * vector for the mirrored links (132 at M 16, 9% of a 384-d vector), which the graph reports as its
 * own ({@link #linkBytes}).
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
final class RowFloatSlots implements FloatSlots, LinkRows {
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(float[][].class);
  private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(float[].class);

  private final int dimension;
  private int linkCapacity;
  private volatile int tail; // floats after the vector: the count and the links, or none
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
    tail = capacity == 0 ? 0 : 1 + capacity;
  }

  @Override
  public void put(int id, float[] vector) {
    float[][] t = table;
    if (id >= t.length) {
      t = Arrays.copyOf(t, Math.max(id + 1, t.length + (t.length >> 1)));
      table = t;
    }
    int links = tail;
    float[] old = t[id];
    float[] row = Arrays.copyOf(vector, dimension + links);
    if (links > 0 && old != null) {
      System.arraycopy(old, dimension, row, dimension, links);
    }
    if (old == null) {
      present++;
    }
    SLOT.setRelease(t, id, row);
  }

  /** The row of {@code id} (the vector, then any links), or null. Any thread. */
  @Override
  public float[] row(int id) {
    float[][] t = table;
    return id >= 0 && id < t.length ? (float[]) SLOT.getAcquire(t, id) : null;
  }

  /**
   * Loads every cache line of {@code id}'s vector (every 16th float and the last), so that a caller
   * about to read several cold vectors has all their misses in flight at once. Any thread.
   */
  @Override
  public float touch(int id) {
    float[] row = row(id);
    if (row == null) {
      return 0f;
    }
    float sum = row[dimension - 1];
    for (int i = 0; i < dimension; i += 16) {
      sum += row[i];
    }
    return sum;
  }

  /** The vector of {@code id} (a copy when links follow it), or null. Any thread. */
  @Override
  public float[] get(int id) {
    float[] row = row(id);
    return row == null || tail == 0 ? row : Arrays.copyOf(row, dimension);
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
  @Override
  public void setLinks(int id, int[] ids) {
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
      row[dimension + 1 + j] = Float.intBitsToFloat(ids[j]);
    }
    CELL.setRelease(row, dimension, Float.intBitsToFloat(ids.length));
  }

  /** The link count of {@code row} (acquire: the ids it counts are visible). Any thread. */
  int linkCount(float[] row) {
    return Float.floatToRawIntBits((float) CELL.getAcquire(row, dimension));
  }

  /** The {@code j}-th link of {@code row}, {@code j < linkCount(row)}. Any thread. */
  int link(float[] row, int j) {
    return Float.floatToRawIntBits(row[dimension + 1 + j]);
  }

  /**
   * Heap bytes of the vectors alone: the table, each row's header and its vector. The links in
   * front of them are the graph's bytes ({@link #linkBytes}), which it reports.
   */
  @Override
  public long heapBytes(int size, int dimension) {
    return 16L + 8L * table.length + (long) size * (16L + 4L * dimension);
  }

  /** Heap bytes of the mirrored links behind the vectors, counts included. */
  @Override
  public long linkBytes() {
    return 4L * tail * present;
  }

  @Override
  public long mappedBytes() {
    return 0;
  }
}
