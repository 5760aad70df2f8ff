package org.searchlab.segmented;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.MergePolicy.OneMergeProgress.PauseReason;

/**
 * Lucene's {@link ConcurrentMergeScheduler} (background merge threads; Lucene 10 leaves its I/O
 * auto-throttle off, and so does this store, where Elasticsearch turns it on) that keeps
 * Elasticsearch's merge accounting ({@code ElasticsearchConcurrentMergeScheduler}, rendered as
 * {@code MergeStats}) from Lucene's own description of each merge ({@link MergePolicy.OneMerge}):
 *
 * <ul>
 *   <li>merges running and done, and their wall time in {@link #doMerge};
 *   <li>documents ({@link MergePolicy.OneMerge#totalNumDocs()}: the inputs' {@code maxDoc}, deleted
 *       documents included) and input bytes ({@link MergePolicy.OneMerge#totalBytesSize()}: the
 *       input segments' sizes on disk when the merge was registered), in total and of the merges
 *       running now;
 *   <li>time the merge was stopped so that smaller merges could finish ({@link
 *       PauseReason#STOPPED}) and throttled by the I/O rate limit ({@link PauseReason#PAUSED}),
 *       from {@link MergePolicy.OneMergeProgress#getPauseTimes()};
 *   <li>searchlab's own: the input segments ({@code merge.segments}), and the CPU time of the
 *       merging thread inside {@link #doMerge}, plus that of the HNSW merge workers when a merge
 *       hands graph building to them ({@link #cpuTimed}).
 * </ul>
 *
 * A merge counts in the totals when it ends, failed or aborted ones too, as in Elasticsearch. The
 * counters start at zero when the store opens (Elasticsearch's restart on a node's restart too).
 *
 * <p>Thread-safe: the counters are atomics updated by merge threads; a reader sees each counter
 * current, not one consistent cut, except that a finished merge is added to the totals before it
 * leaves the running counts, so {@code running() == 0} means every merge begun so far is in the
 * totals.
 */
final class CountingMergeScheduler extends ConcurrentMergeScheduler {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final AtomicLong running = new AtomicLong();
  private final AtomicLong runningDocs = new AtomicLong();
  private final AtomicLong runningBytes = new AtomicLong();
  private final AtomicLong done = new AtomicLong();
  private final LongAdder nanos = new LongAdder();
  private final LongAdder docs = new LongAdder();
  private final LongAdder inputBytes = new LongAdder();
  private final LongAdder inputSegments = new LongAdder();
  private final LongAdder stoppedNanos = new LongAdder();
  private final LongAdder throttledNanos = new LongAdder();
  private final LongAdder cpuNanos = new LongAdder();
  private final org.searchlab.core.BackgroundErrors errors;

  CountingMergeScheduler(int mergeThreads, org.searchlab.core.BackgroundErrors errors) {
    this.errors = errors;
    // Elasticsearch: max_merge_count = max_thread_count + 5.
    setMaxMergesAndThreads(mergeThreads + 5, mergeThreads);
  }

  /** Whether this JVM measures a thread's CPU time; without it {@link #cpuNanos()} stays 0. */
  static boolean measuresCpu() {
    return THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
  }

  /** The CPU time of the calling thread in nanoseconds, 0 where the JVM does not measure it. */
  static long threadCpuNanos() {
    return measuresCpu() ? THREADS.getCurrentThreadCpuTime() : 0;
  }

  /** Set on a thread while it runs a merge; read by {@link CountingDirectory}. */
  private static final ThreadLocal<Boolean> MERGING = new ThreadLocal<>();

  /** Whether the calling thread is running a merge of this scheduler's kind. */
  static boolean merging() {
    return MERGING.get() != null;
  }

