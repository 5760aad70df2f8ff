package org.searchlab.core;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The failures of a store's background tasks (periodic snapshots, refreshes, merges, compaction,
 * asynchronous fsyncs): each is counted, the newest is kept for {@link StoreHealth}, and each is
 * logged with what was being done, once: a task that fails the same way on every tick logs again
 * only when its message changes, so a broken disk does not flood the log.
 *
 * <p>Thread-safe.
 */
public final class BackgroundErrors {
  private static final System.Logger LOG = System.getLogger("org.searchlab.store");

  private final String store;
  private final AtomicLong count = new AtomicLong();
  private volatile String last;

  /** Errors of the store described by {@code store} (its kind and directory, for the log). */
  public BackgroundErrors(String store) {
    this.store = store;
  }

  /** Records a failure of the background task {@code what}. */
  public void record(String what, Throwable e) {
    count.incrementAndGet();
    String message = what + ": " + e;
    String previous;
    synchronized (this) {
      previous = last;
      last = message;
    }
    if (!message.equals(previous)) {
      LOG.log(System.Logger.Level.WARNING, store + ": background task failed: " + message, e);
    }
  }

  /** How many background failures there were. */
  public long count() {
    return count.get();
  }

  /** The newest failure, with what was being done. */
  public Optional<String> last() {
    return Optional.ofNullable(last);
  }
}
