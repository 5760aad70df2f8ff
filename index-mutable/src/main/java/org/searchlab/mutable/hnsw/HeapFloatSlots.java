package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * {@link FloatSlots} as a growable table of immutable {@code float[]}s, one per id.
 *
 * <p>Thread-safety: single writer, lock-free readers. (1) A published array is never written again
 * (the caller hands over a private copy). (2) The writer stores the reference with {@code
 * setRelease}, so a reader that loads it with {@code getAcquire} sees the filled array. (3) Growing
 * the table copies the references into a larger table published through a volatile field; a reader
 * still holding the old table may miss ids set after the copy, which it treats as absent, exactly
 * as if it had read a moment earlier. Later writes go to the new table only, which is why {@link
 * #get} re-reads the volatile field on each call.
 */
final class HeapFloatSlots implements FloatSlots {
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(float[][].class);

  private volatile float[][] table = new float[16][];

  @Override
  public void put(int id, float[] vector) {
    float[][] t = table;
    if (id >= t.length) {
      t = Arrays.copyOf(t, Math.max(id + 1, t.length + (t.length >> 1)));
      table = t;
    }
    SLOT.setRelease(t, id, vector);
  }

  @Override
  public float[] get(int id) {
    float[][] t = table;
    return id >= 0 && id < t.length ? (float[]) SLOT.getAcquire(t, id) : null;
  }

  @Override
  public boolean has(int id) {
    return get(id) != null;
  }

  @Override
  public boolean clear(int id) {
    float[][] t = table;
    if (id < 0 || id >= t.length || t[id] == null) {
      return false;
    }
    SLOT.setRelease(t, id, (float[]) null);
    return true;
  }

  @Override
  public long heapBytes(int size, int dimension) {
    return 16L + 8L * table.length + (long) size * (16L + 4L * dimension);
  }

  @Override
  public long mappedBytes() {
    return 0;
  }
}
