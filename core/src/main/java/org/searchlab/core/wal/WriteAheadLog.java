// Over 500 lines: append, group sync, rolling, trim and replay share one lock protocol.
package org.searchlab.core.wal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;
import org.searchlab.core.io.Durable;

/**
 * An append-only log of opaque records with consecutive serial numbers, a CRC-32C each, group
 * commit, replay from a serial and trimming up to a flushed serial.
 *
 * <p>Record layout, little-endian: {@code int length | long serial | byte[length] payload | int
 * crc}, the CRC covering length, serial and payload. Files are named {@code wal-<first
 * serial>.log}, so an empty newest file still tells the next serial after a trim.
 *
 * <p>Thread-safe. Writers call {@link #write} (serial order = file order) and then {@link #sync};
 * {@link #append} does both. Under {@link SyncPolicy#REQUEST}, {@code sync} returns once the record
 * is on disk; concurrent callers share fsyncs: one leader fsyncs everything written so far, and the
 * callers queued behind it find their serial already covered. {@link #replay} is for opening,
 * before writes start.
 *
 * <p>Fail-stop: when a write, an fsync or a roll fails, the log records the failure and refuses
 * every later write, sync and trim with {@link WalFailedException} until it is reopened. A failed
 * write leaves at most an unacknowledged torn tail (cut back at once if the file system allows,
 * else by {@link #open}), never garbage with acknowledged records after it; a failed fsync is never
 * followed by one that could report pages the kernel already dropped as durable. {@link #open} cuts
 * only a torn tail: damage followed by a valid record is corruption and is refused, unless it is a
 * zero-filled page that a power cut left in writes that were never forced, followed only by valid
 * records of the newest file (see {@code isUnforcedHole}).
 *
 * <p>Files are opened through a {@link FileOpener}, so tests can inject storage faults.
 */
public final class WriteAheadLog implements Closeable {
  private static final int HEADER = 4 + 8;
  private static final int TRAILER = 4;

  /** The unit in which writeback persists data, so the unit a power cut loses out of order. */
  private static final int PAGE = 4096;

  /** A sanity bound on one record; a larger length field is damage, not data. */
  public static final int MAX_RECORD_BYTES = 256 << 20;

  private final Path dir;
  private final WalConfig config;
  private final ReentrantLock writeLock = new ReentrantLock();
  private final ReentrantLock syncLock = new ReentrantLock();
  private final AtomicLong syncedSerial = new AtomicLong();
  private final AtomicLong fsyncs = new AtomicLong();
  private final AtomicLong writtenBytes = new AtomicLong();
  private final ScheduledExecutorService asyncSyncer;
  private final FileOpener opener;
  private volatile IOException failure;

  // Guarded by writeLock.
  private FileChannel current;
  private long currentFirstSerial;
  private long currentBytes;
  private long writtenSerial;
  private boolean closed;

