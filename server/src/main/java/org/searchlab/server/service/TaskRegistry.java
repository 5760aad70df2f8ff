package org.searchlab.server.service;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The work a server does in the background for requests that did not wait for it (Elasticsearch's
 * task management API: {@code _forcemerge?wait_for_completion=false} answers with a task id, and
 * {@code GET /_tasks/{id}} reports on it). Each task has an id unique in this process (increasing
 * from 1), an action name, a description, the time it was registered, and once finished its result
 * or its failure. Running tasks stay until they finish; finished ones are remembered up to {@code
 * maxFinished}, the oldest finished forgotten first, so the registry's memory is bounded by {@link
 * #MAX_RUNNING} + {@code maxFinished} tasks.
 *
 * <p>Thread-safe: one lock guards the id counter and both maps; a task's state moves once, from
 * running to finished, through its {@link CompletableFuture}.
 *
 * @param <R> the result of a finished task
 */
public final class TaskRegistry<R> {
  /** The most tasks running (or waiting for a thread) at once; one more is refused. */
  public static final int MAX_RUNNING = 10_000;

  private final int maxFinished;
  private final Map<Long, Task<R>> running = new LinkedHashMap<>();
  private final Map<Long, Task<R>> finished = new LinkedHashMap<>();
  private long nextId = 1;

  /**
   * @param maxFinished finished tasks remembered, 1 to 1,000,000; more answers more late {@code GET
   *     /_tasks/{id}} calls and costs a few hundred bytes each
   */
  public TaskRegistry(int maxFinished) {
    if (maxFinished < 1 || maxFinished > 1_000_000) {
      throw new IllegalArgumentException("maxFinished " + maxFinished + " is outside [1, 1000000]");
    }
    this.maxFinished = maxFinished;
  }

  /**
   * Registers a task that is about to be handed to an executor.
   *
   * @throws IllegalStateException when {@link #MAX_RUNNING} tasks are running already
   */
  public Task<R> register(String action, String description) {
    synchronized (this) {
      if (running.size() >= MAX_RUNNING) {
        throw new IllegalStateException(
            running.size() + " tasks are running, the limit; retry when some have finished");
      }
      Task<R> t = new Task<>(this, nextId++, action, description);
      running.put(t.id, t);
      return t;
    }
  }

  /** Forgets a task that never ran because its executor refused it. */
  public synchronized void unregister(Task<R> task) {
    running.remove(task.id);
  }

  /** The task with {@code id}, running or remembered as finished. */
  public synchronized Optional<Task<R>> get(long id) {
    Task<R> t = running.get(id);
    return Optional.ofNullable(t != null ? t : finished.get(id));
  }

  /** The running tasks, in the order they were registered. */
  public synchronized List<Task<R>> running() {
    return new ArrayList<>(running.values());
  }

  private synchronized void finish(Task<R> task) {
    if (running.remove(task.id) == null) {
      return; // unregistered: it never ran
    }
    finished.put(task.id, task);
    Iterator<Task<R>> it = finished.values().iterator();
    while (finished.size() > maxFinished) {
      it.next();
      it.remove();
    }
    assert finished.size() <= maxFinished && running.size() <= MAX_RUNNING
        : finished.size() + " finished, " + running.size() + " running: over the bounds";
  }

  /**
   * One task. Its state is set once, by {@link #complete} or {@link #fail}; everything else is
   * immutable. Thread-safe.
   *
   * @param <R> its result
   */
  public static final class Task<R> {
    private final TaskRegistry<R> registry;
    private final long id;
    private final String action;
    private final String description;
    private final long startMillis = System.currentTimeMillis();
    private final long startNanos = System.nanoTime();
    private final CompletableFuture<R> outcome = new CompletableFuture<>();
    private volatile long endNanos;
    private volatile boolean ended;
    private volatile boolean started;

    private Task(TaskRegistry<R> registry, long id, String action, String description) {
      this.registry = registry;
      this.id = id;
      this.action = action;
      this.description = description;
    }

    public long id() {
      return id;
    }

    /** The action's name, such as {@code indices:admin/forcemerge}. */
    public String action() {
      return action;
    }

    public String description() {
      return description;
    }

    /** When the task was registered, in milliseconds since the epoch. */
    public long startMillis() {
      return startMillis;
    }

    /** Nanoseconds since the task was registered, or until it finished. */
    public long runningNanos() {
      return (ended ? endNanos : System.nanoTime()) - startNanos;
    }

    /** Marks that a thread has picked the task up (it is no longer waiting in a queue). */
    public void started() {
      started = true;
    }

    /** Whether a thread has picked the task up. */
    public boolean isStarted() {
      return started;
    }

    public boolean isDone() {
      return outcome.isDone();
    }

    /** The result, when the task finished without failing. */
    public Optional<R> result() {
      return outcome.isDone() && !outcome.isCompletedExceptionally()
          ? Optional.of(outcome.join())
          : Optional.empty();
    }

    /** The failure, when the task finished with one. */
    public Optional<Throwable> failure() {
      if (!outcome.isCompletedExceptionally()) {
        return Optional.empty();
      }
      return Optional.of(outcome.handle((r, e) -> e).join());
    }

    /** Completes when the task finishes, either way; never fails. */
    public CompletableFuture<Void> whenDone() {
      return outcome.handle((r, e) -> null);
    }

    /** Finishes the task with its result; the first of {@code complete} and {@code fail} wins. */
    public void complete(R result) {
      if (claimEnd()) {
        // Out of the running list before anyone can see the outcome: a client told "completed"
        // must not find the task still running in the next listing.
        registry.finish(this);
        outcome.complete(result);
      }
    }

    /** Finishes the task with a failure; the first of {@code complete} and {@code fail} wins. */
    public void fail(Throwable failure) {
      if (claimEnd()) {
        registry.finish(this);
        outcome.completeExceptionally(failure);
      }
    }

    /** Records the end time once; true for the one caller that finishes the task. */
    private synchronized boolean claimEnd() {
      if (ended) {
        return false;
      }
      endNanos = System.nanoTime();
      ended = true;
      return true;
    }
  }
}
