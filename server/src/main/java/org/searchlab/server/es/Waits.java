package org.searchlab.server.es;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.searchlab.server.ApiException;

/**
 * Requests that wait for a condition without holding a thread: each wait is a future that one
 * daemon scheduler thread completes, either by polling a cheap read until it holds ({@link #poll})
 * or when an event happens ({@link #until}), or when its timeout runs out. At most {@code
 * maxWaiting} waits run at once; one more is refused with 429. {@link #close} fails the waits still
 * running with 503 {@code node_closed_exception}, so that every waiting request is answered.
 *
 * <p>Thread-safe: the scheduler is, the count of waits is a semaphore, and the set of running waits
 * a concurrent set.
 */
final class Waits implements AutoCloseable {
  private final int maxWaiting;
  private final Duration every;
  private final Semaphore slots;
  private final Set<CompletableFuture<?>> running = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor scheduler;

  /**
   * @param maxWaiting waits allowed at once, ≥ 1; each costs a pending future and a scheduled task
   * @param every how often {@link #poll} reads again; shorter answers sooner and reads more
   */
  Waits(int maxWaiting, Duration every) {
    this.maxWaiting = maxWaiting;
    this.every = every;
    this.slots = new Semaphore(maxWaiting);
    this.scheduler =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "searchlab-cluster-waits");
              t.setDaemon(true);
              return t;
            });
    scheduler.setRemoveOnCancelPolicy(true);
    scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** Counts a wait in, or refuses it: 429 when {@code maxWaiting} run already. */
  private void admit(CompletableFuture<?> f) {
    if (!slots.tryAcquire()) {
      throw new ApiException(
          429,
          "es_rejected_execution_exception",
          maxWaiting + " requests are waiting already, the limit; retry later");
    }
    running.add(f);
    f.whenComplete(
        (v, e) -> {
          running.remove(f);
          slots.release();
        });
  }

  /**
   * Schedules {@code task}; when the scheduler has stopped (the server is closing) fails {@code
   * wait} instead, so that its slot is given back, and throws that failure.
   */
  private ScheduledFuture<?> schedule(Runnable task, long delayNanos, CompletableFuture<?> wait) {
    try {
      return scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      ApiException c = closing();
      wait.completeExceptionally(c);
      throw c;
    }
  }

  private static ApiException closing() {
    return new ApiException(
        503, "node_closed_exception", "the server is shutting down; the wait ended");
  }

  /**
   * Reads {@code read} now (on the caller's thread) and then every {@code every} until {@code
   * holds} or {@code timeout}; the future completes with the last value read. A read that holds at
   * once, or a zero timeout, takes no slot.
   */
  <T> CompletableFuture<T> poll(Supplier<T> read, Predicate<T> holds, Duration timeout) {
    CompletableFuture<T> f = new CompletableFuture<>();
    T first = read.get();
    if (holds.test(first) || timeout.isZero()) {
      f.complete(first);
      return f;
    }
    admit(f);
    long deadline = System.nanoTime() + timeout.toNanos();
    schedule(
        () -> pollAgain(read, holds, deadline, f), Math.min(every.toNanos(), timeout.toNanos()), f);
    return f;
  }

  private <T> void pollAgain(
      Supplier<T> read, Predicate<T> holds, long deadline, CompletableFuture<T> f) {
    if (f.isDone()) {
      return; // answered by close()
    }
    try {
      T v = read.get();
      long left = deadline - System.nanoTime();
      if (holds.test(v) || left <= 0) {
        f.complete(v);
        return;
      }
      schedule(() -> pollAgain(read, holds, deadline, f), Math.min(left, every.toNanos()), f);
    } catch (Throwable t) {
      f.completeExceptionally(t);
    }
  }

  /**
   * A future that completes (normally) when {@code event} does or {@code timeout} runs out,
   * whichever is first; the caller looks at {@code event} to tell which.
   */
  CompletableFuture<Void> until(CompletableFuture<?> event, Duration timeout) {
    CompletableFuture<Void> f = new CompletableFuture<>();
    admit(f);
    ScheduledFuture<?> timer = schedule(() -> f.complete(null), timeout.toNanos(), f);
    event.whenComplete((v, e) -> f.complete(null));
    f.whenComplete((v, e) -> timer.cancel(false));
    return f;
  }

  /** Stops the scheduler; every wait still running fails with 503. */
  @Override
  public void close() {
    scheduler.shutdownNow();
    for (CompletableFuture<?> f : List.copyOf(running)) {
      f.completeExceptionally(closing());
    }
  }
}
