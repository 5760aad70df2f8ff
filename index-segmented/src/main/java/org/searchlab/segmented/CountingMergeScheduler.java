package org.searchlab.segmented;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.MergePolicy;

/**
 * Lucene's {@link ConcurrentMergeScheduler} (background merge threads with I/O auto-throttling, as
 * Elasticsearch runs it) that counts merges running and done for {@code stats()}. Thread-safe: the
 * counters are atomics updated by merge threads.
 */
final class CountingMergeScheduler extends ConcurrentMergeScheduler {
  private final AtomicLong running = new AtomicLong();
  private final AtomicLong done = new AtomicLong();
  private final org.searchlab.core.BackgroundErrors errors;

  CountingMergeScheduler(int mergeThreads, org.searchlab.core.BackgroundErrors errors) {
    this.errors = errors;
    // Elasticsearch: max_merge_count = max_thread_count + 5.
    setMaxMergesAndThreads(mergeThreads + 5, mergeThreads);
  }

  @Override
  protected void doMerge(MergeSource mergeSource, MergePolicy.OneMerge merge) throws IOException {
    running.incrementAndGet();
    try {
      super.doMerge(mergeSource, merge);
    } finally {
      running.decrementAndGet();
      done.incrementAndGet();
    }
  }

  /**
   * Counts and logs a failed merge, then lets Lucene handle it (it becomes the writer's tragedy).
   */
  @Override
  protected void handleMergeException(Throwable exc) {
    errors.record("merge", exc);
    super.handleMergeException(exc);
  }

  long running() {
    return running.get();
  }

  long done() {
    return done.get();
  }
}
