package org.searchlab.mutable.hnsw;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.VectorQuantization;

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
 *
 * <p>With {@link VectorQuantization#INT8} a second table holds each vector's {@link Int8Codes}
 * code, published the same way; {@link #set} writes the code before the float vector and {@link
 * #remove} clears the code first, so a search that scores a node by its code and rescores it by its
 * float finds either both, or the code and a newer (or no) float, which it handles as a vector
 * replaced (or removed) under it.
 */
final class ArrayVectorStore implements VectorStore {
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(float[][].class);

  private static final VarHandle CODE = MethodHandles.arrayElementVarHandle(byte[][].class);

  private final int dimension;
  private final VectorQuantization quantization;
  private volatile float[][] table = new float[16][];
  // Null without quantization; grown together with table (both before either is published).
  private volatile byte[][] codes;
  private volatile int size;
  private volatile int upperBound;

  ArrayVectorStore(int dimension, VectorQuantization quantization) {
    if (dimension < 1 || dimension > 4096) {
      throw new InvalidRequestException("dimension " + dimension + " is outside [1, 4096]");
    }
    this.dimension = dimension;
    this.quantization = java.util.Objects.requireNonNull(quantization, "quantization");
    this.codes = quantization == VectorQuantization.INT8 ? new byte[16][] : null;
  }

  @Override
  public VectorQuantization quantization() {
    return quantization;
  }

  @Override
  public byte[] code(int id) {
    byte[][] c = codes;
    return c != null && id >= 0 && id < c.length ? (byte[]) CODE.getAcquire(c, id) : null;
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
    byte[][] c = codes;
    if (id >= t.length) {
      int length = Math.max(id + 1, t.length + (t.length >> 1));
      t = Arrays.copyOf(t, length);
      if (c != null) {
        c = Arrays.copyOf(c, length);
        codes = c;
      }
      table = t;
    }
    float[] copy = vector.clone();
    if (t[id] == null) {
      size++;
    }
    if (c != null) {
      CODE.setRelease(c, id, Int8Codes.encode(copy));
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
    byte[][] c = codes;
    if (c != null) {
      CODE.setRelease(c, id, (byte[]) null);
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
    return 16L + 8L * table.length + (long) size * (16L + 4L * dimension) + quantizedBytes();
  }

  @Override
  public long quantizedBytes() {
    byte[][] c = codes;
    return c == null ? 0 : 16L + 8L * c.length + (long) size * (16L + dimension + Float.BYTES);
  }
}
