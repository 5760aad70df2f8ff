package org.searchlab.testing.disk;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The file operations of a workload in the order the disk saw them, with the workload's markers
 * between them (design note of issue 70, §4.1): what {@link TraceReplayer} rebuilds crash states
 * from, with no live files. A trace starts on an empty disk ({@link ForgetfulFileSystem#record}),
 * so its prefixes are every state the disk went through.
 *
 * <p>{@link #save} and {@link #load} keep a trace in a file (length-prefixed binary), so a failing
 * crash state can be replayed without running the workload again.
 *
 * <p>Thread-safe: {@link #append} and the readers synchronize on the trace. The model appends under
 * its own lock, so the order here is the order of the operations.
 */
public final class FsTrace {
  private static final int MAGIC = 0x46535452; // "FSTR"
  private static final int VERSION = 1;

  private final List<FsOp> ops = new ArrayList<>();

  /** An empty trace, to hand to {@link ForgetfulFileSystem#record}. */
  public FsTrace() {}

  /** The number the next operation gets: its index. */
  synchronized long nextSeq() {
    return ops.size();
  }

  /** Appends {@code op}, whose {@link FsOp#seq()} must be {@link #nextSeq()}. */
  synchronized void append(FsOp op) {
    if (op.seq() != ops.size()) {
      throw new IllegalArgumentException(
          "operation " + op + " has sequence number " + op.seq() + ", expected " + ops.size());
    }
    ops.add(op);
  }

  /** The operations so far, in order; a copy. */
  public synchronized List<FsOp> ops() {
    return Collections.unmodifiableList(new ArrayList<>(ops));
  }

  /** How many operations the trace holds. */
  public synchronized int size() {
    return ops.size();
  }

  /**
   * For each prefix {@code p} (0 to {@link #size()}), the number of the last marker {@code "<kw>
   * <n>"} among the first {@code p} operations, or 0 if there is none: with the workload's {@code
   * "invoke k"} and {@code "ack k"}, how many operations were invoked and acknowledged before the
   * crash. Other markers are skipped.
   */
  public synchronized long[] markerValues(String keyword) {
    String prefix = keyword + " ";
    long[] out = new long[ops.size() + 1];
    long last = 0;
    for (int p = 0; p < ops.size(); p++) {
      out[p] = last;
      if (ops.get(p) instanceof FsOp.Marker m && m.label().startsWith(prefix)) {
        last = Long.parseLong(m.label().substring(prefix.length()).trim());
      }
    }
    out[ops.size()] = last;
    return out;
  }

  /** Writes this trace to {@code file} (on the default file system), replacing it. */
  public void save(Path file) throws IOException {
    List<FsOp> copy = ops();
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16))) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      out.writeInt(copy.size());
      for (FsOp op : copy) {
        write(out, op);
      }
    }
  }

  /** Reads a trace {@link #save} wrote. */
  public static FsTrace load(Path file) throws IOException {
    FsTrace t = new FsTrace();
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
      if (in.readInt() != MAGIC) {
        throw new IOException(file + " is not a file-operation trace");
      }
      int version = in.readInt();
      if (version != VERSION) {
        throw new IOException(
            file + " has trace format version " + version + "; this build reads " + VERSION);
      }
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        t.append(read(in, i));
      }
    }
    return t;
  }

  private static void write(DataOutputStream out, FsOp op) throws IOException {
    switch (op) {
      case FsOp.Write w -> {
        out.writeByte(0);
        out.writeUTF(w.thread());
        out.writeLong(w.inode());
        out.writeLong(w.offset());
        out.writeInt(w.bytes().length);
        out.write(w.bytes());
      }
      case FsOp.Truncate t -> {
        out.writeByte(1);
        out.writeUTF(t.thread());
        out.writeLong(t.inode());
        out.writeLong(t.size());
      }
      case FsOp.Force f -> {
        out.writeByte(2);
        out.writeUTF(f.thread());
        out.writeLong(f.inode());
      }
      case FsOp.Create c -> {
        out.writeByte(3);
        out.writeUTF(c.thread());
        out.writeLong(c.dir());
        out.writeUTF(c.name());
        out.writeLong(c.inode());
      }
      case FsOp.Mkdir m -> {
        out.writeByte(4);
        out.writeUTF(m.thread());
        out.writeLong(m.dir());
        out.writeUTF(m.name());
        out.writeLong(m.inode());
      }
      case FsOp.Rename r -> {
        out.writeByte(5);
        out.writeUTF(r.thread());
        out.writeLong(r.fromDir());
        out.writeUTF(r.from());
        out.writeLong(r.toDir());
        out.writeUTF(r.to());
        out.writeLong(r.inode());
        out.writeLong(r.replaced());
      }
      case FsOp.Unlink u -> {
        out.writeByte(6);
        out.writeUTF(u.thread());
        out.writeLong(u.dir());
        out.writeUTF(u.name());
        out.writeLong(u.inode());
      }
      case FsOp.DirForce d -> {
        out.writeByte(7);
        out.writeUTF(d.thread());
        out.writeLong(d.dir());
      }
      case FsOp.Marker m -> {
        out.writeByte(8);
        out.writeUTF(m.thread());
        out.writeUTF(m.label());
      }
    }
  }

  private static FsOp read(DataInputStream in, long seq) throws IOException {
    int kind = in.readByte();
    String thread = in.readUTF();
    return switch (kind) {
      case 0 -> {
        long inode = in.readLong();
        long offset = in.readLong();
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        yield new FsOp.Write(seq, thread, inode, offset, b);
      }
      case 1 -> new FsOp.Truncate(seq, thread, in.readLong(), in.readLong());
      case 2 -> new FsOp.Force(seq, thread, in.readLong());
      case 3 -> new FsOp.Create(seq, thread, in.readLong(), in.readUTF(), in.readLong());
      case 4 -> new FsOp.Mkdir(seq, thread, in.readLong(), in.readUTF(), in.readLong());
      case 5 ->
          new FsOp.Rename(
              seq,
              thread,
              in.readLong(),
              in.readUTF(),
              in.readLong(),
              in.readUTF(),
              in.readLong(),
              in.readLong());
      case 6 -> new FsOp.Unlink(seq, thread, in.readLong(), in.readUTF(), in.readLong());
      case 7 -> new FsOp.DirForce(seq, thread, in.readLong());
      case 8 -> new FsOp.Marker(seq, thread, in.readUTF());
      default -> throw new IOException("unknown operation kind " + kind + " at " + seq);
    };
  }
}
