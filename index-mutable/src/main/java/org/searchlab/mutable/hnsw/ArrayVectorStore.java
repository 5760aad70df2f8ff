package org.searchlab.mutable.hnsw;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.VectorQuantization;

/**
 * A {@link VectorStore}: the float vectors in {@link FloatSlots} (on the heap, or with int8 codes
 * in a mapped scratch file), the codes in a growable table of immutable {@code byte[]}s.
 *
 * <p>Thread-safety: single writer, lock-free readers. The float slots give each reader a whole
 * vector or none ({@link FloatSlots}). The codes are an immutable array per id, stored with {@code
 * setRelease} and loaded with {@code getAcquire}, in a table that grows by copying into a larger
 * one published through a volatile field, as {@link RowFloatSlots} keeps its rows.
 *
 * <p>Every vector has its int8 code, whatever the quantization: with {@link
 * VectorQuantization#INT8} the graph walks the codes; without it only the exact plan reads them, to
 * bracket each accepted vector's score and rescore by the floats only those that can still make the
 * top k (about 2× fewer nanoseconds per scanned vector on the Debian corpus, for {@code dimension +
 * 24} more heap bytes per vector). {@link #set} writes the code before the float vector and {@link
 * #remove} clears the code first, so a search that scores a node by its code and rescores it by its
 * float finds either both, or the code and a newer (or no) float, which it handles as a vector
 * replaced (or removed) under it.
 */
final class ArrayVectorStore implements VectorStore {
  private static final VarHandle CODE = MethodHandles.arrayElementVarHandle(byte[][].class);

  private final int dimension;
  private final VectorQuantization quantization;
  private final FloatSlots floats;
  private volatile byte[][] codes;
  private volatile int size;
  private volatile int upperBound;

  ArrayVectorStore(int dimension, VectorQuantization quantization, FloatSlots floats) {
    this.dimension = dimension;
    this.quantization = java.util.Objects.requireNonNull(quantization, "quantization");
    this.floats = floats;
    this.codes = new byte[16][];
  }

  /** Checks a dimension before any slot is created for it. */
  static void checkDimension(int dimension) {
    if (dimension < 1 || dimension > 4096) {
      throw new InvalidRequestException("dimension " + dimension + " is outside [1, 4096]");
    }
  }

  @Override
  public VectorQuantization quantization() {
    return quantization;
  }

  @Override
  public byte[] code(int id) {
    byte[][] c = codes;
    return id >= 0 && id < c.length ? (byte[]) CODE.getAcquire(c, id) : null;
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
    boolean present = floats.has(id);
    byte[][] c = codes;
    if (id >= c.length) {
      c = Arrays.copyOf(c, Math.max(id + 1, c.length + (c.length >> 1)));
      codes = c;
    }
    CODE.setRelease(c, id, Int8Codes.encode(vector));
    floats.put(id, vector); // a copy: the caller keeps its array
    if (!present) {
      size++;
    }
    upperBound = Math.max(upperBound, id + 1);
  }

  @Override
  public float[] get(int id) {
    return floats.get(id);
  }

  @Override
  public float[] row(int id) {
    return floats.row(id);
  }

  /**
   * The rows the graph mirrors its level-0 links into, sized for {@code capacity} links, or null
   * when the floats are not kept in rows (quantized stores). Writer thread, while empty.
   */
  RowFloatSlots linkRows(int capacity) {
    if (quantization == VectorQuantization.NONE && floats instanceof RowFloatSlots rows) {
      rows.reserveLinks(capacity);
      return rows;
    }
    return null;
  }

  @Override
  public boolean remove(int id) {
    if (id < 0 || !floats.has(id)) {
      return false;
    }
    byte[][] c = codes;
    if (id < c.length) {
      CODE.setRelease(c, id, (byte[]) null);
    }
    floats.clear(id);
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
    return floats.heapBytes(size, dimension) + quantizedBytes();
  }

  @Override
  public long quantizedBytes() {
    byte[][] c = codes;
    return 16L + 8L * c.length + (long) size * (16L + dimension + Int8Codes.TAIL);
  }

  @Override
  public long mappedBytes() {
    return floats.mappedBytes();
  }

  @Override
  public void close() throws IOException {
    floats.close();
  }
}
