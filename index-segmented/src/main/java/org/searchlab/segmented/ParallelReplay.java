package org.searchlab.segmented;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.searchlab.core.Operation;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * Applies the log's records after a serial on several threads while the store opens. The calling
 * thread reads and decodes the log; each operation goes to one of {@code lanes} threads chosen by
 * its id, so the operations on one id are applied in log order and operations on different ids,
 * which commute, are applied side by side. Lucene's {@code IndexWriter} takes concurrent updates
 * (one in-memory segment, with its own HNSW graph, per thread), and the store's stripe locks and
 * version map are built for concurrent writers, so a replay on N threads builds the same index as
 * one on one thread, cut into different segments.
 *
 * <p>With one lane it applies everything on the calling thread. The first failure stops every lane
 * and is thrown by {@link #run}; the store is then closed, and the next open replays from the same
 * commit again.
 */
final class ParallelReplay {
  /** What each operation is given to, on a lane's thread. */
  interface Applier {
    void apply(Operation op, long serial) throws IOException;
  }

  /** Operations read ahead of the lanes, per lane: bounds the replay's memory. */
  private static final int QUEUE = 256;

  private record Item(Operation op, long serial) {}

  private static final Item END = new Item(null, -1);

  private final BlockingQueue<Item>[] queues;
  private final Thread[] threads;
  private final Applier applier;
  private volatile Throwable failure;
  private volatile boolean cancelled;

  @SuppressWarnings("unchecked")
  private ParallelReplay(int lanes, Applier applier) {
    this.applier = applier;
    this.queues = new BlockingQueue[lanes];
    this.threads = new Thread[lanes];
    for (int i = 0; i < lanes; i++) {
      BlockingQueue<Item> q = new ArrayBlockingQueue<>(QUEUE);
      queues[i] = q;
      threads[i] = new Thread(() -> drain(q), "searchlab-replay-" + i);
      threads[i].setDaemon(true);
    }
  }

  /**
   * Replays every record of {@code wal} after {@code afterSerial} through {@code applier} on {@code
   * lanes} threads and returns when all are applied.
   *
   * @throws IOException the log could not be read or an operation could not be applied
   */
  static void run(WriteAheadLog wal, long afterSerial, int lanes, Applier applier)
      throws IOException {
    if (lanes <= 1) {
      wal.replay(
          afterSerial, (serial, payload) -> applier.apply(OperationCodec.decode(payload), serial));
      return;
    }
    new ParallelReplay(lanes, applier).replay(wal, afterSerial);
  }

  private void replay(WriteAheadLog wal, long afterSerial) throws IOException {
    for (Thread t : threads) {
      t.start();
    }
    boolean read = false;
    try {
      wal.replay(
          afterSerial,
          (serial, payload) -> {
            Operation op = OperationCodec.decode(payload);
            enqueue(queues[Math.floorMod(mix(op.id().hashCode()), queues.length)], op, serial);
          });
      read = true;
    } finally {
      if (!read) {
        cancelled = true;
      }
      for (BlockingQueue<Item> q : queues) {
        enqueue(q, END);
      }
      join();
    }
    rethrow();
  }

  private void enqueue(BlockingQueue<Item> q, Operation op, long serial) throws IOException {
    enqueue(q, new Item(op, serial));
    rethrow();
  }

  /** Waits for room, giving up when a lane has failed (a failed lane stops taking). */
  private void enqueue(BlockingQueue<Item> q, Item item) throws InterruptedIOException {
    try {
      while (!q.offer(item, 50, TimeUnit.MILLISECONDS)) {
        if (failure != null || cancelled) {
          return;
        }
      }
    } catch (InterruptedException e) {
      cancelled = true;
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while replaying the write-ahead log");
    }
  }

  private void drain(BlockingQueue<Item> q) {
    try {
      while (true) {
        Item item = q.take();
        if (item == END || failure != null || cancelled) {
          return;
        }
        applier.apply(item.op, item.serial);
      }
    } catch (Throwable t) {
      synchronized (this) {
        if (failure == null) {
          failure = t;
        }
      }
    }
  }

  private void join() throws InterruptedIOException {
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        cancelled = true;
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while replaying the write-ahead log");
      }
    }
  }

  private void rethrow() throws IOException {
    Throwable t = failure;
    if (t == null) {
      return;
    }
    switch (t) {
      case IOException e -> throw e;
      case UncheckedIOException e -> throw e;
      case RuntimeException e -> throw e;
      case Error e -> throw e;
      default -> throw new IOException("replaying the write-ahead log failed", t);
    }
  }

  /** Spreads ids whose hashes differ only in high bits (String.hashCode of "d1", "d2", ...). */
  private static int mix(int h) {
    return h ^ (h >>> 16);
  }
}
