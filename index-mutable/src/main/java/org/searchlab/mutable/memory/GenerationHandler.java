package org.searchlab.mutable.memory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Tells a writer when every reader that started before a point in time has finished, so memory
 * those readers might still hold (a retired local id, an old posting block) can be reused: Vespa's
 * {@code GenerationHandler}, reduced to two reader counters in the style of RCU.
 *
 * <p>Thread safety: {@link #enter} and {@link Guard#close} may be called from any thread and never
 * block; {@link #awaitOlderReaders} is serialised internally and waits (it is for background
 * threads).
 *
 * <p>Why two counters suffice, step by step:
 *
 * <ol>
 *   <li>a reader reads the generation {@code g}, increments counter {@code g & 1}, then re-reads
 *       the generation; if it moved, it undoes the increment and retries, so an admitted reader is
 *       always counted in the counter of the generation that was current when it was admitted;
 *   <li>{@code awaitOlderReaders} increments the generation from {@code g} to {@code g + 1} and
 *       waits for counter {@code g & 1} to drain: every reader admitted before the increment is in
 *       it, and every reader admitted after it goes to the other counter;
 *   <li>waits are serialised, so when one starts, the previous one has already drained the other
 *       counter of every reader older than the previous increment.
 * </ol>
 */
public final class GenerationHandler {
  private final AtomicLong generation = new AtomicLong();
  private final AtomicLong[] active = {new AtomicLong(), new AtomicLong()};
  private final Runnable afterGenerationRead;

  public GenerationHandler() {
    this(() -> {});
  }

  /**
   * A handler that runs {@code afterGenerationRead} in {@link #enter} between reading the
   * generation and counting the reader: tests stall a reader there to force the interleaving that
   * step 1 of the class javadoc guards against. Production code uses the no-op.
   */
  GenerationHandler(Runnable afterGenerationRead) {
    this.afterGenerationRead = afterGenerationRead;
  }

  /** A reader's registration; close it when the read is over. */
  public final class Guard implements AutoCloseable {
    private final AtomicLong counter;

    private Guard(AtomicLong counter) {
      this.counter = counter;
    }

    @Override
    public void close() {
      counter.decrementAndGet();
    }
  }

  /** Registers a reader. */
  public Guard enter() {
    while (true) {
      long g = generation.get();
      afterGenerationRead.run();
      AtomicLong c = active[(int) (g & 1)];
      c.incrementAndGet();
      if (generation.get() == g) {
        return new Guard(c);
      }
      c.decrementAndGet();
    }
  }

  /** Waits until every reader registered before this call has closed its guard. */
  public synchronized void awaitOlderReaders() {
    long g = generation.getAndIncrement();
    AtomicLong c = active[(int) (g & 1)];
    int spins = 0;
    while (c.get() != 0) {
      if (++spins < 100) {
        Thread.onSpinWait();
      } else {
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
      }
    }
  }

  /** How many waits have started: the generation new readers are counted in (for tests). */
  public long generation() {
    return generation.get();
  }

  /** Readers currently registered (for stats and tests). */
  public long activeReaders() {
    return active[0].get() + active[1].get();
  }
}
