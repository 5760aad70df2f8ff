package org.searchlab.testing.disk;

/**
 * One operation of a recorded {@link FsTrace}: a file operation as the {@link DiskModel} saw it, or
 * a {@link Marker} the workload put between them (design note of issue 70, §4.1). Inodes are the
 * model's numbers: a trace recorded from an empty disk allocates them in the same order when it is
 * replayed, so a replay can check it is in step. Immutable by convention: a {@link Write}'s bytes
 * are shared with the model and never changed.
 */
public sealed interface FsOp
    permits FsOp.Write,
        FsOp.Truncate,
        FsOp.Force,
        FsOp.Create,
        FsOp.Mkdir,
        FsOp.Rename,
        FsOp.Unlink,
        FsOp.DirForce,
        FsOp.Marker {
  /** The global sequence number: the operation's index in its trace. */
  long seq();

  /** The name of the thread that issued it. */
  String thread();

  /** {@code bytes} written at {@code offset} of file {@code inode}. */
  record Write(long seq, String thread, long inode, long offset, byte[] bytes) implements FsOp {
    @Override
    public String toString() {
      return seq
          + " "
          + thread
          + ": write inode "
          + inode
          + " ["
          + offset
          + ", "
          + (offset + bytes.length)
          + ")";
    }
  }

  /** File {@code inode} cut (or extended) to {@code size} bytes. */
  record Truncate(long seq, String thread, long inode, long size) implements FsOp {}

  /** A force ({@code fsync}) of file {@code inode}, through any of its channels. */
  record Force(long seq, String thread, long inode) implements FsOp {}

  /** A new empty file {@code inode} named {@code name} in directory {@code dir}. */
  record Create(long seq, String thread, long dir, String name, long inode) implements FsOp {}

  /** A new directory {@code inode} named {@code name} in directory {@code dir}. */
  record Mkdir(long seq, String thread, long dir, String name, long inode) implements FsOp {}

  /**
   * {@code inode} renamed from {@code from} in {@code fromDir} to {@code to} in {@code toDir},
   * replacing the inode {@code replaced} that {@code to} named, or −1.
   */
  record Rename(
      long seq,
      String thread,
      long fromDir,
      String from,
      long toDir,
      String to,
      long inode,
      long replaced)
      implements FsOp {}

  /** The entry {@code name} of directory {@code dir}, which named {@code inode}, removed. */
  record Unlink(long seq, String thread, long dir, String name, long inode) implements FsOp {}

  /** A force of directory {@code dir}: its entry changes so far become durable. */
  record DirForce(long seq, String thread, long dir) implements FsOp {}

  /**
   * A workload event between file operations, such as {@code "invoke 17"} before the 17th operation
   * and {@code "ack 17"} after it returned ({@link FsTrace#markerValues}).
   */
  record Marker(long seq, String thread, String label) implements FsOp {}
}
