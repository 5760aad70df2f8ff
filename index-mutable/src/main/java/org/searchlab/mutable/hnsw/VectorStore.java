package org.searchlab.mutable.hnsw;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.searchlab.core.VectorQuantization;

/**
 * Columnar storage of fixed-dimension float vectors keyed by a dense int local id: the mutable
 * store's vector attribute, which the graph reads for distances.
 *
 * <p>Thread-safety: one writer thread calls {@link #set} and {@link #remove}; any number of reader
 * threads call {@link #get} without locks. A stored vector is an immutable array published with
 * release semantics, so a reader sees either the whole old vector, the whole new one, or {@code
 * null}, never a torn mix. A vector set (or removed) before a reader's {@code get} starts, in
 * happens-before order, is seen by it.
 */
public interface VectorStore extends Closeable {
  /** A new empty store for vectors of {@code dimension} floats, {@code dimension} in [1, 4096]. */
  static VectorStore create(int dimension) {
    return create(dimension, VectorQuantization.NONE);
  }

  /**
   * A new empty store that also keeps each vector's {@code quantization} code ({@link #code}),
   * computed from the float vector on {@link #set}; every vector on the heap.
   */
  static VectorStore create(int dimension, VectorQuantization quantization) {
    return create(dimension, quantization, null);
  }

  /**
   * A new empty store whose float vectors, when {@code quantization} keeps codes and {@code
   * scratch} is not null, live in a memory-mapped scratch file under {@code scratch} ({@link
   * MappedFloatSlots}) instead of on the heap: the graph walks the codes, and the floats are read
   * to rescore and to build. Without codes the floats stay on the heap, where every graph step
   * reads them, each followed by its node's level-0 links once a graph uses the store ({@link
   * RowFloatSlots}).
   *
   * @throws UncheckedIOException if the scratch file cannot be created
   */
  static VectorStore create(int dimension, VectorQuantization quantization, Path scratch) {
    ArrayVectorStore.checkDimension(dimension);
    Path where = quantization == VectorQuantization.NONE ? null : scratch;
    try {
      return new ArrayVectorStore(dimension, quantization, FloatSlots.create(dimension, where));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the float vector scratch file", e);
    }
  }

  /**
   * The store a graph with {@code config} keeps its vectors in: {@link #create(int,
   * VectorQuantization, Path)} with the config's quantization, except that a graph with {@link
   * HnswConfig#inlineCodes()} keeps its floats on the heap whatever {@code scratch} says: that mode
   * spends memory for speed, and its inserts search the floats, which the mapped file hands out as
   * copies (a build on the Debian vectors took 2.6× as long from the file as from the heap).
   */
  static VectorStore create(int dimension, HnswConfig config, Path scratch) {
    boolean inline = config.inlineCodes() && config.quantization() == VectorQuantization.BBQ;
    return create(dimension, config.quantization(), inline ? null : scratch);
  }

  /**
   * What the graph search reads: the int8 codes ({@link VectorQuantization#INT8}), the 4-bit codes
   * ({@link VectorQuantization#INT4}), the 1-bit codes ({@link VectorQuantization#BBQ}) or the
   * floats. The int8 codes are kept either way ({@link #code}); without int8 quantization only
   * exact scans read them.
   */
  VectorQuantization quantization();

  /**
   * An array that begins with the int8 code of {@code id} ({@link Int8Codes}' stored layout:
   * components, the scale, the norm), or {@code null} when absent; in a quantized store used by a
   * graph the node's level-0 links follow it ({@link RowCodes}). Shared, do not modify. Lock-free,
   * any thread.
   */
  byte[] code(int id);

  /**
   * With {@link VectorQuantization#BBQ}, an array that begins with the 1-bit code of {@code id}
   * ({@link BinaryCodes}' layout), with {@link VectorQuantization#INT4} its 4-bit code ({@link
   * Int4Codes}' layout), followed by the node's level-0 links once a graph uses the store; {@code
   * null} when absent or with another quantization. Shared, do not modify. Lock-free, any thread.
   */
  default byte[] lowBitCode(int id) {
    return null;
  }

  /**
   * Heap bytes of the 1-bit or 4-bit codes alone, 0 without them (part of {@link #quantizedBytes}).
   */
  default long lowBitBytes() {
    return 0;
  }

  /** The number of floats per vector. */
  int dimension();

  /**
   * Stores a copy of {@code vector} under {@code id}, replacing any previous one. Writer thread
   * only.
   *
   * @throws org.searchlab.core.InvalidRequestException if {@code id} is negative or the length is
   *     not {@link #dimension()}
   */
  void set(int id, float[] vector);

  /**
   * The vector of {@code id}, or {@code null} when absent (never set, removed, or out of range).
   * The returned array may be shared and must not be modified; where vectors sit inside larger rows
   * it is a copy, so hot paths read {@link #row} instead. Lock-free, any thread.
   */
  float[] get(int id);

  /**
   * An array whose first {@link #dimension()} floats are the vector of {@code id}, or {@code null}
   * when absent: without a copy where the store keeps vectors on the heap, where an unquantized
   * store's arrays continue with the graph's level-0 links ({@link RowFloatSlots}). Shared, do not
   * modify. Lock-free, any thread; the same guarantees as {@link #get}.
   */
  float[] row(int id);

  /**
   * {@link #row}, copying into {@code buffer} (at least {@link #dimension()} long) where the store
   * must copy (floats in a mapped file) instead of into a new array; then the result is {@code
   * buffer}, valid until the caller reuses it. Lock-free, any thread.
   */
  default float[] row(int id, float[] buffer) {
    return row(id);
  }

  /**
   * Loads every cache line of {@code id}'s float vector ({@link FloatSlots#touch}), so that a
   * caller about to read several cold ones can start their misses together; 0 when absent or where
   * the store keeps no such slots. The value means nothing. Lock-free, any thread.
   */
  default float touchFloats(int id) {
    return 0f;
  }

  /**
   * Whether {@code id} holds a vector bitwise equal to {@code vector} (as {@link
   * Arrays#equals(float[], float[])} compares), read from its {@link #row} without a copy.
   * Lock-free, any thread.
   */
  default boolean holds(int id, float[] vector) {
    float[] row = row(id);
    return row != null
        && vector.length == dimension()
        && Arrays.equals(row, 0, vector.length, vector, 0, vector.length);
  }

  /** Removes the vector of {@code id}; returns whether one was present. Writer thread only. */
  boolean remove(int id);

  /** The number of vectors present. */
  int size();

  /** One more than the largest id ever set (an exclusive upper bound for iteration). */
  int idUpperBound();

  /** Approximate heap bytes used by the vectors, their codes and the id tables. */
  long ramBytesUsed();

  /**
   * Approximate heap bytes of the codes: the int8 codes (kept with and without quantization) and
   * any 1-bit codes.
   */
  long quantizedBytes();

  /** Bytes of the scratch file mapping the float vectors, or 0 when they are on the heap. */
  long mappedBytes();

  /** Releases the scratch file, if any; the store must not be used afterwards. */
  @Override
  void close() throws IOException;
}
