package org.searchlab.mutable.hnsw;

import java.io.IOException;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.VectorQuantization;

/**
 * A {@link VectorStore}: the float vectors in {@link FloatSlots} (on the heap, or with int8 codes
 * in a mapped scratch file), the codes in {@link RowCodes}, an array per id which in a quantized
 * store also holds the node's level-0 links once a graph uses the store ({@link #linkRows}).
 *
 * <p>Thread-safety: single writer, lock-free readers. The float slots give each reader a whole
 * vector or none ({@link FloatSlots}). The codes are an immutable code per array (links behind it
 * are rewritten in place), stored with {@code setRelease} and loaded with {@code getAcquire}, in a
 * table that grows by copying into a larger one published through a volatile field, as {@link
 * RowFloatSlots} keeps its rows.
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
  private final int dimension;
  private final VectorQuantization quantization;
  private final FloatSlots floats;
  private final RowCodes codes;
  // The 1-bit (BBQ) or 4-bit (INT4) codes the graph walks, an array per id; null otherwise.
  private final RowCodes lowBit;
  // Their rotation and the writer's scratch for it; null otherwise.
  private final Rotation rotation;
  private final float[] rotated;
  private volatile int size;
  private volatile int upperBound;

  ArrayVectorStore(int dimension, VectorQuantization quantization, FloatSlots floats) {
    this.dimension = dimension;
    this.quantization = java.util.Objects.requireNonNull(quantization, "quantization");
    this.floats = floats;
    this.codes = new RowCodes(dimension);
    boolean bbq = quantization == VectorQuantization.BBQ;
    boolean lowBits = bbq || quantization == VectorQuantization.INT4;
    this.lowBit =
        lowBits
            ? RowCodes.ofLength(
                bbq ? BinaryCodes.codeLength(dimension) : Int4Codes.codeLength(dimension))
            : null;
    this.rotation = lowBits ? new Rotation(dimension) : null;
    this.rotated = lowBits ? new float[dimension] : null;
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
    return codes.row(id);
  }

  @Override
  public byte[] lowBitCode(int id) {
    return lowBit == null ? null : lowBit.row(id);
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
    if (lowBit != null) {
      lowBit.put(
          id,
          quantization == VectorQuantization.BBQ
              ? BinaryCodes.encode(rotation, vector, rotated, lowBit.rowLength())
              : Int4Codes.encode(rotation, vector, rotated, lowBit.rowLength()));
    }
    codes.put(id, Int8Codes.encode(vector, codes.rowLength()));
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

  @Override
  public float[] row(int id, float[] buffer) {
    return floats.row(id, buffer);
  }

  @Override
  public float touchFloats(int id) {
    return floats.touch(id);
  }

  /**
   * The rows the graph mirrors its level-0 links into, sized for {@code capacity} links: the int8
   * codes' when the graph walks them ({@link VectorQuantization#INT8}), the 1-bit codes' with
   * {@link VectorQuantization#BBQ}, the 4-bit codes' with {@link VectorQuantization#INT4}, or with
   * {@code inline} rows that also hold the neighbours' 1-bit codes ({@link InlineCodeRows}, with
   * their {@code ‖o‖²} when {@code l2}), else the floats' when they are kept in rows; null
   * otherwise. Writer thread, while empty.
   */
  LinkRows linkRows(int capacity, boolean inline, boolean l2) {
    if (lowBit != null && inline && quantization == VectorQuantization.BBQ) {
      return new InlineCodeRows(lowBit, dimension, capacity, l2);
    }
    if (lowBit != null) {
      lowBit.reserveLinks(capacity);
      return lowBit;
    }
    if (quantization == VectorQuantization.INT8) {
      codes.reserveLinks(capacity);
      return codes;
    }
    if (floats instanceof RowFloatSlots rows) {
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
    if (lowBit != null) {
      lowBit.clear(id);
    }
    codes.clear(id);
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
    return codes.codeBytes() + lowBitBytes();
  }

  @Override
  public long lowBitBytes() {
    return lowBit == null ? 0 : lowBit.codeBytes();
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
