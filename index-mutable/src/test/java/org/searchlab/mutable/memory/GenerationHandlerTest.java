package org.searchlab.mutable.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The grace-period protocol of {@link GenerationHandler}: a wait ends only after every reader
 * registered before it has left, never waits for readers registered after it, and memory retired
 * before a wait is never seen again by a reader once the wait has ended.
 *
 * <p>Timeouts here are hang detectors (a wait that must end, but a broken handler never ends), not
 * performance limits: they are far above any real duration. The short pauses before asserting that
 * a wait has <em>not</em> ended give a broken handler time to end it wrongly; a correct one never
 * can, so they cannot make the test flaky.
 */
class GenerationHandlerTest {
  private static final long HANG_SECONDS = 30;
  private static final long WRONG_END_MILLIS = 100;

  private final GenerationHandler handler = new GenerationHandler();
  private final ExecutorService pool = Race.daemonPool(4);

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  @Test
  void closingAGuardUnregistersTheReader() throws Exception {
    GenerationHandler.Guard a = handler.enter();
    GenerationHandler.Guard b = handler.enter();
    assertEquals(2, handler.activeReaders());
    a.close();
    assertEquals(1, handler.activeReaders());
    b.close();
    assertEquals(0, handler.activeReaders());
    pool.submit(handler::awaitOlderReaders).get(HANG_SECONDS, TimeUnit.SECONDS);
    assertEquals(1, handler.generation());
  }

  @Test
  void waitEndsOnlyAfterAnOlderReaderLeaves() throws Exception {
    GenerationHandler.Guard old = handler.enter();
    Future<?> wait = pool.submit(handler::awaitOlderReaders);
    awaitGeneration(1);
    Thread.sleep(WRONG_END_MILLIS);
    assertFalse(wait.isDone(), "the wait ended while a reader older than it was registered");
    old.close();
    wait.get(HANG_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void readersRegisteredAfterAWaitStartedDoNotHoldIt() throws Exception {
    GenerationHandler.Guard old = handler.enter();
    Future<?> first = pool.submit(handler::awaitOlderReaders);
    awaitGeneration(1);
    GenerationHandler.Guard young = handler.enter();
    old.close();
    first.get(HANG_SECONDS, TimeUnit.SECONDS); // ends although 'young' is still registered
    assertEquals(1, handler.activeReaders());

    // The next wait is older than 'young' and must wait for it.
    Future<?> second = pool.submit(handler::awaitOlderReaders);
    awaitGeneration(2);
    Thread.sleep(WRONG_END_MILLIS);
    assertFalse(second.isDone(), "the second wait ended while 'young' was registered");
    young.close();
    second.get(HANG_SECONDS, TimeUnit.SECONDS);
  }

  /**
   * The one interleaving the re-check in {@link GenerationHandler#enter} exists for, forced: a
   * reader reads generation 0 and stalls before counting itself; a wait bumps the generation to 1
   * and finds nobody in counter 0; then the reader counts itself. It must end up in counter 1 (it
   * retries when it sees the generation moved), so that the next wait, which drains counter 1,
   * waits for it. Stress cannot reach this window reliably; a hook that pauses the reader right
   * after its first read can.
   */
  @Test
  void aReaderThatStalledAcrossAWaitIsCountedInTheNewGeneration() throws Exception {
    Stall generation = new Stall();
    GenerationHandler h = new GenerationHandler(generation);
    Future<GenerationHandler.Guard> entering =
        pool.submit(
            () -> {
              generation.paused = Thread.currentThread();
              return h.enter();
            });
    assertTrue(generation.readerRead.await(HANG_SECONDS, TimeUnit.SECONDS));
    h.awaitOlderReaders(); // the stalled reader is not registered yet: nothing to wait for
    generation.resume.countDown();
    GenerationHandler.Guard guard = entering.get(HANG_SECONDS, TimeUnit.SECONDS);
    assertEquals(1, h.activeReaders());

    Future<?> next = pool.submit(h::awaitOlderReaders);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
    while (h.generation() < 2) {
      assertTrue(System.nanoTime() < deadline, "the next wait never started");
      Thread.sleep(1);
    }
    Thread.sleep(WRONG_END_MILLIS);
    assertFalse(next.isDone(), "the next wait ended while the stalled reader was registered");
    guard.close();
    next.get(HANG_SECONDS, TimeUnit.SECONDS);
  }

  /** Stalls one chosen thread the first time it has read the generation, until released. */
  private static final class Stall implements Runnable {
    final CountDownLatch readerRead = new CountDownLatch(1);
    final CountDownLatch resume = new CountDownLatch(1);
    volatile Thread paused;

    @Override
    public void run() {
      if (Thread.currentThread() == paused && readerRead.getCount() > 0) {
        readerRead.countDown();
        try {
          resume.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /**
   * A writer replaces a published array, waits, then poisons the old one (as the compactor reuses a
   * freed id); readers holding a guard must never see poison, nor a half-written array.
   */
  @Test
  void retiredMemoryIsNeverSeenAfterTheWait() throws Exception {
    AtomicReference<int[]> current = new AtomicReference<>(new int[] {0, 0});
    AtomicBoolean done = new AtomicBoolean();
    AtomicLong bad = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    Runnable reader =
        () -> {
          while (!done.get()) {
            try (GenerationHandler.Guard g = handler.enter()) {
              int[] a = current.get();
              int x = a[0];
              for (int spin = 0; spin < 20; spin++) {
                Thread.onSpinWait();
              }
              int y = a[1];
              if (x < 0 || y < 0 || x != y) {
                bad.incrementAndGet();
              }
              reads.incrementAndGet();
            }
          }
        };
    Future<?> r1 = pool.submit(reader);
    Future<?> r2 = pool.submit(reader);
    Future<?> writer =
        pool.submit(
            () -> {
              for (int v = 1; v <= 20_000; v++) {
                int[] old = current.getAndSet(new int[] {v, v});
                handler.awaitOlderReaders();
                old[0] = -1; // reused: no reader may still look at it
                old[1] = -1;
              }
            });
    try {
      writer.get(HANG_SECONDS, TimeUnit.SECONDS);
    } finally {
      done.set(true);
    }
    r1.get(HANG_SECONDS, TimeUnit.SECONDS);
    r2.get(HANG_SECONDS, TimeUnit.SECONDS);
    assertTrue(reads.get() > 0, "the readers never ran");
    assertEquals(0, bad.get(), "reads of reused memory out of " + reads.get());
    assertEquals(0, handler.activeReaders());
  }

  private void awaitGeneration(long g) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG_SECONDS);
    while (handler.generation() < g) {
      assertTrue(System.nanoTime() < deadline, "the wait never started generation " + g);
      Thread.sleep(1);
    }
  }
}
