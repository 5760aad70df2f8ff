package org.searchlab.core;

import java.io.IOException;

/**
 * Thrown by a write to a store that stopped after a failure of its write-ahead log or of its writer
 * (a full disk, an I/O error, a failed fsync, a writer thread that died): the store keeps answering
 * reads from what it acknowledged, and refuses every write until it is reopened, which recovers
 * from the log. {@link SearchIndex#health()} names the failure. A server answers 503 (service
 * unavailable), as Elasticsearch answers writes to a shard that failed.
 */
public class StoreStoppedException extends IOException {
  private static final long serialVersionUID = 1L;

  public StoreStoppedException(String message, Throwable failure) {
    super(message, failure);
  }
}
