package org.searchlab.core;

import java.util.Objects;
import java.util.Optional;

/**
 * What a store says about its own health: whether it still accepts writes and, if not, why (its
 * writer or its write-ahead log stopped after a failure, and stays stopped until reopened), and the
 * background failures (periodic snapshots, refreshes, merges, compactions) it has seen.
 *
 * @param writer empty while the writer works; otherwise why it stopped
 * @param wal empty while the write-ahead log works; otherwise the failure that stopped it
 * @param backgroundErrors how many background tasks failed since the store opened
 * @param lastBackgroundError the newest of them, with what was being done
 */
public record StoreHealth(
    Optional<String> writer,
    Optional<String> wal,
    long backgroundErrors,
    Optional<String> lastBackgroundError) {
  public static final StoreHealth OK =
      new StoreHealth(Optional.empty(), Optional.empty(), 0, Optional.empty());

  public StoreHealth {
    Objects.requireNonNull(writer, "writer");
    Objects.requireNonNull(wal, "wal");
    Objects.requireNonNull(lastBackgroundError, "lastBackgroundError");
  }

  /** Whether the store accepts writes: neither its writer nor its log has stopped. */
  public boolean writable() {
    return writer.isEmpty() && wal.isEmpty();
  }
}
