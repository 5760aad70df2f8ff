package org.searchlab.core;

import java.io.Closeable;
import java.io.IOException;
import java.io.StringReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Properties;
import org.searchlab.core.io.Durable;

/**
 * A store's claim on its data directory: an exclusive OS lock on {@value #LOCK_FILE} held while the
 * store is open (as Lucene's {@code write.lock} and Elasticsearch's {@code node.lock}), and an
 * ownership marker {@value #MARKER_FILE} naming the store kind, the schema and the format version.
 * A second process on the same directory, a store of the other kind, another schema or a newer
 * format is refused with a message that says which, before anything in the directory is read or
 * written. The OS drops the lock when the process dies, so a crash never leaves it stale.
 *
 * <p>A directory written before markers existed is recognised by its files (a Lucene {@code index/}
 * directory is the segmented store's, snapshot files are the mutable store's) and gets its marker
 * on first open.
 *
 * <p>Thread-safe: immutable once acquired; {@link #close()} is idempotent.
 */
public final class DataDirectory implements Closeable {
  public static final String LOCK_FILE = "store.lock";
  public static final String MARKER_FILE = "store.properties";

  private final Path dir;
  private final FileChannel channel;
  private final FileLock lock;

  private DataDirectory(Path dir, FileChannel channel, FileLock lock) {
    this.dir = dir;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code dir} (created if missing) for a store of {@code kind} with {@code schema} and data
   * format {@code format}, checking or writing its marker.
   *
   * @throws DirectoryInUseException if another store holds the directory, or it belongs to another
   *     kind, schema or a newer format
   */
  public static DataDirectory acquire(Path dir, String kind, Schema schema, int format)
      throws IOException {
    return acquire(dir, kind, schema.dimension(), format);
  }

  /**
   * Locks {@code dir} for a store of {@code kind} and data format {@code format}, whatever its
   * mapping: the mapping is the store's own file ({@link org.searchlab.core.mapping.IndexMapping}),
   * which refuses a conflicting one when it opens.
   */
  public static DataDirectory acquire(Path dir, String kind, int format) throws IOException {
    return acquire(dir, kind, 0, format);
  }

  /** The lock and the marker; {@code dimension} 0 checks no dimension. */
  private static DataDirectory acquire(Path dir, String kind, int dimension, int format)
      throws IOException {
    // Durably, so a power cut cannot take back the store's directory with everything in it (R1).
    Durable.createDirectories(dir);
    FileChannel ch =
        FileChannel.open(
            dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held by this JVM
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    if (lock == null) {
      ch.close();
      throw new DirectoryInUseException(
          "data directory "
              + dir.toAbsolutePath()
              + " is in use by another running store (it holds "
              + LOCK_FILE
              + "); stop it or choose another data directory");
    }
    DataDirectory d = new DataDirectory(dir, ch, lock);
    try {
      d.checkMarker(kind, dimension, format);
    } catch (IOException | RuntimeException e) {
      d.close();
      throw e;
    }
    return d;
  }

  private void checkMarker(String kind, int dimension, int format) throws IOException {
    Path marker = dir.resolve(MARKER_FILE);
    if (Files.exists(marker)) {
      Properties p = new Properties();
      p.load(new StringReader(Files.readString(marker, StandardCharsets.UTF_8)));
      String owner = p.getProperty("store", "?");
      String dims = p.getProperty("dimension", "?");
      int theirs = Integer.parseInt(p.getProperty("format", "0"));
      if (!owner.equals(kind)) {
        throw refused(
            "belongs to a "
                + owner
                + " store"
                + (dims.equals("?") ? "" : " (" + dims + " dimensions)"),
            kind);
      }
      if (dimension > 0 && !dims.equals("?") && !dims.equals(Integer.toString(dimension))) {
        throw refused("holds " + dims + " dimensional embeddings, not " + dimension, kind);
      }
      if (theirs > format) {
        throw refused(
            "was written in format " + theirs + "; this build reads up to " + format, kind);
      }
      return;
    }
    String inferred = inferOwner();
    if (inferred != null && !inferred.equals(kind)) {
      throw refused("holds a " + inferred + " store's files", kind);
    }
    String text =
        "# The store that owns this directory; searchlab refuses to open it as anything else.\n"
            + "store="
            + kind
            + (dimension > 0 ? "\ndimension=" + dimension : "")
            + "\nformat="
            + format
            + "\n";
    Path tmp = dir.resolve(MARKER_FILE + ".tmp");
    try (FileChannel out =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      out.write(java.nio.ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
      out.force(true);
    }
    Files.move(tmp, marker, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Durable.forceDirectory(dir);
  }

  /** The kind a directory without a marker holds, from its files, or null when it holds none. */
  private String inferOwner() throws IOException {
    if (Files.isDirectory(dir.resolve("index"))) {
      return "segmented";
    }
    try (var files = Files.list(dir)) {
      if (files.anyMatch(
          f -> {
            String n = f.getFileName().toString();
            return n.startsWith("snapshot-") || n.startsWith("graph-");
          })) {
        return "mutable";
      }
    }
    return null;
  }

  private DirectoryInUseException refused(String why, String kind) {
    return new DirectoryInUseException(
        "data directory "
            + dir.toAbsolutePath()
            + " "
            + why
            + "; it cannot be opened as a "
            + kind
            + " store with this schema. Use the store and settings that wrote it, or another data"
            + " directory");
  }

  /** Releases the lock; idempotent. */
  @Override
  public void close() throws IOException {
    if (channel.isOpen()) {
      try {
        lock.release();
      } finally {
        channel.close();
      }
    }
  }

  /** The directory is held by another store, or belongs to another kind, schema or format. */
  public static final class DirectoryInUseException extends IOException {
    private static final long serialVersionUID = 1L;

    public DirectoryInUseException(String message) {
      super(message);
    }
  }
}
