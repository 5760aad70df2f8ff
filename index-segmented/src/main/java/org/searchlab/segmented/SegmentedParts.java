package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.Directory;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * The pieces of an open segmented store that its roles share: the Lucene directory, index writer
 * and searcher manager, the write-ahead log, the live version map, the merge scheduler, the
 * executors and the counters. {@link SegmentedOpener} builds them; {@link SegmentedWriter}, {@link
 * SegmentedSearcher} and {@link SegmentedStats} work on them; {@link #close()} releases them in the
 * reverse order of opening.
 *
 * <p>Thread safety: the references are final and every piece is thread-safe on its own (Lucene's
 * {@code IndexWriter} and {@code SearcherManager}, the log, the version map, atomics). Which role
 * may do what with them is stated by each role. {@link #close()} must not race other calls.
 */
final class SegmentedParts implements AutoCloseable {
  final Directory directory;

  /**
   * Lucene's directory as a path: {@link SegmentedWriter#flush()} forces it itself after a commit,
   * because Lucene swallows a failed force of it.
   */
  final Path indexPath;

  final IndexWriter indexWriter;
  final SearcherManager manager;
  final WriteAheadLog wal;
  final LiveVersionMap versionMap;
  final CountingMergeScheduler mergeScheduler;
  final SegmentedStats stats;

  /** The serial the opened Lucene commit covers; the log is replayed after it. */
  final long committedSerial;

  // Null when unused: no concurrent segment search, one thread per HNSW merge, no periodic refresh.
  private final ExecutorService searchExecutor;
  private final ExecutorService hnswMergeExecutor;
  final ScheduledExecutorService refresher;

  SegmentedParts(
      Directory directory,
      Path indexPath,
      IndexWriter indexWriter,
      SearcherManager manager,
      WriteAheadLog wal,
      LiveVersionMap versionMap,
      CountingMergeScheduler mergeScheduler,
      SegmentedStats stats,
      long committedSerial,
      ExecutorService searchExecutor,
      ExecutorService hnswMergeExecutor,
      ScheduledExecutorService refresher) {
    this.directory = directory;
    this.indexPath = indexPath;
    this.indexWriter = indexWriter;
    this.manager = manager;
    this.wal = wal;
    this.versionMap = versionMap;
    this.mergeScheduler = mergeScheduler;
    this.stats = stats;
    this.committedSerial = committedSerial;
    this.searchExecutor = searchExecutor;
    this.hnswMergeExecutor = hnswMergeExecutor;
    this.refresher = refresher;
  }

  /**
   * Stops the periodic refresh, then closes the searcher manager, the index writer (which rolls
   * back to the last commit: {@code commitOnClose} is false and the log holds the rest), the log
   * and the directory, and stops the executors. Each step runs even if an earlier one failed.
   */
  @Override
  public void close() throws IOException {
    if (refresher != null) {
      // No interrupt: a refresh interrupted mid-I/O would fail noisily; let a running one finish.
      refresher.shutdown();
      try {
        refresher.awaitTermination(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      manager.close();
    } finally {
      try {
        indexWriter.close();
      } finally {
        try {
          wal.close();
        } finally {
          directory.close();
          shutdown(searchExecutor);
          shutdown(hnswMergeExecutor);
        }
      }
    }
  }

  static void shutdown(ExecutorService e) {
    if (e != null) {
      e.shutdownNow();
    }
  }
}