  @Override
  protected void doMerge(MergeSource mergeSource, MergePolicy.OneMerge merge) throws IOException {
    // Both known before the merge starts: IndexWriter sums them when it registers the merge.
    int mergeDocs = merge.totalNumDocs();
    long mergeBytes = merge.totalBytesSize();
    running.incrementAndGet();
    runningDocs.addAndGet(mergeDocs);
    runningBytes.addAndGet(mergeBytes);
    long cpu0 = threadCpuNanos();
    long t0 = System.nanoTime();
    MERGING.set(Boolean.TRUE);
    try {
      super.doMerge(mergeSource, merge);
    } finally {
      MERGING.remove();
      long took = System.nanoTime() - t0;
      cpuNanos.add(threadCpuNanos() - cpu0);
      Map<PauseReason, Long> paused = merge.getMergeProgress().getPauseTimes();
      stoppedNanos.add(paused.getOrDefault(PauseReason.STOPPED, 0L));
      throttledNanos.add(paused.getOrDefault(PauseReason.PAUSED, 0L));
      nanos.add(took);
      docs.add(mergeDocs);
      inputBytes.add(mergeBytes);
      inputSegments.add(merge.segments.size());
      done.incrementAndGet();
      // The totals first, then the running counts (see the class comment).
      runningBytes.addAndGet(-mergeBytes);
      runningDocs.addAndGet(-mergeDocs);
      running.decrementAndGet();
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

  /**
   * A fixed pool of {@code threads} for the HNSW merge workers whose tasks' CPU time counts as
   * merge CPU ({@link #cpuNanos()}): a merge that hands graph building to them spends it there, not
   * on the merging thread.
   */
  ExecutorService cpuTimed(int threads, ThreadFactory factory) {
    return new CpuTimedPool(threads, factory, cpuNanos);
  }

  long running() {
    return running.get();
  }

  long runningDocs() {
    return runningDocs.get();
  }

  long runningBytes() {
    return runningBytes.get();
  }

  long done() {
    return done.get();
  }

  /** Wall time of the merges done, from entering {@link #doMerge} to leaving it. */
  long nanos() {
    return nanos.sum();
  }

  long docs() {
    return docs.sum();
  }

  long inputBytes() {
    return inputBytes.sum();
  }

  /** Segments the merges done took as input. */
  long inputSegments() {
    return inputSegments.sum();
  }

  long stoppedNanos() {
    return stoppedNanos.sum();
  }

  long throttledNanos() {
    return throttledNanos.sum();
  }

  /** CPU time of merging: the merging threads' and the HNSW merge workers'. */
  long cpuNanos() {
    return cpuNanos.sum();
  }

  /**
   * The I/O rate limit in bytes per second, as Elasticsearch reports it in {@code
   * total_auto_throttle_in_bytes}: {@link Long#MAX_VALUE} while the auto-throttle is off.
   */
  long autoThrottleBytesPerSec() {
    double mb = getAutoIOThrottle() ? getIORateLimitMBPerSec() : Double.POSITIVE_INFINITY;
    return (long) (mb * 1024 * 1024); // an infinite rate casts to Long.MAX_VALUE, as in ES
  }

  /**
   * A fixed thread pool that adds the CPU time of each task it runs to a counter, measured on the
   * worker thread before and after the task. Thread-safe as {@link ThreadPoolExecutor} is; the
   * start time is per thread.
   */
  private static final class CpuTimedPool extends ThreadPoolExecutor {
    private final LongAdder cpuNanos;
    private final ThreadLocal<long[]> start = ThreadLocal.withInitial(() -> new long[1]);

    CpuTimedPool(int threads, ThreadFactory factory, LongAdder cpuNanos) {
      super(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), factory);
      this.cpuNanos = cpuNanos;
    }

    @Override
    protected void beforeExecute(Thread t, Runnable r) {
      start.get()[0] = threadCpuNanos();
    }

    @Override
    protected void afterExecute(Runnable r, Throwable t) {
      cpuNanos.add(threadCpuNanos() - start.get()[0]);
    }
  }
}
