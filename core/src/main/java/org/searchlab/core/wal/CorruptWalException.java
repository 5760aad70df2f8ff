package org.searchlab.core.wal;

import java.io.IOException;

/**
 * A write-ahead log record that is damaged somewhere other than the tail of the newest file, where
 * a crash cannot explain it. Opening refuses to guess.
 */
public class CorruptWalException extends IOException {
  private static final long serialVersionUID = 1L;

  public CorruptWalException(String message) {
    super(message);
  }
}