  private WriteAheadLog(Path dir, WalConfig config, FileOpener opener) {
    this.dir = dir;
    this.config = config;
    this.opener = opener;
    if (config.syncPolicy() == SyncPolicy.ASYNC) {
      asyncSyncer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "wal-async-sync " + dir.getFileName());
                t.setDaemon(true);
                syncerThread = t;
                return t;
              });
      long ms = config.asyncInterval().toMillis();
      asyncSyncer.scheduleWithFixedDelay(this::syncQuietly, ms, ms, TimeUnit.MILLISECONDS);
    } else {
      asyncSyncer = null;
    }
  }

  /**
   * Opens (or creates) the log in {@code dir}: checks every file, cuts a torn or corrupt tail off
   * the newest file, and positions for appending after the last valid record.
   *
   * @throws CorruptWalException if a file other than the newest is damaged, or serials have a gap
   */
  public static WriteAheadLog open(Path dir, WalConfig config) throws IOException {
    return open(dir, config, FileChannel::open);
  }

  /** {@link #open(Path, WalConfig)} with the log's files opened through {@code opener}. */
  public static WriteAheadLog open(Path dir, WalConfig config, FileOpener opener)
      throws IOException {
    // Durably: the log forces its own directory, never the parent that holds its name (R1).
    Durable.createDirectories(dir);
    WriteAheadLog wal = new WriteAheadLog(dir, config, opener);
    List<Path> files = listFiles(dir);
    long next = 1;
    for (int i = 0; i < files.size(); i++) {
      Path f = files.get(i);
      long first = firstSerialOf(f);
      if (i > 0 && first < next) {
        // A later file may start past the previous one's end (advanceTo), never inside it.
        throw new CorruptWalException(
            "WAL file "
                + f
                + " starts at serial "
                + first
                + " but the previous ended at "
                + (next - 1));
      }
      Scan scan = scan(f, first);
      boolean newest = i == files.size() - 1;
      if (scan.damage != null) {
        long later = validRecordAfter(f, scan.validBytes, first + scan.records);
        if (newest && later >= 0 && isUnforcedHole(f, scan.validBytes, later)) {
          // A power cut lost a page of writes that were never forced; what follows the hole was
          // never acknowledged under REQUEST (a force covers the whole file), so it is a torn tail.
          later = -1;
        }
        if (!newest || later >= 0) {
          String what =
              later >= 0
                  ? "; a valid record follows at byte " + later + ", so this is not a torn tail"
                  : "";
          throw new CorruptWalException(
              "WAL file "
                  + f
                  + " is damaged at byte "
                  + scan.validBytes
                  + ": "
                  + scan.damage
                  + what);
        }
        // A crash mid-write leaves a partial record; cut it so it is never replayed.
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
          ch.truncate(scan.validBytes);
          ch.force(true);
        }
      }
      next = first + scan.records;
    }
    wal.writeLock.lock();
    try {
      if (files.isEmpty()) {
        wal.openFile(1);
      } else {
        Path last = files.get(files.size() - 1);
        wal.current = opener.open(last, StandardOpenOption.WRITE, StandardOpenOption.READ);
        wal.currentFirstSerial = firstSerialOf(last);
        wal.currentBytes = wal.current.size();
        wal.current.position(wal.currentBytes);
      }
      wal.writtenSerial = next - 1;
      wal.syncedSerial.set(next - 1);
    } finally {
      wal.writeLock.unlock();
    }
    return wal;
  }

  /** The settings this log was opened with. */
  public WalConfig config() {
    return config;
  }

  /**
   * Writes one record and waits until it is durable under the sync policy.
   *
   * @return its serial
   */
  public long append(byte[] payload) throws IOException {
    long serial = write(payload);
    sync(serial);
    return serial;
  }

  /**
   * Writes one record to the OS without waiting for durability; follow with {@link #sync}.
   *
   * @return its serial
   */
  public long write(byte[] payload) throws IOException {
    return writeAll(List.of(payload));
  }

  /**
   * Writes records with consecutive serials, in one system call where they fit; follow with {@link
   * #sync}.
   *
   * @return the serial of the last; the first is {@code last − payloads.size() + 1}
   */
  public long writeAll(List<byte[]> payloads) throws IOException {
    if (payloads.isEmpty()) {
      throw new IllegalArgumentException("nothing to write");
    }
    int total = 0;
    for (byte[] p : payloads) {
      if (p.length > MAX_RECORD_BYTES) {
        throw new IllegalArgumentException(
            "WAL record of " + p.length + " bytes exceeds the limit " + MAX_RECORD_BYTES);
      }
      total += HEADER + p.length + TRAILER;
    }
    writeLock.lock();
    try {
      ensureWritable();
      try {
        if (currentBytes >= config.fileBytes()) {
          roll(writtenSerial + 1);
        }
      } catch (IOException | RuntimeException e) {
        throw fail("rolling to a new file", e);
      }
      ByteBuffer buf = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
      long serial = writtenSerial;
      CRC32C crc = new CRC32C();
      for (byte[] p : payloads) {
        serial++;
        int start = buf.position();
        buf.putInt(p.length).putLong(serial).put(p);
        crc.reset();
        crc.update(buf.array(), start, HEADER + p.length);
        buf.putInt((int) crc.getValue());
      }
      buf.flip();
      try {
        while (buf.hasRemaining()) {
          current.write(buf);
        }
      } catch (IOException | RuntimeException e) {
        WalFailedException stop = fail("writing serials " + (writtenSerial + 1) + "–" + serial, e);
        try {
          // Cut the torn records back off; if this fails too, open() cuts them.
          current.truncate(currentBytes);
        } catch (IOException | RuntimeException t) {
          stop.addSuppressed(t);
        }
        throw stop;
      }
      currentBytes += total;
      writtenBytes.addAndGet(total);
      writtenSerial = serial;
      return serial;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Waits until {@code serial} is durable under the sync policy: under {@code REQUEST} fsyncs
   * (sharing the fsync with concurrent callers); under {@code ASYNC} returns at once.
   */
  public void sync(long serial) throws IOException {
    if (config.syncPolicy() == SyncPolicy.REQUEST) {
      syncThrough(serial);
    }
  }

  /** Fsyncs now, whatever the policy, through everything written so far. */
  public void syncAll() throws IOException {
    long target;
    writeLock.lock();
    try {
      ensureWritable();
      target = writtenSerial;
    } finally {
      writeLock.unlock();
    }
    syncThrough(target);
  }

  private void syncThrough(long serial) throws IOException {
    // Group commit, step by step:
    // 1. a caller whose serial is already covered returns without touching the disk;
    // 2. otherwise it queues on syncLock; the holder (the leader) fsyncs;
    // 3. the leader snapshots writtenSerial *before* the fsync, so everything up to that snapshot
    //    is in the page cache of this file (or of an older file that roll() already fsynced);
    // 4. after the fsync it publishes the snapshot, and every caller queued behind it with a
    //    serial ≤ snapshot returns at step 1 of its re-check without another fsync.
    if (syncedSerial.get() >= serial) {
      return;
    }
    syncLock.lock();
    try {
      if (syncedSerial.get() >= serial) {
        return;
      }
      FileChannel ch;
      long target;
      writeLock.lock();
      try {
        ensureWritable();
        ch = current;
        target = writtenSerial;
      } finally {
        writeLock.unlock();
      }
      try {
        ch.force(false);
        fsyncs.incrementAndGet();
      } catch (ClosedChannelException e) {
        // roll() closed this file after fsyncing it itself; it published the synced serial.
        if (syncedSerial.get() < serial) {
          ensureWritable(); // closed by a failure or by close(): say which
          throw e;
        }
        return;
      } catch (IOException | RuntimeException e) {
        throw fail("fsyncing through serial " + target, e);
      }
      syncedSerial.accumulateAndGet(target, Math::max);
    } finally {
      syncLock.unlock();
    }
  }

  private void syncQuietly() {
    try {
      syncAll();
    } catch (IOException | IllegalStateException e) {
      // A failed fsync stopped the log (fail()); writers now get the failure. Closed: nothing to
      // do.
    }
  }

  /**
   * Records the first failure and stops the log: every later write, sync and trim throws. Returns
   * the exception to throw now.
   */
  private WalFailedException fail(String what, Throwable e) {
    IOException first;
    synchronized (this) {
      if (failure == null) {
        failure = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
      }
      first = failure;
    }
    return new WalFailedException(
        "write-ahead log in " + dir + " failed " + what + " and has stopped: " + e, first);
  }

  /**
   * The failure that stopped this log, if one did: from then on it refuses writes until reopened.
   */
  public java.util.Optional<IOException> failure() {
    return java.util.Optional.ofNullable(failure);
  }

  /**
   * Calls {@code consumer} for every record with a serial greater than {@code afterSerial}, in
   * order. Only for opening, before any write.
   */
  public void replay(long afterSerial, RecordConsumer consumer) throws IOException {
    for (Path f : listFiles(dir)) {
      long first = firstSerialOf(f);
      try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
        ByteBuffer all = ByteBuffer.allocate((int) Math.min(ch.size(), Integer.MAX_VALUE));
        while (all.hasRemaining() && ch.read(all) >= 0) {}
        all.flip().order(ByteOrder.LITTLE_ENDIAN);
        long expect = first;
        while (all.remaining() >= HEADER + TRAILER) {
          int len = all.getInt(all.position());
          long serial = all.getLong(all.position() + 4);
          if (serial != expect) {
            throw new CorruptWalException(
                "WAL file " + f + ": serial " + serial + ", expected " + expect);
          }
          byte[] payload = new byte[len];
          all.position(all.position() + HEADER);
          all.get(payload);
          all.getInt();
          if (serial > afterSerial) {
            consumer.accept(serial, payload);
          }
          expect++;
        }
      }
    }
  }

  /**
   * Deletes files whose records all have serials ≤ {@code serial} (they are covered by a commit or
   * snapshot). The newest file is kept, or rolled first, so the next serial survives a restart.
   */
  public void trimUpTo(long serial) throws IOException {
    writeLock.lock();
    try {
      ensureWritable();
      if (writtenSerial <= serial && currentBytes > 0) {
        try {
          roll(writtenSerial + 1);
        } catch (IOException | RuntimeException e) {
          throw fail("rolling to a new file for a trim", e);
        }
      }
      List<Path> files = listFiles(dir);
      for (int i = 0; i + 1 < files.size(); i++) {
        long nextFirst = firstSerialOf(files.get(i + 1));
        if (nextFirst - 1 <= serial) {
          Files.deleteIfExists(files.get(i));
        }
      }
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Makes the next serial at least {@code nextSerial}, for a store whose commit is newer than its
   * log (the log was lost or removed). A no-op when the log is already past it.
   */
  public void advanceTo(long nextSerial) throws IOException {
    writeLock.lock();
    try {
      ensureWritable();
      if (nextSerial > writtenSerial + 1) {
        try {
          roll(nextSerial);
        } catch (IOException | RuntimeException e) {
          throw fail("rolling to serial " + nextSerial, e);
        }
        writtenSerial = nextSerial - 1;
        syncedSerial.accumulateAndGet(nextSerial - 1, Math::max);
      }
    } finally {
      writeLock.unlock();
    }
  }

  /** The newest serial written (acknowledged or about to be). */
  public long lastSerial() {
    writeLock.lock();
    try {
      return writtenSerial;
    } finally {
      writeLock.unlock();
    }
  }

  /** The newest serial known to be on disk. */
  public long syncedSerial() {
    return syncedSerial.get();
  }

  /** How many fsyncs this log has issued since it was opened. */
  public long fsyncCount() {
    return fsyncs.get();
  }

  /** Bytes this log has appended since it was opened, records' headers and trailers included. */
  public long writtenBytes() {
    return writtenBytes.get();
  }

  /** Bytes on disk over all files. */
  public long sizeBytes() throws IOException {
    long sum = 0;
    for (Path f : listFiles(dir)) {
      try {
        sum += Files.size(f);
      } catch (java.nio.file.NoSuchFileException trimmedMeanwhile) {
        // A concurrent trimUpTo deleted it after the listing: it no longer counts.
      }
    }
    return sum;
  }

  /** The syncer's thread (its executor makes at most one), for close to wait until it ends. */
  private volatile Thread syncerThread;

  /**
   * Cancels the periodic sync and waits for a running one to finish. Not {@code shutdownNow}: an
   * interrupt during {@code force} closes the file channel under the writer (NIO's
   * ClosedByInterruptException), and returning before the thread ends left it alive after close
   * (seen as a syncer outliving a failed open in MutableIndexFaultTest with
   * -Dtests.seed=2719160706964567425 on a loaded machine).
   */
  private void stopSyncer() {
    asyncSyncer.shutdown(); // periodic tasks do not run again after shutdown
    try {
      if (!asyncSyncer.awaitTermination(30, TimeUnit.SECONDS)) {
        asyncSyncer.shutdownNow();
      }
      // The executor counts as terminated once its worker has left the task loop, a moment
      // before the thread itself ends (a close under load returned with it still alive).
      Thread t = syncerThread;
      if (t != null) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
    } catch (InterruptedException e) {
      asyncSyncer.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops the background syncer and waits for it, then fsyncs what was written and closes the file;
   * idempotent. Once it returns no thread of this log runs.
   */
  @Override
  public void close() throws IOException {
    if (asyncSyncer != null) {
      stopSyncer();
    }
    writeLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      if (failure != null) {
        // Stopped: no fsync may follow a failed one; what it covers is decided by reopening.
        current.close();
        return;
      }
      try {
        current.force(false);
        fsyncs.incrementAndGet();
        syncedSerial.accumulateAndGet(writtenSerial, Math::max);
      } finally {
        current.close();
      }
    } finally {
      writeLock.unlock();
    }
  }

  private void ensureWritable() throws WalFailedException {
    if (closed) {
      throw new IllegalStateException("write-ahead log in " + dir + " is closed");
    }
    IOException f = failure;
    if (f != null) {
      throw new WalFailedException(
          "write-ahead log in "
              + dir
              + " stopped after a failed write or fsync ("
              + f
              + "); it accepts nothing until the store is restarted",
          f);
    }
  }

  /** Under writeLock: fsync and close the current file, start one whose first serial is given. */
  private void roll(long firstSerial) throws IOException {
    if (current != null) {
      current.force(false);
      fsyncs.incrementAndGet();
      syncedSerial.accumulateAndGet(writtenSerial, Math::max);
      current.close();
      if (currentBytes == 0 && currentFirstSerial != firstSerial) {
        Files.deleteIfExists(fileFor(currentFirstSerial));
      }
    }
    openFile(firstSerial);
  }

  private void openFile(long firstSerial) throws IOException {
    Path f = fileFor(firstSerial);
    current =
        opener.open(
            f, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
    current.truncate(0);
    currentFirstSerial = firstSerial;
    currentBytes = 0;
    // Make the new file's name durable, so the next serial survives a crash right after a trim.
    Durable.forceDirectory(dir);
  }

  private Path fileFor(long firstSerial) {
    return dir.resolve(String.format("wal-%020d.log", firstSerial));
  }

  static List<Path> listFiles(Path dir) throws IOException {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "wal-*.log")) {
      ds.forEach(files::add);
    }
    files.sort(null); // zero-padded names sort by first serial
    return files;
  }

  static long firstSerialOf(Path f) {
    String name = f.getFileName().toString();
    return Long.parseLong(name.substring(4, name.length() - 4));
  }

  private record Scan(long records, long validBytes, String damage) {}

  /** Reads a file record by record, stopping at the first that is incomplete or fails its CRC. */
  private static Scan scan(Path f, long firstSerial) throws IOException {
    return scan(f, 0, firstSerial);
  }

  /**
   * {@link #scan(Path, long)} from byte {@code from}, where a record with serial {@code
   * firstSerial} must start; {@link Scan#validBytes} is a position in the whole file.
   */
  private static Scan scan(Path f, long from, long firstSerial) throws IOException {
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
      long size = ch.size();
      ByteBuffer header = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
      long pos = from;
      long records = 0;
      CRC32C crc = new CRC32C();
      while (pos < size) {
        if (size - pos < HEADER + TRAILER) {
          return new Scan(records, pos, "incomplete record of " + (size - pos) + " bytes");
        }
        header.clear();
        ch.read(header, pos);
        header.flip();
        int len = header.getInt(0);
        long serial = header.getLong(4);
        if (len < 0 || len > MAX_RECORD_BYTES) {
          return new Scan(records, pos, "record length " + len + " out of range");
        }
        if (size - pos < (long) HEADER + len + TRAILER) {
          return new Scan(records, pos, "record of " + len + " bytes cut short");
        }
        ByteBuffer body =
            ByteBuffer.allocate(HEADER + len + TRAILER).order(ByteOrder.LITTLE_ENDIAN);
        while (body.hasRemaining()) {
          if (ch.read(body, pos + body.position()) < 0) {
            break;
          }
        }
        crc.reset();
        crc.update(body.array(), 0, HEADER + len);
        if ((int) crc.getValue() != body.getInt(HEADER + len)) {
          return new Scan(records, pos, "CRC mismatch in serial " + serial);
        }
        if (serial != firstSerial + records) {
          return new Scan(
              records, pos, "serial " + serial + " where " + (firstSerial + records) + " belongs");
        }
        records++;
        pos += HEADER + len + TRAILER;
      }
      return new Scan(records, pos, null);
    }
  }

  /**
   * The position of the first record after {@code from} in {@code f} that is whole, passes its CRC
   * and has a serial at or after {@code expected}, or −1. Damage followed by such a record is not a
   * torn tail (a write that failed or was cut by a crash is the last one: the log fails stop), so
   * {@link #open} must not cut it off.
   */
  private static long validRecordAfter(Path f, long from, long expected) throws IOException {
    byte[] all;
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
      // The tail after a torn write is at most one batch; two record limits cover any batch.
      long n = Math.min(ch.size() - from, 2L * MAX_RECORD_BYTES + HEADER + TRAILER);
      ByteBuffer tail = ByteBuffer.allocate((int) Math.max(0, n));
      while (tail.hasRemaining() && ch.read(tail, from + tail.position()) >= 0) {}
      all = tail.array();
    }
    ByteBuffer b = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
    CRC32C crc = new CRC32C();
    for (int at = 1; at + HEADER + TRAILER <= all.length; at++) {
      int len = b.getInt(at);
      long serial = b.getLong(at + 4);
      if (len < 0 || len > all.length - at - HEADER - TRAILER || serial < expected) {
        continue;
      }
      crc.reset();
      crc.update(all, at, HEADER + len);
      if ((int) crc.getValue() == b.getInt(at + HEADER + len)) {
        return from + at;
      }
    }
    return -1;
  }

  /**
   * Whether the damage at {@code damageAt}, with a valid record at {@code nextValid}, is a hole
   * that a power cut left in writes that were never forced, rather than corruption. Writeback
   * persists pages in any order, so a cut can keep a later page of a group-commit batch and lose an
   * earlier one, which reads back as zeros. Such a hole is (1) a span of zeros that ends at a page
   * boundary at or before {@code nextValid} and starts at the damage or at that page's start, and
   * (2) from {@code nextValid} on, the file holds only whole, valid records with consecutive
   * serials up to its end. Bit rot (damage that is not a zero-filled page) stays corruption.
   */
  private static boolean isUnforcedHole(Path f, long damageAt, long nextValid) throws IOException {
    long serial;
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
      if (ch.size() - damageAt > 2L * MAX_RECORD_BYTES + HEADER + TRAILER) {
        return false; // more than one batch after the damage: not a cut in the last writes
      }
      boolean zeroPage = false;
      ByteBuffer page = ByteBuffer.allocate(PAGE);
      for (long end = (damageAt / PAGE + 1) * PAGE; end <= nextValid && !zeroPage; end += PAGE) {
        long start = Math.max(damageAt, end - PAGE);
        page.clear().limit((int) (end - start));
        while (page.hasRemaining() && ch.read(page, start + page.position()) >= 0) {}
        zeroPage = !page.hasRemaining() && allZero(page.array(), page.limit());
      }
      if (!zeroPage) {
        return false;
      }
      ByteBuffer header = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(header, nextValid);
      serial = header.getLong(4);
    }
    // What follows the hole must be the log's own records to the end, serials consecutive.
    return scan(f, nextValid, serial).damage == null;
  }

  private static boolean allZero(byte[] b, int length) {
    for (int i = 0; i < length; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Opens the log's files; {@link FileChannel#open(Path, java.nio.file.OpenOption...)} normally.
   */
  @FunctionalInterface
  public interface FileOpener {
    FileChannel open(Path file, java.nio.file.OpenOption... options) throws IOException;
  }

  /** Receives replayed records. */
  @FunctionalInterface
  public interface RecordConsumer {
    void accept(long serial, byte[] payload) throws IOException;
  }
}
