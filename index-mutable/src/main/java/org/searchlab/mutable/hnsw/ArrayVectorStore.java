package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.searchlab.core.InvalidRequestException;

/**
 * A {@link VectorStore} as a growable table of immutable {@code float[]}s, one per id.
 *
 * <p>Thread-safety: single writer, lock-free readers. (1) The writer copies the caller's vector
 * into a fresh array, so a published array is never written again. (2) It stores the reference with
 * {@code setRelease}, so a reader that loads it with {@code getAcquire} sees the filled array. (3)
 * Growing the table copies the references into a larger table published through a volatile field; a
 * reader still holding the old table may miss ids set after the copy, which it treats as absent,
 * exactly as if it had read a moment earlier. Later writes go to the new table only, which is why
 * {@link #get} re-reads the volatile field on each call.
 */
final class ArrayVectorStore implements VectorStore {
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(float[][].class);

  private final int dimension;
  private volatile float[][] table = new float[16][];
  private volatile int size;
  private volatile int upperBound;

  ArrayVectorStore(int dimension) {
    if (dimension < 1 || dimension > 4096) {
      throw new InvalidRequestException("dimension " + dimension + " is outside [1, 4096]");
    }
    this.dimension = dimension;
  }

  @Override
  public int dimension() {
    return dimension;
  }

  @Override
  public void set(int id, float[] vector) {
    if (id < 0) {
      throw new InvalidRequestException("vector id " + id + " is negative");
    }
    if (vector.length != dimension) {
      throw new InvalidRequestException(
          "vector length " + vector.length + " differs from the dimension " + dimension);
    }
    float[][] t = table;
    if (id >= t.length) {
      t = Arrays.copyOf(t, Math.max(id + 1, t.length + (t.length >> 1)));
      table = t;
    }
    float[] copy = vector.clone();
    if (t[id] == null) {
      size++;
    }
    SLOT.setRelease(t, id, copy);
    upperBound = Math.max(upperBound, id + 1);
  }

  @Override
  public float[] get(int id) {
    float[][] t = table;
    return id >= 0 && id < t.length ? (float[]) SLOT.getAcquire(t, id) : null;
  }

  @Override
  public boolean remove(int id) {
    float[][] t = table;
    if (id < 0 || id >= t.length || t[id] == null) {
      return false;
    }
    SLOT.setRelease(t, id, (float[]) null);
    size--;
    return true;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public int idUpperBound() {
    return upperBound;
  }

  @Override
  public long ramBytesUsed() {
    return 16L + 8L * table.length + (long) size * (16L + 4L * dimension);
  }
}
