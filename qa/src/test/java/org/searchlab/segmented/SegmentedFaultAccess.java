package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.searchlab.core.Schema;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * Opens a segmented store with fault seams, for the server's tests (the seams are package-private,
 * so this class lives in the store's package): the write-ahead log's files opened through {@code
 * walFiles}, and Lucene's directory refusing to create files while {@code failLucene} is set, as a
 * full disk does. Explicit refreshes only, so a test decides when segments are written.
 */
public final class SegmentedFaultAccess {
  private SegmentedFaultAccess() {}

  public static LuceneSegmentedIndex open(
      Path dir, Schema schema, WriteAheadLog.FileOpener walFiles, AtomicBoolean failLucene)
      throws IOException {
    SegmentedConfig config =
        SegmentedConfig.builder().refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED).build();
    return LuceneSegmentedIndex.open(
        dir, schema, config, walFiles, d -> new FailingDirectory(d, failLucene));
  }

  private static final class FailingDirectory extends FilterDirectory {
    private final AtomicBoolean fail;

    FailingDirectory(Directory in, AtomicBoolean fail) {
      super(in);
      this.fail = fail;
    }

    private void check(String name) throws IOException {
      if (fail.get()) {
        throw new IOException("No space left on device (injected, creating " + name + ")");
      }
    }

    @Override
    public IndexOutput createOutput(String name, IOContext context) throws IOException {
      check(name);
      return super.createOutput(name, context);
    }

    @Override
    public IndexOutput createTempOutput(String prefix, String suffix, IOContext context)
        throws IOException {
      check(prefix);
      return super.createTempOutput(prefix, suffix, context);
    }
  }
}
