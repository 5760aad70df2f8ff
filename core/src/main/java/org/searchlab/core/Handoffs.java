package org.searchlab.core;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Hands tasks from a thread that finishes many requests at once to the executors that answer them,
 * one submission per executor for the whole group instead of one per request.
 *
 * <p>Why: a store's writer acknowledges a batch of writes in one loop, and each acknowledgement
 * hands its response to the connection's event loop. Each such hand-off to a sleeping Netty event
 * loop is a wake-up, a system call on the writer's own thread: on a feed through Vespa's feed
 * client (one HTTP/2 connection, about 17 documents per writer batch) a profile of the mutable
 * store's writer found 14% of its samples in {@code NioIoHandler.wakeup}, on the thread every
 * document waits for. Inside {@link #grouped}, {@link #execute} collects the tasks instead, and
 * they go to each executor as one task when the group ends: one wake-up per event loop per batch.
 *
 * <p>Semantics: outside a group, {@link #execute} is {@code executor.execute(task)}. Inside one,
 * tasks for the same executor run in the order they were handed off, on that executor, after the
 * group's body returns (or throws). A task that throws does not stop the ones after it; the first
 * failure is rethrown on the executor (which logs it, as it would a lone task) with the others
 * suppressed. If an executor refuses the group (it is shutting down), every task's {@code
 * onRejected} runs on the calling thread, as it would have for a lone task. Groups nest: an inner
 * one joins the outer, which submits.
 *
 * <p>Thread-safety: a group belongs to the thread that opened it (a thread-local); any number of
 * threads may group at once.
 */
public final class Handoffs {
  private static final ThreadLocal<Map<Executor, List<Handoff>>> OPEN = new ThreadLocal<>();

  private Handoffs() {}

  private record Handoff(Runnable task, Runnable onRejected) {}

  /**
   * Runs {@code body}; the tasks it hands off through {@link #execute} are submitted when it ends,
   * one submission per executor.
   */
  public static void grouped(Runnable body) {
    if (OPEN.get() != null) {
      body.run();
      return;
    }
    Map<Executor, List<Handoff>> group = new IdentityHashMap<>();
    OPEN.set(group);
    try {
      body.run();
    } finally {
      OPEN.remove();
      for (Map.Entry<Executor, List<Handoff>> e : group.entrySet()) {
        submit(e.getKey(), e.getValue());
      }
    }
  }

  /**
   * Runs {@code task} on {@code executor}: now, or at the end of the calling thread's open group.
   * If the executor refuses it, {@code onRejected} runs on the calling thread instead.
   */
  public static void execute(Executor executor, Runnable task, Runnable onRejected) {
    Map<Executor, List<Handoff>> group = OPEN.get();
    if (group != null) {
      group.computeIfAbsent(executor, x -> new ArrayList<>()).add(new Handoff(task, onRejected));
      return;
    }
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      onRejected.run();
    }
  }

  private static void submit(Executor executor, List<Handoff> tasks) {
    Runnable all =
        tasks.size() == 1
            ? tasks.get(0).task()
            : () -> {
              Throwable first = null;
              for (Handoff h : tasks) {
                try {
                  h.task().run();
                } catch (Throwable t) {
                  if (first == null) {
                    first = t;
                  } else {
                    first.addSuppressed(t);
                  }
                }
              }
              if (first instanceof RuntimeException r) {
                throw r;
              } else if (first instanceof Error err) {
                throw err;
              } else if (first != null) {
                throw new IllegalStateException(first);
              }
            };
    try {
      executor.execute(all);
    } catch (RejectedExecutionException e) {
      for (Handoff h : tasks) {
        h.onRejected().run();
      }
    }
  }
}
