package org.searchlab.mutable.hnsw;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where a {@link VectorStore} keeps its float vectors, one slot per id: on the Java heap ({@link
 * RowFloatSlots}) or in a memory-mapped scratch file ({@link MappedFloatSlots}).
 *
 * <p>Thread-safety, the same for both: one writer calls {@link #put} and {@link #clear}; readers
 * call {@link #get} from any thread without locks and see either the whole old vector, the whole
 * new one, or {@code null}, never a torn mix.
 */
interface FloatSlots extends Closeable {
  /** Heap slots, or mapped ones in a scratch file under {@code scratch} when it is not null. */
  static FloatSlots create(int dimension, Path scratch) throws IOException {
    return scratch == null
        ? new RowFloatSlots(dimension)
        : new MappedFloatSlots(dimension, scratch);
  }

  /** Stores a copy of {@code vector} under {@code id}. Writer only. */
  void put(int id, float[] vector);

  /** The vector of {@code id}, or {@code null} when absent. Any thread. */
  float[] get(int id);

  /**
   * An array whose first {@code dimension} floats are the vector of {@code id}, or {@code null}
   * when absent: the slot itself where the vector sits in one ({@link RowFloatSlots}, whose rows
   * may continue with links), otherwise a copy. Shared, do not modify. Any thread.
   */
  default float[] row(int id) {
    return get(id);
  }

  /**
   * {@link #row}, but where the vector must be copied it is copied into {@code buffer} (at least
   * {@code dimension} long) instead of a new array: the returned array is then {@code buffer},
   * valid until the caller reuses it. Any thread.
   */
  default float[] row(int id, float[] buffer) {
    return row(id);
  }

  /**
   * Loads every cache line of {@code id}'s vector (every 16th float and the last) without copying
   * it (0 when absent), so that a caller reading several cold vectors can start all their misses
   * together before it reads any: a vector read cold by a kernel waits on its first line alone, and
   * its later lines only as fast as the hardware prefetcher follows. A 4-bit search's rerank (about
   * 22 floats a query on the Debian vectors at ef 32) spent 8.4% of the search's samples in the
   * float dot products when only the first line of mapped vectors (and none of heap rows) was
   * touched, against 1.0% plus 3.2% in this touch after (JFR, hnsw-bench, heap floats). Any thread.
   */
  default float touch(int id) {
    return 0f;
  }

  /** Whether {@code id} has a vector, without copying it. Writer only. */
  boolean has(int id);

  /** Removes the vector of {@code id}; returns whether one was present. Writer only. */
  boolean clear(int id);

  /** Approximate heap bytes for {@code size} vectors of {@code dimension} floats. */
  long heapBytes(int size, int dimension);

  /** Bytes of the file mapping the vectors (0 for heap slots): page cache, not heap. */
  long mappedBytes();

  /** Releases the file (mapped slots); heap slots have nothing to release. */
  @Override
  default void close() throws IOException {}
}
