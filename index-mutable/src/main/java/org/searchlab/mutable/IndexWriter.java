package org.searchlab.mutable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.DocumentExistsException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.WriteResult;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.core.wal.WriteAheadLog;
import org.searchlab.mutable.postings.FieldIndex;

/**
 * The single writer of a mutable index: one thread that takes operations from a queue in batches,
 * decides their outcomes, logs them in one write-ahead log append, waits until the log is durable
 * under the sync policy, applies them in log order and only then publishes them to searches and
 * acknowledges them.
 *
 * <p>How a put becomes visible, step by step (an update that changes text or the vector is a put of
 * the merged document):
 *
 * <ol>
 *   <li>a new local id is allocated, born at the operation's serial (invisible to every running
 *       search, whose serial is older);
 *   <li>its postings and norms, attributes and stored document are written;
 *   <li>the previous version, if any, is retired with the same serial: statistics drop it, its
 *       alive bit is cleared, get now finds the new version; its postings and graph node stay for
 *       the searches still running, until the {@link Compactor} removes them;
 *   <li>after the whole batch, the graph nodes of the batch's new versions are linked (neighbour
 *       search on the build threads, linking here);
 *   <li>the batch's last serial is published: searches that start now see every new version and
 *       none of the old.
 * </ol>
 *
 * An update that assigns only attributes is applied in place ({@link
 * org.searchlab.mutable.attributes.AttributeStore#update}): no analysis, no postings, no graph.
 *
 * <p>Thread safety: {@link #submit} and {@link #onWriter} from any thread; everything else runs on
 * the writer thread (or, while opening, on the opening thread before the writer starts). {@link
 * #lock} is held while structures change; the compactor takes it for short steps.
 */
final class IndexWriter implements AutoCloseable {
  private final IndexParts parts;
  private final WriteAheadLog wal;
  private final int batchMax;
  final ReentrantLock lock = new ReentrantLock();
  private final LinkedBlockingDeque<Task> queue = new LinkedBlockingDeque<>();
  private final Thread thread;
  private final Runnable afterBatch;
  private volatile boolean running = true;

  // Writer-owned (guarded by lock).
  private int[] retired = new int[256];
  private int retiredCount;
  private int[] pendingIds = new int[64];
  private float[][] pendingVectors = new float[64][];
  private int pendingCount;

  private sealed interface Task {}

  private record Writes(List<Operation> ops, CompletableFuture<List<BulkItemResult>> done)
      implements Task {}

  private record Control(Callable<?> body, CompletableFuture<Object> done) implements Task {}

