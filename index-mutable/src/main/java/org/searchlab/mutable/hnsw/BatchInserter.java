package org.searchlab.mutable.hnsw;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.searchlab.core.InvalidRequestException;

/**
 * The parallel build path of {@link MutableHnswGraph#insertAll}: Vespa's two-phase insert, in
 * batches.
 *
 * <ol>
 *   <li>The writer stores every vector and draws every level in input order (so levels do not
 *       depend on thread timing).
 *   <li>For each batch of {@link #BATCH} nodes, the build threads run phase one (neighbour search
 *       and selection) against the graph as it stands, which the writer does not touch meanwhile. A
 *       node also scores the nodes before it in the same batch directly, so that it does not miss
 *       them for not being linked yet.
 *   <li>The writer then links the batch in input order (phase two). Every selected neighbour is
 *       either in the graph or earlier in the batch, hence linked already.
 * </ol>
 *
 * Given the batch size, the result does not depend on the thread count or scheduling. With one
 * build thread nodes are inserted one by one, exactly like {@link HnswBuilder#insert}; so is a call
 * with one node (phase one of a lone node sees no batch, which is what {@code insert} does).
 *
 * <p>The pool lives as long as the graph: a store calls this once per writer batch, and starting
 * {@code buildThreads − 1} threads per call would cost more than a small batch's inserts. Its
 * threads end after {@link #IDLE_SECONDS} without work (so an idle or dropped graph holds none) and
 * start again on the next call.
 *
 * <p>Thread-safety: {@link #insertAll} by the graph's one writer thread at a time; the pool is
 * created lazily by that thread.
 */
final class BatchInserter {
  /** Nodes per batch: big enough to keep the threads busy, small enough to see recent links. */
  static final int BATCH = 256;

  /** Seconds a build thread waits for work before it ends. */
  static final long IDLE_SECONDS = 30;

  private final HnswBuilder builder;
  private ThreadPoolExecutor pool; // writer-only; null until the first parallel call

  BatchInserter(HnswBuilder builder) {
    this.builder = builder;
  }

  private ExecutorService pool(int size) {
    if (pool == null) {
      pool =
          new ThreadPoolExecutor(
              size,
              size,
              IDLE_SECONDS,
              TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(),
              r -> {
                Thread th = new Thread(r, "hnsw-build");
                th.setDaemon(true);
                return th;
              });
      pool.allowCoreThreadTimeOut(true);
    }
    return pool;
  }

  /**
   * Ends the build threads (they finish their work first); the next parallel insert starts new ones
   * from its own thread. A Linux thread starts with its creator's nice value, so the store calls
   * this after the replay on the opening thread, and the writer's build threads then share the
   * writer's priority. Writer-only.
   */
  void releaseThreads() {
    if (pool != null) {
      pool.shutdown();
      pool = null;
    }
  }

  void insertAll(int[] nodes, float[][] vectors) {
    Set<Integer> seen = new HashSet<>();
    for (int node : nodes) {
      builder.checkAbsent(node);
      if (!seen.add(node)) {
        throw new InvalidRequestException("node " + node + " appears twice in insertAll");
      }
    }
    int threads = builder.config().buildThreads();
    if (threads == 1 || nodes.length == 1) {
      for (int i = 0; i < nodes.length; i++) {
        builder.insert(nodes[i], vectors[i]);
      }
      return;
    }
    VectorStore store = builder.vectors();
    int[] levels = new int[nodes.length];
    for (int i = 0; i < nodes.length; i++) {
      store.set(nodes[i], vectors[i]);
      levels[i] = builder.randomLevel();
    }
    HnswSearcher[] searchers = new HnswSearcher[threads];
    for (int t = 0; t < threads; t++) {
      searchers[t] = builder.newBuildSearcher();
    }
    ExecutorService workers = pool(threads - 1);
    HnswBuilder.Prepared[] prepared = new HnswBuilder.Prepared[BATCH];
    for (int from = 0; from < nodes.length; from += BATCH) {
      int to = Math.min(nodes.length, from + BATCH);
      runPhaseOne(workers, searchers, nodes, levels, from, to, prepared);
      for (int i = from; i < to; i++) {
        builder.link(prepared[i - from]);
        prepared[i - from] = null;
      }
    }
  }

  private void runPhaseOne(
      ExecutorService pool,
      HnswSearcher[] searchers,
      int[] nodes,
      int[] levels,
      int from,
      int to,
      HnswBuilder.Prepared[] out) {
    AtomicInteger next = new AtomicInteger(from);
    VectorStore store = builder.vectors();
    Future<?>[] futures = new Future<?>[searchers.length - 1];
    for (int t = 1; t < searchers.length; t++) {
      HnswSearcher s = searchers[t];
      futures[t - 1] = pool.submit(() -> work(s, next, nodes, levels, from, to, out, store));
    }
    work(searchers[0], next, nodes, levels, from, to, out, store);
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while building the builder", e);
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException("a builder build thread failed", e.getCause());
      }
    }
  }

  private void work(
      HnswSearcher s,
      AtomicInteger next,
      int[] nodes,
      int[] levels,
      int from,
      int to,
      HnswBuilder.Prepared[] out,
      VectorStore store) {
    int i;
    while ((i = next.getAndIncrement()) < to) {
      out[i - from] =
          builder.prepare(s, nodes[i], store.get(nodes[i]), levels[i], nodes, levels, from, i);
    }
  }
}
