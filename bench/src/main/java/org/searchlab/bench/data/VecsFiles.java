package org.searchlab.bench.data;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Reading and writing the TEXMEX {@code .fvecs} / {@code .ivecs} formats: per record a
 * little-endian int32 count, then that many little-endian float32 or int32 values. Stateless;
 * writers are single-threaded.
 */
final class VecsFiles {
  private VecsFiles() {}

  /** A sequential writer of fvecs or ivecs records. Not thread-safe. */
  static final class Writer implements Closeable {
    private final OutputStream out;
    private ByteBuffer buffer = ByteBuffer.allocate(4 * 1024).order(ByteOrder.LITTLE_ENDIAN);

    Writer(Path file) throws IOException {
      this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
    }

    private ByteBuffer buffer(int values) {
      int bytes = 4 * (values + 1);
      if (buffer.capacity() < bytes) {
        buffer = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
      }
      buffer.clear();
      buffer.putInt(values);
      return buffer;
    }

    void write(float[] values) throws IOException {
      ByteBuffer b = buffer(values.length);
      for (float v : values) {
        b.putFloat(v);
      }
      out.write(b.array(), 0, b.position());
    }

    void write(int[] values) throws IOException {
      ByteBuffer b = buffer(values.length);
      for (int v : values) {
        b.putInt(v);
      }
      out.write(b.array(), 0, b.position());
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  /** A sequential reader of fvecs records. Not thread-safe. */
  static final class Reader implements Closeable {
    private final Path file;
    private final java.io.DataInputStream in;
    private byte[] bytes = new byte[0];

    Reader(Path file) throws IOException {
      this.file = file;
      this.in =
          new java.io.DataInputStream(
              new java.io.BufferedInputStream(Files.newInputStream(file), 1 << 16));
    }

    /** The next record; fails at the end of the file. */
    float[] next() throws IOException {
      byte[] head = new byte[4];
      in.readFully(head);
      int n = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN).getInt();
      if (n < 0 || n > 1 << 20) {
        throw new IOException(file + ": implausible record length " + n);
      }
      if (bytes.length != 4 * n) {
        bytes = new byte[4 * n];
      }
      in.readFully(bytes);
      float[] v = new float[n];
      ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
      return v;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  /** Reads every record of an ivecs file (small files: ground truth). */
  static int[][] readIvecs(Path file) throws IOException {
    ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    List<int[]> records = new ArrayList<>();
    while (all.hasRemaining()) {
      int[] r = new int[count(file, all)];
      for (int i = 0; i < r.length; i++) {
        r[i] = all.getInt();
      }
      records.add(r);
    }
    return records.toArray(new int[0][]);
  }

  /** Reads every record of an fvecs file into memory (small files: ground-truth scores). */
  static float[][] readFvecs(Path file) throws IOException {
    ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    List<float[]> records = new ArrayList<>();
    while (all.hasRemaining()) {
      float[] r = new float[count(file, all)];
      for (int i = 0; i < r.length; i++) {
        r[i] = all.getFloat();
      }
      records.add(r);
    }
    return records.toArray(new float[0][]);
  }

  private static int count(Path file, ByteBuffer all) throws IOException {
    int n = all.getInt();
    if (n < 0 || 4L * n > all.remaining()) {
      throw new IOException(file + " is truncated or not an fvecs/ivecs file: record of " + n);
    }
    return n;
  }

  /**
   * Random access to a file of fixed-dimension fvecs records by positional reads. Thread-safe: a
   * {@link FileChannel} positional read does not move a shared position.
   */
  static final class VectorFile implements Closeable {
    private final Path file;
    private final FileChannel channel;
    private final int dimension;
    private final int count;

    VectorFile(Path file) throws IOException {
      this.file = file;
      this.channel = FileChannel.open(file, StandardOpenOption.READ);
      long size = channel.size();
      if (size == 0) {
        dimension = 0;
        count = 0;
        return;
      }
      ByteBuffer head = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      channel.read(head, 0);
      dimension = head.getInt(0);
      long record = 4L * (dimension + 1);
      if (dimension <= 0 || size % record != 0 || size / record > Integer.MAX_VALUE) {
        throw new IOException(
            file + ": size " + size + " is not a whole number of " + dimension + "-d records");
      }
      count = (int) (size / record);
    }

    int dimension() {
      return dimension;
    }

    int count() {
      return count;
    }

    float[] read(int ordinal) {
      if (ordinal < 0 || ordinal >= count) {
        throw new IndexOutOfBoundsException("vector " + ordinal + " of " + count);
      }
      ByteBuffer b = ByteBuffer.allocate(4 * (dimension + 1)).order(ByteOrder.LITTLE_ENDIAN);
      long pos = (long) ordinal * b.capacity();
      try {
        while (b.hasRemaining()) {
          int n = channel.read(b, pos + b.position());
          if (n < 0) {
            throw new IOException(file + " ended inside vector " + ordinal);
          }
        }
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      b.flip();
      int dim = b.getInt();
      if (dim != dimension) {
        throw new java.io.UncheckedIOException(
            new IOException(file + ": vector " + ordinal + " has dimension " + dim));
      }
      float[] v = new float[dimension];
      b.asFloatBuffer().get(v);
      return v;
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
