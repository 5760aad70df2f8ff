package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * Opens a mutable store with its write-ahead log's files opened through a fault-injecting opener,
 * for the server's tests (the seam is package-private, so this class lives in the store's package).
 */
public final class MutableFaultAccess {
  private MutableFaultAccess() {}

  public static MutableIndex open(Path dir, Schema schema, WriteAheadLog.FileOpener walFiles)
      throws IOException {
    return MutableIndex.open(dir, schema, MutableConfig.DEFAULT, walFiles);
  }
}
