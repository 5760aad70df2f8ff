package org.searchlab.mutable.memory;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

/**
 * One writer racing reader threads, interleaved by handshakes instead of by time: every {@code
 * every} writer steps, the writer waits until the readers have made as many more checks as there
 * are readers, so readers run during the whole write sequence (page growth included) however the
 * threads are scheduled. A reader's check throws {@link AssertionError} on a bad read; the first
 * failure is rethrown. Test helper; thread-safe by construction (one use per call).
 */
public final class Race {
  private static final long HANG_SECONDS = 30;

  private Race() {}

  /**
   * Runs {@code writer} for steps {@code 0..steps} on the calling thread while each of {@code
   * checks} runs in a loop on its own thread; returns the number of checks made.
   */
  public static long run(int steps, int every, IntConsumer writer, List<Runnable> checks)
      throws Exception {
    ExecutorService pool = daemonPool(checks.size());
    AtomicBoolean done = new AtomicBoolean();
    AtomicLong count = new AtomicLong();
    try {
      Future<?>[] readers = new Future<?>[checks.size()];
      for (int t = 0; t < readers.length; t++) {
        Runnable check = checks.get(t);
        readers[t] =
            pool.submit(
                () -> {
                  while (!done.get()) {
                    check.run();
                    count.incrementAndGet();
                  }
                });
      }
      try {
        for (int i = 0; i < steps; i++) {
          writer.accept(i);
          if (i % every == 0 && !handshake(count, readers)) {
            break; // a reader failed; get() below rethrows its error
          }
        }
      } finally {
        done.set(true);
      }
      for (Future<?> f : readers) {
        try {
          f.get(HANG_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof AssertionError a) {
            throw a;
          }
          throw e;
        }
      }
      return count.get();
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A pool of daemon threads: a test that detects a hang (a wait that never ends in a broken build)
   * fails instead of keeping its JVM alive forever.
   */
  public static ExecutorService daemonPool(int threads) {
    return Executors.newFixedThreadPool(
        threads,
        r -> {
          Thread t = new Thread(r, "race");
          t.setDaemon(true);
          return t;
        });
  }

  /** Waits for as many more checks as there are readers; false when a reader has stopped. */
  private static boolean handshake(AtomicLong count, Future<?>[] readers) {
    long target = count.get() + readers.length;
    while (count.get() < target) {
      for (Future<?> f : readers) {
        if (f.isDone()) {
          return false;
        }
      }
      Thread.onSpinWait();
    }
    return true;
  }
}
