package org.searchlab.core.wal;

import org.searchlab.core.StoreStoppedException;

/**
 * Thrown by every write, sync and trim of a write-ahead log after one of its writes or fsyncs
 * failed: the log has stopped (fail-stop) and accepts nothing until the store is reopened, because
 * after a failed fsync the kernel may have dropped pages that a later, successful fsync would
 * wrongly report as durable (PostgreSQL's "fsyncgate", 2018). The cause is the first failure. A
 * store whose log stopped has stopped too, hence the superclass.
 */
public class WalFailedException extends StoreStoppedException {
  private static final long serialVersionUID = 1L;

  public WalFailedException(String message, Throwable firstFailure) {
    super(message, firstFailure);
  }
}
