package org.searchlab.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * A storage-fault injector for the write-ahead log: a {@link WriteAheadLog.FileOpener} whose
 * channels are real files that fail on command, as a full disk or a failing device would. Writes
 * fail once a byte budget is spent (the write that crosses it lands part-way first, as a short
 * write before {@code ENOSPC} does), and {@code force} fails while {@link #failForce} is set.
 * Truncation keeps working (a full disk still frees space), unless {@link #failTruncate} is set.
 *
 * <p>Thread-safe: the switches are atomics, and each channel delegates to a real {@link
 * FileChannel}.
 */
public final class FaultyFiles implements WriteAheadLog.FileOpener {
  /** Bytes that may still be written before writes fail; {@code Long.MAX_VALUE} for no limit. */
  public final AtomicLong writeBudget = new AtomicLong(Long.MAX_VALUE);

  /** While set, every {@code force} throws. */
  public final AtomicBoolean failForce = new AtomicBoolean();

  /** While set, every {@code truncate} throws. */
  public final AtomicBoolean failTruncate = new AtomicBoolean();

  /** How many writes and forces failed. */
  public final AtomicLong failures = new AtomicLong();

  /** Channels opened through this opener and not closed yet (a leak shows here). */
  public final AtomicLong openChannels = new AtomicLong();

  @Override
  public FileChannel open(Path file, OpenOption... options) throws IOException {
    FileChannel channel = new Channel(FileChannel.open(file, options));
    openChannels.incrementAndGet();
    return channel;
  }

  private final class Channel extends FileChannel {
    private final FileChannel in;

    Channel(FileChannel in) {
      this.in = in;
    }

    private int budgeted(ByteBuffer src, IoInt write) throws IOException {
      long budget = writeBudget.get();
      if (budget <= 0) {
        failures.incrementAndGet();
        throw new IOException("No space left on device (injected)");
      }
      if (src.remaining() > budget) {
        int limit = src.limit();
        src.limit(src.position() + (int) budget);
        int n = write.get();
        src.limit(limit);
        writeBudget.addAndGet(-n);
        return n; // a short write; the caller's next write finds the budget spent
      }
      int n = write.get();
      writeBudget.addAndGet(-n);
      return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return budgeted(src, () -> in.write(src));
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      return budgeted(src, () -> in.write(src, position));
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      long n = 0;
      for (int i = offset; i < offset + length; i++) {
        n += write(srcs[i]);
      }
      return n;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      if (failForce.get()) {
        failures.incrementAndGet();
        throw new IOException("Input/output error (injected fsync failure)");
      }
      in.force(metaData);
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      if (failTruncate.get()) {
        throw new IOException("Input/output error (injected truncate failure)");
      }
      in.truncate(size);
      return this;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return in.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return in.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return in.read(dst, position);
    }

    @Override
    public long position() throws IOException {
      return in.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      in.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return in.size();
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return in.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      throw new UnsupportedOperationException("transferFrom bypasses the write budget");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      throw new UnsupportedOperationException("mapping bypasses the fault injection");
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return in.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return in.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      openChannels.decrementAndGet();
      in.close();
    }
  }

  private interface IoInt {
    int get() throws IOException;
  }
}
