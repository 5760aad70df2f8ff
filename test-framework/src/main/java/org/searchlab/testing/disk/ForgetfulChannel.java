package org.searchlab.testing.disk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/**
 * A channel of a {@link ForgetfulFileSystem}: a real file channel whose writes, truncations and
 * forces are also told to the {@link DiskModel}. A channel on a directory (opened with {@code READ}
 * to fsync it) forces the directory's entry changes.
 *
 * <p>Thread-safe as a {@link FileChannel} is. Each write, truncation and force holds the model's
 * monitor while it delegates and records, so it is atomic with respect to a cut; reads only check
 * that the power is still on. Memory mappings are delegated and bypass the model: only scratch
 * files that are not durable state may be mapped for writing. {@code transferFrom} is refused for
 * the same reason, as {@code FaultyFiles} refuses it.
 */
final class ForgetfulChannel extends FileChannel {
  private final FileChannel in;
  private final ForgetfulFileSystem fs;
  private final Path path;
  private final DiskModel model;
  private final long inode;
  private final boolean directory;
  private final boolean append;
  private final boolean realFsync;

  ForgetfulChannel(
      FileChannel in,
      ForgetfulFileSystem fs,
      Path path,
      DiskModel model,
      long inode,
      boolean directory,
      boolean append,
      boolean realFsync) {
    this.in = in;
    this.fs = fs;
    this.path = path;
    this.model = model;
    this.inode = inode;
    this.directory = directory;
    this.append = append;
    this.realFsync = realFsync;
  }

  /**
   * Tells the model about the {@code n} bytes of {@code src} from {@code from} written at {@code
   * at}.
   */
  private void record(long at, ByteBuffer src, int from, int n) throws IOException {
    if (n > 0) {
      byte[] bytes = new byte[n];
      src.duplicate().position(from).get(bytes);
      model.write(inode, at, bytes);
    }
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    synchronized (model) {
      model.checkNotCut();
      long at = append ? in.size() : in.position();
      int from = src.position();
      int n = in.write(src);
      record(at, src, from, n);
      return n;
    }
  }

  @Override
  public int write(ByteBuffer src, long position) throws IOException {
    synchronized (model) {
      model.checkNotCut();
      int from = src.position();
      int n = in.write(src, position);
      record(position, src, from, n);
      return n;
    }
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    // One write a buffer, all under the monitor: the gathering write stays atomic for a cut.
    synchronized (model) {
      long n = 0;
      for (int i = offset; i < offset + length; i++) {
        n += write(srcs[i]);
        if (srcs[i].hasRemaining()) {
          break; // a short write: the caller writes the rest
        }
      }
      return n;
    }
  }

  @Override
  public FileChannel truncate(long size) throws IOException {
    synchronized (model) {
      model.checkNotCut();
      long before = in.size();
      in.truncate(size);
      if (size < before) {
        model.truncate(inode, size);
      }
      return this;
    }
  }

  @Override
  public void force(boolean metaData) throws IOException {
    synchronized (model) {
      model.checkNotCut();
      if (fs.forceFails(path)) {
        // A failed fsync: nothing it would have made durable becomes so (the model records no
        // force), as a kernel that could not write the pages back leaves them.
        throw new IOException("Input/output error (injected fsync failure of " + path + ")");
      }
      if (realFsync) {
        in.force(metaData);
      }
      if (directory) {
        model.forceDirectory(inode);
      } else {
        model.force(inode);
      }
    }
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    model.checkNotCut();
    return in.read(dst);
  }

  @Override
  public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
    model.checkNotCut();
    return in.read(dsts, offset, length);
  }

  @Override
  public int read(ByteBuffer dst, long position) throws IOException {
    model.checkNotCut();
    return in.read(dst, position);
  }

  @Override
  public long position() throws IOException {
    model.checkNotCut();
    return in.position();
  }

  @Override
  public FileChannel position(long newPosition) throws IOException {
    model.checkNotCut();
    in.position(newPosition);
    return this;
  }

  @Override
  public long size() throws IOException {
    model.checkNotCut();
    return in.size();
  }

  @Override
  public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
    model.checkNotCut();
    // A forgetful target is no FileChannelImpl, so the JDK copies through target.write: modelled.
    return in.transferTo(position, count, target);
  }

  @Override
  public long transferFrom(ReadableByteChannel src, long position, long count) {
    throw new UnsupportedOperationException("transferFrom would bypass the disk model");
  }

  @Override
  public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
    model.checkNotCut();
    return in.map(mode, position, size);
  }

  @Override
  public FileLock lock(long position, long size, boolean shared) throws IOException {
    model.checkNotCut(); // not under the monitor: a blocked lock must not stop the disk
    return in.lock(position, size, shared);
  }

  @Override
  public FileLock tryLock(long position, long size, boolean shared) throws IOException {
    model.checkNotCut();
    return in.tryLock(position, size, shared);
  }

  @Override
  protected void implCloseChannel() throws IOException {
    in.close(); // also after a cut: an abandoned store must still be able to release its files
  }
}
