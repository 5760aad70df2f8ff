package org.searchlab.bench.data;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A persistent map from embedded text to its vector, so rebuilding a dataset does not run the model
 * again. Keyed by the SHA-256 of {@code model + '\0' + text}, so a different model or template
 * never hits an old entry.
 *
 * <p>File format ({@code embeddings-<model>-<dim>.bin}): a sequence of records, each 32 bytes of
 * SHA-256 then {@code dim} little-endian float32. Appended after every batch and flushed, so an
 * interrupted build keeps what it computed; a torn last record is ignored when loading.
 *
 * <p>Thread-safety: {@link #get} and {@link #put} are synchronized; the builder calls them from one
 * thread anyway.
 */
final class EmbeddingCache implements Closeable {
  private static final int KEY_BYTES = 32;

  /** A SHA-256 digest as a map key. */
  private record Key(byte[] digest) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && Arrays.equals(digest, k.digest);
    }

    @Override
    public int hashCode() {
      return (digest[0] & 0xff) << 24
          | (digest[1] & 0xff) << 16
          | (digest[2] & 0xff) << 8
          | (digest[3] & 0xff);
    }
  }

  private final String model;
  private final int dimension;
  private final Path file;
  private final Map<Key, float[]> vectors = new HashMap<>();
  private final OutputStream out;
  private final ByteBuffer record;

  private EmbeddingCache(String model, int dimension, Path file, OutputStream out) {
    this.model = model;
    this.dimension = dimension;
    this.file = file;
    this.out = out;
    this.record = ByteBuffer.allocate(KEY_BYTES + 4 * dimension).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Opens (creating if needed) the cache for one model in a directory. */
  static EmbeddingCache open(Path dir, String model, int dimension) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve("embeddings-" + model + "-" + dimension + ".bin");
    long valid = 0;
    EmbeddingCache cache;
    Map<Key, float[]> loaded = new HashMap<>();
    int recordBytes = KEY_BYTES + 4 * dimension;
    if (Files.exists(file)) {
      byte[] buf = new byte[recordBytes];
      try (InputStream raw = Files.newInputStream(file);
          DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(raw, 1 << 20))) {
        while (true) {
          try {
            in.readFully(buf);
          } catch (EOFException torn) {
            break;
          }
          ByteBuffer b = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
          byte[] key = new byte[KEY_BYTES];
          b.get(key);
          float[] v = new float[dimension];
          b.asFloatBuffer().get(v);
          loaded.put(new Key(key), v);
          valid += recordBytes;
        }
      }
      if (valid != Files.size(file)) {
        // Drop a record torn by an interrupted build so appends stay aligned.
        try (var ch = java.nio.channels.FileChannel.open(file, StandardOpenOption.WRITE)) {
          ch.truncate(valid);
        }
      }
    }
    OutputStream out =
        new BufferedOutputStream(
            Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
            1 << 16);
    cache = new EmbeddingCache(model, dimension, file, out);
    cache.vectors.putAll(loaded);
    return cache;
  }

  Path file() {
    return file;
  }

  synchronized int size() {
    return vectors.size();
  }

  /** The cached vector of a text, or {@code null}. */
  synchronized float[] get(String text) {
    return vectors.get(key(text));
  }

  /** Records a vector (kept in memory and appended to the file; call {@link #flush}). */
  synchronized void put(String text, float[] vector) throws IOException {
    if (vector.length != dimension) {
      throw new IllegalArgumentException(
          "vector of " + vector.length + " dimensions in a " + dimension + "-d cache");
    }
    Key key = key(text);
    if (vectors.putIfAbsent(key, vector) != null) {
      return;
    }
    record.clear();
    record.put(key.digest());
    for (float f : vector) {
      record.putFloat(f);
    }
    out.write(record.array(), 0, record.position());
  }

  synchronized void flush() throws IOException {
    out.flush();
  }

  private Key key(String text) {
    return new Key(DebianCatalogue.sha256(model + '\u0000' + text));
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
