package org.searchlab.mutable.hnsw;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * {@link FloatSlots} in a memory-mapped scratch file, as Lucene keeps the float vectors of a
 * quantized field in its {@code .vec} file: the int8 codes the graph walks stay on the heap, and
 * the floats, read only to rescore a query's best {@code k × oversample} candidates and by the
 * graph build, live in the page cache, which the kernel can evict under memory pressure.
 *
 * <p>The file is scratch, not data: the write-ahead log and the snapshots hold every vector, and an
 * open rebuilds the slots from them. It is created under the store's directory and unlinked at once
 * (where the platform allows), so a crash leaves nothing behind; its space returns when {@link
 * #close} closes it and the mappings are collected.
 *
 * <p>Layout: slot {@code id} holds {@code dimension} native-order floats at {@code id × dimension ×
 * 4}, in chunks of about 16 MiB mapped one at a time as ids grow. Each chunk's blocks are written
 * with zeros when it is mapped, so a full disk fails that write (an {@link UncheckedIOException} in
 * the writer) instead of a later store through the mapping.
 *
 * <p>Thread-safety: a slot is rewritten in place, so each has a stamp, in pages of {@value
 * #STAMPS_PER_PAGE} ({@link AtomicLongArray}s that never move once created, so a reader and the
 * writer always meet on the same one), used as a sequence lock: the writer sets the stamp's writing
 * bit, fences, writes the floats, then publishes the next version with its present bit ({@code
 * setRelease}); a reader reads the stamp ({@code getAcquire}), copies the floats, fences and reads
 * the stamp again, and retries when it was being written or has changed. A reader therefore returns
 * a whole vector, old or new, or {@code null}, never a mix. Chunks and stamp pages are published
 * through volatile arrays, so a reader that misses a just-added one treats the id as absent, as if
 * it had read a moment earlier.
 */
final class MappedFloatSlots implements FloatSlots {
  /** Bytes mapped per chunk, rounded down to whole slots. */
  static final long CHUNK_BYTES = 16L << 20;

  /** Stamps per page: 4 KiB of heap, allocated as ids reach them. */
  static final int STAMPS_PER_PAGE = 512;

  private static final long WRITING = 1;
  private static final long PRESENT = 2;

  private final int dimension;
  private final int slotsPerChunk;
  private final FileChannel channel;
  private final Path file;
  private final boolean unlinked;
  private volatile FloatBuffer[] chunks = new FloatBuffer[0];
  private volatile AtomicReferenceArray<AtomicLongArray> stamps = new AtomicReferenceArray<>(0);

  MappedFloatSlots(int dimension, Path scratch) throws IOException {
    this(dimension, scratch, CHUNK_BYTES);
  }

  /** With {@code chunkBytes} per chunk (tests use small ones to cross chunk boundaries). */
  MappedFloatSlots(int dimension, Path scratch, long chunkBytes) throws IOException {
    this.dimension = dimension;
    this.slotsPerChunk = (int) Math.max(1, chunkBytes / (4L * dimension));
    Files.createDirectories(scratch);
    this.file = Files.createTempFile(scratch, "floats-", ".f32");
    this.channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    boolean gone;
    try {
      Files.delete(file);
      gone = true;
    } catch (IOException e) {
      gone = false; // e.g. Windows: an open file stays; close() deletes it
    }
    this.unlinked = gone;
  }

  @Override
  public void put(int id, float[] vector) {
    FloatBuffer floats = chunkFor(id);
    AtomicLongArray page = stampPageFor(id);
    int stamp = id % STAMPS_PER_PAGE;
    long version = (page.getPlain(stamp) >>> 2) + 1;
    page.set(stamp, version << 2 | WRITING);
    VarHandle.storeStoreFence();
    try {
      floats.put(id % slotsPerChunk * dimension, vector, 0, dimension);
    } catch (RuntimeException | Error e) {
      // A fault in the mapping (the file's storage failed under it): readers must not wait for a
      // write that will never finish, nor see its half, so the slot becomes absent.
      page.setRelease(stamp, (version + 1) << 2);
      throw e;
    }
    page.setRelease(stamp, version << 2 | PRESENT);
  }

  @Override
  public float[] get(int id) {
    return read(id, null);
  }

  @Override
  public float[] row(int id, float[] buffer) {
    return read(id, buffer);
  }

  @Override
  public float touch(int id) {
    FloatBuffer[] cs = chunks;
    int chunk = id / slotsPerChunk;
    if (id < 0 || chunk >= cs.length) {
      return 0f;
    }
    FloatBuffer floats = cs[chunk];
    int at = id % slotsPerChunk * dimension;
    float sum = floats.get(at + dimension - 1);
    for (int i = 0; i < dimension; i += 16) {
      sum += floats.get(at + i);
    }
    return sum;
  }

  /** The vector of {@code id} copied into {@code out} (a new array when null); null when absent. */
  private float[] read(int id, float[] out) {
    AtomicLongArray page = page(id);
    FloatBuffer[] cs = chunks;
    if (page == null || id / slotsPerChunk >= cs.length) {
      return null;
    }
    FloatBuffer floats = cs[id / slotsPerChunk];
    int stamp = id % STAMPS_PER_PAGE;
    for (int spins = 0; ; spins++) {
      long before = page.getAcquire(stamp);
      if ((before & WRITING) != 0) {
        // The writer is copying 4 × dimension bytes; if it lost its core meanwhile, give one up.
        if (spins < 64) {
          Thread.onSpinWait();
        } else {
          Thread.yield();
        }
        continue;
      }
      if ((before & PRESENT) == 0) {
        return null;
      }
      if (out == null) {
        out = new float[dimension];
      }
      floats.get(id % slotsPerChunk * dimension, out, 0, dimension);
      VarHandle.loadLoadFence();
      if (page.getOpaque(stamp) == before) {
        return out;
      }
    }
  }

  @Override
  public boolean has(int id) {
    AtomicLongArray page = page(id);
    return page != null && (page.getPlain(id % STAMPS_PER_PAGE) & PRESENT) != 0;
  }

  @Override
  public boolean clear(int id) {
    AtomicLongArray page = page(id);
    if (page == null) {
      return false;
    }
    int stamp = id % STAMPS_PER_PAGE;
    long s = page.getPlain(stamp);
    if ((s & PRESENT) == 0) {
      return false;
    }
    page.setRelease(stamp, ((s >>> 2) + 1) << 2);
    return true;
  }

  @Override
  public long heapBytes(int size, int dimension) {
    AtomicReferenceArray<AtomicLongArray> pages = stamps;
    long bytes = 32L + 8L * chunks.length + 16L + 8L * pages.length();
    for (int i = 0; i < pages.length(); i++) {
      if (pages.get(i) != null) {
        bytes += 32L + 8L * STAMPS_PER_PAGE;
      }
    }
    return bytes;
  }

  @Override
  public long mappedBytes() {
    return (long) chunks.length * slotsPerChunk * dimension * Float.BYTES;
  }

  @Override
  public void close() throws IOException {
    try {
      channel.close();
    } finally {
      if (!unlinked) {
        Files.deleteIfExists(file);
      }
    }
  }

  /** The stamp page of {@code id}, or null when none was created yet (or id is negative). */
  private AtomicLongArray page(int id) {
    AtomicReferenceArray<AtomicLongArray> pages = stamps;
    int index = id / STAMPS_PER_PAGE;
    return id >= 0 && index < pages.length() ? pages.get(index) : null;
  }

  /** Writer only: the stamp page of {@code id}, created (and the directory grown) when missing. */
  private AtomicLongArray stampPageFor(int id) {
    int index = id / STAMPS_PER_PAGE;
    AtomicReferenceArray<AtomicLongArray> pages = stamps;
    if (index >= pages.length()) {
      // The existing pages move to the new directory as references: a reader on the old one
      // still shares every page with the writer.
      AtomicReferenceArray<AtomicLongArray> grown =
          new AtomicReferenceArray<>(Math.max(index + 1, pages.length() + (pages.length() >> 1)));
      for (int i = 0; i < pages.length(); i++) {
        grown.setPlain(i, pages.get(i));
      }
      stamps = grown;
      pages = grown;
    }
    AtomicLongArray page = pages.get(index);
    if (page == null) {
      page = new AtomicLongArray(STAMPS_PER_PAGE);
      pages.set(index, page);
    }
    return page;
  }

  /** Writer only: the mapped chunk holding {@code id}, mapped (with those before it) if new. */
  private FloatBuffer chunkFor(int id) {
    if (id < 0) {
      throw new IllegalArgumentException("vector id " + id + " is negative");
    }
    int index = id / slotsPerChunk;
    FloatBuffer[] cs = chunks;
    if (index < cs.length) {
      return cs[index];
    }
    FloatBuffer[] grown = Arrays.copyOf(cs, index + 1);
    try {
      for (int i = cs.length; i <= index; i++) {
        grown[i] = map(i);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("mapping float vector slots in a scratch file failed", e);
    }
    chunks = grown;
    return grown[index];
  }

  private FloatBuffer map(int index) throws IOException {
    long bytes = (long) slotsPerChunk * dimension * Float.BYTES;
    long start = index * bytes;
    ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(bytes, 1 << 20));
    for (long at = 0; at < bytes; ) {
      zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
      at += channel.write(zeros, start + at);
    }
    return channel
        .map(FileChannel.MapMode.READ_WRITE, start, bytes)
        .order(ByteOrder.nativeOrder())
        .asFloatBuffer();
  }
}
