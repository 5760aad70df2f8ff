package org.searchlab.mutable.snapshot;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;
import org.searchlab.core.io.Durable;

/**
 * Names, writes and verifies snapshot files: {@code snapshot-<serial>.bin} holding a magic number,
 * a format version, the serial, the body, and a CRC-32C of all of it as the last four bytes.
 *
 * <p>Stateless and thread-safe; callers serialise writes to one directory.
 */
public final class SnapshotFiles {
  /** "SLMS": searchlab mutable snapshot. */
  private static final int MAGIC = 0x534C4D53;

  /** The body format version; bump it when the layout changes. */
  public static final int VERSION = 1;

  private SnapshotFiles() {}

  /** Writes a snapshot body. */
  @FunctionalInterface
  public interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  /** Reads a snapshot body. */
  @FunctionalInterface
  public interface Reader {
    void read(DataInput in) throws IOException;
  }

  public static Path mainFile(Path dir, long serial) {
    return dir.resolve(String.format("snapshot-%020d.bin", serial));
  }

  public static Path graphFile(Path dir, long serial) {
    return dir.resolve(String.format("graph-%020d.bin", serial));
  }

  /**
   * Writes {@code body} to {@code snapshot-<serial>.bin} atomically (temporary file, fsync, rename,
   * directory fsync), then deletes older snapshot and graph files.
   */
  public static void write(Path dir, long serial, Body body) throws IOException {
    Path tmp = dir.resolve("snapshot.tmp");
    CRC32C crc = new CRC32C();
    try (FileChannel ch =
            FileChannel.open(
                tmp,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        OutputStream raw = Channels.newOutputStream(ch)) {
      BufferedOutputStream buffered = new BufferedOutputStream(raw, 1 << 16);
      DataOutputStream out = new DataOutputStream(new CheckedOutputStream(buffered, crc));
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      out.writeLong(serial);
      body.write(out);
      out.flush();
      new DataOutputStream(buffered).writeInt((int) crc.getValue());
      buffered.flush();
      ch.force(true);
    }
    Files.move(
        tmp,
        mainFile(dir, serial),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    Durable.forceDirectory(dir);
    for (Path p : list(dir, "snapshot-*.bin")) {
      if (serialOf(p) < serial) {
        Files.deleteIfExists(p);
      }
    }
    for (Path p : list(dir, "graph-*.bin")) {
      if (serialOf(p) < serial) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The serial of the newest snapshot in {@code dir}, or −1 when there is none. */
  public static long newestSerial(Path dir) throws IOException {
    long best = -1;
    for (Path p : list(dir, "snapshot-*.bin")) {
      best = Math.max(best, serialOf(p));
    }
    return best;
  }

  /**
   * Verifies the checksum of {@code snapshot-<serial>.bin}, then reads its body.
   *
   * @throws IOException if the file is damaged, has another magic number or version
   */
  public static void read(Path dir, long serial, Reader reader) throws IOException {
    Path file = mainFile(dir, serial);
    long size = Files.size(file);
    if (size < 20) {
      throw new IOException("snapshot " + file + " is only " + size + " bytes");
    }
    CRC32C crc = new CRC32C();
    try (InputStream in =
        new CheckedInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16), crc)) {
      in.skipNBytes(size - 4);
    }
    int stored;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4);
      ch.read(b, size - 4);
      stored = b.flip().getInt();
    }
    if (stored != (int) crc.getValue()) {
      throw new IOException("snapshot " + file + " fails its CRC-32C check");
    }
    // The body is read in large chunks (ChannelInput): per-value reads through a buffered stream
    // cost a lock each, and a large index's postings are hundreds of millions of values.
    try (ChannelInput in = new ChannelInput(file)) {
      if (in.readInt() != MAGIC) {
        throw new IOException(file + " is not a mutable index snapshot");
      }
      int version = in.readInt();
      if (version != VERSION) {
        throw new IOException(
            "snapshot "
                + file
                + " has format version "
                + version
                + "; this build reads "
                + VERSION);
      }
      long s = in.readLong();
      if (s != serial) {
        throw new IOException("snapshot " + file + " holds serial " + s);
      }
      reader.read(in);
    }
  }

  static long serialOf(Path p) {
    String name = p.getFileName().toString();
    return Long.parseLong(name.substring(name.indexOf('-') + 1, name.length() - 4));
  }

  private static List<Path> list(Path dir, String glob) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, glob)) {
      ds.forEach(out::add);
    }
    return out;
  }
}