  IndexWriter(IndexParts parts, WriteAheadLog wal, int batchMax, Runnable afterBatch) {
    this.parts = parts;
    this.wal = wal;
    this.batchMax = batchMax;
    this.afterBatch = afterBatch;
    this.thread = new Thread(this::loop, "mutable-index-writer");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /**
   * Logs, applies and publishes validated operations; returns once they are acknowledged. A create
   * of a present id (decided here, on the one writer thread, so against every other write of that
   * id) fails alone with {@link DocumentExistsException} and is not logged.
   */
  List<BulkItemResult> submit(List<Operation> ops) throws IOException {
    CompletableFuture<List<BulkItemResult>> done = new CompletableFuture<>();
    enqueue(new Writes(ops, done));
    return await(done);
  }

  /** Runs {@code body} on the writer thread between batches, holding the lock. */
  @SuppressWarnings("unchecked")
  <T> T onWriter(Callable<T> body) throws IOException {
    CompletableFuture<Object> done = new CompletableFuture<>();
    enqueue(new Control(body, done));
    return (T) await(done);
  }

  private void enqueue(Task t) {
    if (!running) {
      throw new IllegalStateException("the mutable index is closed");
    }
    queue.add(t);
  }

  private static <T> T await(CompletableFuture<T> f) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the writer", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof RuntimeException re) {
        throw re;
      }
      throw new IOException("writer failed", c);
    }
  }

  private void loop() {
    while (running || !queue.isEmpty()) {
      Task t;
      try {
        t = queue.poll(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        continue;
      }
      if (t == null) {
        continue;
      }
      if (t instanceof Control c) {
        lock.lock();
        try {
          c.done.complete(c.body.call());
        } catch (Throwable e) {
          c.done.completeExceptionally(e);
        } finally {
          lock.unlock();
        }
        continue;
      }
      List<Writes> batch = new ArrayList<>();
      batch.add((Writes) t);
      int ops = ((Writes) t).ops.size();
      while (ops < batchMax && queue.peekFirst() instanceof Writes w) {
        queue.pollFirst();
        batch.add(w);
        ops += w.ops.size();
      }
      process(batch);
      afterBatch.run();
    }
  }

  private void process(List<Writes> batch) {
    try {
      Map<String, Boolean> exists = new HashMap<>();
      List<byte[]> payloads = new ArrayList<>();
      List<Operation> toApply = new ArrayList<>();
      List<List<BulkItemResult>> results = new ArrayList<>();
      List<int[]> logged = new ArrayList<>(); // (batch index, op index) of each logged op
      for (int b = 0; b < batch.size(); b++) {
        List<Operation> ops = batch.get(b).ops;
        List<BulkItemResult> rs = new ArrayList<>(ops.size());
        for (int i = 0; i < ops.size(); i++) {
          Operation op = ops.get(i);
          boolean present = exists.computeIfAbsent(op.id(), id -> parts.ids.lookup(id) >= 0);
          if (present && op instanceof Operation.Put p && p.ifAbsent()) {
            rs.add(BulkItemResult.failed(op, new DocumentExistsException(op.id())));
            continue;
          }
          WriteResult.Outcome outcome = outcome(op, present);
          rs.add(BulkItemResult.ok(op, new WriteResult(op.id(), 0, outcome)));
          if (outcome != WriteResult.Outcome.NOT_FOUND) {
            payloads.add(OperationCodec.encode(op));
            toApply.add(op);
            logged.add(new int[] {b, i});
            exists.put(op.id(), !(op instanceof Operation.Delete));
          }
        }
        results.add(rs);
      }
      if (!payloads.isEmpty()) {
        long last = wal.writeAll(payloads);
        wal.sync(last);
        long first = last - payloads.size() + 1;
        lock.lock();
        try {
          for (int i = 0; i < toApply.size(); i++) {
            apply(toApply.get(i), first + i);
          }
          finishBatch(last);
        } finally {
          lock.unlock();
        }
        for (int i = 0; i < logged.size(); i++) {
          int[] at = logged.get(i);
          BulkItemResult r = results.get(at[0]).get(at[1]);
          WriteResult w = r.result();
          results
              .get(at[0])
              .set(
                  at[1],
                  BulkItemResult.ok(r.op(), new WriteResult(w.id(), first + i, w.outcome())));
        }
      }
      for (int b = 0; b < batch.size(); b++) {
        batch.get(b).done.complete(results.get(b));
      }
    } catch (Throwable e) {
      for (Writes w : batch) {
        w.done.completeExceptionally(e);
      }
    }
  }

  private static WriteResult.Outcome outcome(Operation op, boolean present) {
    return switch (op) {
      case Operation.Put p -> present ? WriteResult.Outcome.UPDATED : WriteResult.Outcome.CREATED;
      case Operation.Update u ->
          present ? WriteResult.Outcome.UPDATED : WriteResult.Outcome.NOT_FOUND;
      case Operation.Delete d ->
          present ? WriteResult.Outcome.DELETED : WriteResult.Outcome.NOT_FOUND;
    };
  }

  /** Applies one logged operation (writer thread, lock held, or replay while opening). */
  void apply(Operation op, long serial) {
    switch (op) {
      case Operation.Put p -> putDocument(p.document(), serial);
      case Operation.Update u -> {
        int old = parts.ids.lookup(u.id());
        if (old < 0) {
          return;
        }
        PartialUpdate upd = u.update();
        if (upd.onlyAttributes()) {
          parts.attributes.update(old, upd.category(), upd.price(), upd.averageRating());
          parts.documents.put(old, upd.applyTo(parts.documents.get(old)));
          parts.inPlaceUpdates.incrementAndGet();
        } else {
          parts.reindexedUpdates.incrementAndGet();
          putDocument(upd.applyTo(parts.document(old)), serial);
        }
      }
      case Operation.Delete d -> {
        int old = parts.ids.lookup(d.id());
        if (old >= 0) {
          retire(d.id(), old, serial, true);
        }
      }
    }
  }

  private void putDocument(Document doc, long serial) {
    int old = parts.ids.lookup(doc.id());
    int local = parts.ids.allocate(doc.id(), serial);
    long touched = 0;
    List<String> title = TextAnalysis.tokens(doc.title());
    List<String> description = TextAnalysis.tokens(doc.description());
    touched += parts.fields.get(0).add(local, title);
    touched += parts.fields.get(1).add(local, description);
    parts.postingListsTouched.addAndGet(touched);
    parts.attributes.set(local, doc.category(), doc.price(), doc.averageRating());
    parts.documents.put(local, IndexParts.withoutVector(doc));
    if (doc.embedding() != null) {
      // The vector is readable at once (a real-time get finds the document whole); the graph
      // links it when the batch ends.
      parts.vectors.vectors().set(local, doc.embedding());
      if (pendingCount == pendingIds.length) {
        pendingIds = java.util.Arrays.copyOf(pendingIds, pendingCount * 2);
        pendingVectors = java.util.Arrays.copyOf(pendingVectors, pendingCount * 2);
      }
      pendingIds[pendingCount] = local;
      pendingVectors[pendingCount++] = doc.embedding();
    }
    if (old >= 0) {
      retire(doc.id(), old, serial, false);
    }
    parts.ids.activate(doc.id(), local);
  }

  private void retire(String id, int local, long serial, boolean removeMapping) {
    Document doc = parts.documents.get(local);
    List<FieldIndex> fields = parts.fields;
    fields.get(0).remove(TextAnalysis.tokens(doc.title()));
    fields.get(1).remove(TextAnalysis.tokens(doc.description()));
    // The graph node stays until the compactor removes it after a grace period, so searches that
    // started before this retirement still find this version's vector (they see it whole).
    parts.ids.retire(id, local, serial, removeMapping);
    if (retiredCount == retired.length) {
      retired = java.util.Arrays.copyOf(retired, retiredCount * 2);
    }
    retired[retiredCount++] = local;
  }

  /** Links the batch's new graph nodes that are still alive, then publishes {@code serial}. */
  void finishBatch(long serial) {
    if (pendingCount > 0) {
      int n = 0;
      int[] ids = new int[pendingCount];
      float[][] vecs = new float[pendingCount][];
      for (int i = 0; i < pendingCount; i++) {
        if (parts.ids.alive(pendingIds[i])) {
          ids[n] = pendingIds[i];
          vecs[n++] = pendingVectors[i];
        }
        pendingVectors[i] = null;
      }
      pendingCount = 0;
      if (n > 0) {
        parts.vectors.insertAll(java.util.Arrays.copyOf(ids, n), java.util.Arrays.copyOf(vecs, n));
      }
    }
    parts.ids.publish(serial);
  }

  /** Lock held: retired ids not yet handed to the compactor. */
  int retiredCount() {
    return retiredCount;
  }

  /** Lock held: hands over the retired ids. */
  int[] takeRetired() {
    int[] out = java.util.Arrays.copyOf(retired, retiredCount);
    retiredCount = 0;
    return out;
  }

  /** Stops after the queued tasks; idempotent. */
  @Override
  public void close() {
    running = false;
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted closing the writer", e));
    }
  }
}
