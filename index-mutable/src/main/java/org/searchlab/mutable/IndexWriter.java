// Just over 500 lines: the writer thread's loop, batching, log writes, apply and close in one
// class, because their order is the store's durability and publication argument.
package org.searchlab.mutable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.searchlab.core.FeedNiceness;
import org.searchlab.core.Handoffs;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.StoreStoppedException;
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
 * org.searchlab.mutable.attributes.AttributeStore#update}): no analysis, no postings, no graph. A
 * re-put (or update) is as cheap as what it changes: with the text unchanged it is applied in place
 * on the current version (attributes assigned, the vector relinked only if it changed, no
 * postings); with the text changed but the vector bitwise equal, the new version takes over the old
 * one's graph node ({@link VectorPart#handOver}) instead of a removal and a fresh insert. The
 * store's stats count both ({@code unchanged_text_puts}, {@code unchanged_vector_puts}).
 *
 * <p>Fail-stop: a batch that fails once its log write has started, or a writer thread that dies,
 * stops the writer: the queued and every later task fail at once with the first failure (instead of
 * waiting for a thread that will never answer), and {@link #failure()} reports it until the index
 * is reopened. A batch that fails before its log write (nothing logged) fails alone.
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
  private volatile Throwable failure;

  // Writer-owned (guarded by lock).
  private int[] retired = new int[256];
  private int retiredCount;
  private int[] pendingIds = new int[64];
  private float[][] pendingVectors = new float[64][];
  private int pendingCount;

  private sealed interface Task {}

  /**
   * A request's operations with the work done for them on the caller's thread: each one's log
   * record, and the analysed text of a put of an id that was absent when it was submitted (null
   * elsewhere). Both are pure functions of the operation, so the writer thread, the one serial
   * stage of the store's writes, only logs and applies, while the next request is prepared beside
   * it.
   */
  private record Writes(
      List<Operation> ops,
      List<byte[]> payloads,
      Analyzed[] analyzed,
      CompletableFuture<List<BulkItemResult>> done)
      implements Task {}

  /** The analysed title and description of a put, in token order. */
  record Analyzed(List<String> title, List<String> description) {
    static Analyzed of(Document d) {
      return new Analyzed(TextAnalysis.tokens(d.title()), TextAnalysis.tokens(d.description()));
    }
  }

  private record Control(Callable<?> body, CompletableFuture<Object> done) implements Task {}

  /**
   * @param niceness the writer thread's feed niceness; the graph-build threads it starts inherit it
   *     (a Linux thread starts with its creator's nice value)
   */
  IndexWriter(
      IndexParts parts, WriteAheadLog wal, int batchMax, double niceness, Runnable afterBatch) {
    this.parts = parts;
    this.wal = wal;
    this.batchMax = batchMax;
    this.afterBatch = afterBatch;
    this.thread = new Thread(FeedNiceness.niced(niceness, this::loop), "mutable-index-writer");
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
    return await(submitAsync(ops));
  }

  /**
   * {@link #submit} without waiting: the future completes once the operations are acknowledged, or
   * fails with what {@code submit} would throw.
   */
  CompletableFuture<List<BulkItemResult>> submitAsync(List<Operation> ops) throws IOException {
    CompletableFuture<List<BulkItemResult>> done = new CompletableFuture<>();
    List<byte[]> payloads = new ArrayList<>(ops.size());
    Analyzed[] analyzed = new Analyzed[ops.size()];
    for (int i = 0; i < ops.size(); i++) {
      Operation op = ops.get(i);
      payloads.add(OperationCodec.encode(op));
      // A put of an absent id will be analysed; one of a present id is usually a refeed of the
      // same text, applied in place without analysis, so that is left to the writer. A wrong guess
      // (the id comes or goes meanwhile) only moves the work back to the writer or wastes it.
      if (op instanceof Operation.Put p && parts.ids.lookup(p.id()) < 0) {
        analyzed[i] = Analyzed.of(p.document());
      }
    }
    enqueue(new Writes(ops, payloads, analyzed, done));
    return done;
  }

  /** Runs {@code body} on the writer thread between batches, holding the lock. */
  @SuppressWarnings("unchecked")
  <T> T onWriter(Callable<T> body) throws IOException {
    CompletableFuture<Object> done = new CompletableFuture<>();
    enqueue(new Control(body, done));
    return (T) await(done);
  }

  private void enqueue(Task t) throws IOException {
    if (!running) {
      throw new IllegalStateException("the mutable index is closed");
    }
    throwIfFailed();
    queue.add(t);
    if (failure != null) {
      // The writer stopped between the check and the add: it will never take t; fail it here.
      drain();
    }
  }

  /** The failure that stopped the writer, if one did: it refuses writes until the index reopens. */
  java.util.Optional<Throwable> failure() {
    return java.util.Optional.ofNullable(failure);
  }

  private void throwIfFailed() throws IOException {
    Throwable f = failure;
    if (f != null) {
      throw stopped(f);
    }
  }

  private static StoreStoppedException stopped(Throwable f) {
    return new StoreStoppedException(
        "the mutable index writer stopped after a failure ("
            + f
            + "); it accepts no writes until the index is reopened",
        f);
  }

  /** Records the first failure; from now on every task fails. */
  private void stop(Throwable e) {
    synchronized (this) {
      if (failure == null) {
        failure = e;
      }
    }
    drain();
  }

  private void drain() {
    StoreStoppedException e = stopped(failure);
    for (Task t; (t = queue.poll()) != null; ) {
      switch (t) {
        case Writes w -> w.done.completeExceptionally(e);
        case Control c -> c.done.completeExceptionally(e);
      }
    }
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
    try {
      run();
    } catch (Throwable e) {
      // Whatever killed the loop (an Error, a failing callback): nobody may wait for it.
      stop(e);
    }
  }

  private void run() {
    while ((running || !queue.isEmpty()) && failure == null) {
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
    boolean logging = false;
    long t0 = System.nanoTime();
    try {
      Map<String, Boolean> exists = new HashMap<>();
      List<byte[]> payloads = new ArrayList<>();
      List<Operation> toApply = new ArrayList<>();
      List<Analyzed> analyses = new ArrayList<>();
      List<List<BulkItemResult>> results = new ArrayList<>();
      List<int[]> logged = new ArrayList<>(); // (batch index, op index) of each logged op
      for (int b = 0; b < batch.size(); b++) {
        Writes w = batch.get(b);
        List<Operation> ops = w.ops;
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
            payloads.add(w.payloads.get(i));
            toApply.add(op);
            analyses.add(w.analyzed[i]);
            logged.add(new int[] {b, i});
            exists.put(op.id(), !(op instanceof Operation.Delete));
          }
        }
        results.add(rs);
      }
      if (!payloads.isEmpty()) {
        logging = true;
        long t1 = System.nanoTime();
        long last = wal.writeAll(payloads);
        long t2 = System.nanoTime();
        wal.sync(last);
        long t3 = System.nanoTime();
        long first = last - payloads.size() + 1;
        long t4;
        lock.lock();
        try {
          for (int i = 0; i < toApply.size(); i++) {
            apply(toApply.get(i), first + i, analyses.get(i));
          }
          t4 = System.nanoTime();
          finishBatch(last);
        } finally {
          lock.unlock();
        }
        long t5 = System.nanoTime();
        parts.writerBatches.incrementAndGet();
        parts.writerCheckNanos.addAndGet(t1 - t0);
        parts.writerLogWriteNanos.addAndGet(t2 - t1);
        parts.writerLogSyncNanos.addAndGet(t3 - t2);
        parts.writerApplyNanos.addAndGet(t4 - t3);
        parts.writerGraphNanos.addAndGet(t5 - t4);
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
      // Grouped: the answers of the whole batch reach each connection's event loop as one task.
      Handoffs.grouped(
          () -> {
            for (int b = 0; b < batch.size(); b++) {
              batch.get(b).done.complete(results.get(b));
            }
          });
    } catch (Throwable e) {
      for (Writes w : batch) {
        w.done.completeExceptionally(e);
      }
      if (logging) {
        // The log may hold the batch, or part of it, while the index does not: carrying on would
        // serve a state that a restart does not give back. Stop until the index is reopened.
        stop(e);
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
    apply(op, serial, null);
  }

  /** {@link #apply(Operation, long)} with a put's text analysed already, or null. */
  private void apply(Operation op, long serial, Analyzed analyzed) {
    switch (op) {
      case Operation.Put p -> putDocument(p.document(), serial, analyzed);
      case Operation.Update u -> {
        int old = parts.ids.lookup(u.id());
        if (old < 0) {
          return;
        }
        PartialUpdate upd = u.update();
        if (upd.onlyAttributes()) {
          // The columns are the attributes' only home (the document store keeps the text), so the
          // assignment is the whole update.
          parts.attributes.update(old, upd.category(), upd.price(), upd.averageRating());
          parts.inPlaceUpdates.incrementAndGet();
        } else {
          parts.reindexedUpdates.incrementAndGet();
          putDocument(upd.applyTo(parts.document(old)), serial, null);
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

  private void putDocument(Document doc, long serial, Analyzed analyzed) {
    int old = parts.ids.lookup(doc.id());
    if (old >= 0 && putInPlace(old, doc)) {
      return;
    }
    int local = parts.ids.allocate(doc.id(), serial);
    long touched = 0;
    Analyzed text = analyzed != null ? analyzed : Analyzed.of(doc);
    touched += parts.fields.get(0).add(local, text.title());
    touched += parts.fields.get(1).add(local, text.description());
    parts.postingListsTouched.addAndGet(touched);
    parts.attributes.set(local, doc.category(), doc.price(), doc.averageRating());
    parts.documents.put(local, IndexParts.withoutVector(doc));
    if (doc.embedding() != null) {
      // The vector is readable at once (a real-time get finds the document whole); the graph
      // links it when the batch ends.
      parts.vectors.vectors().set(local, doc.embedding());
      if (old >= 0
          && parts.vectors.linked(old)
          && parts.vectors.vectors().holds(old, doc.embedding())) {
        // Same vector, new text: the new version takes the old one's graph node as it is.
        parts.vectors.handOver(old, local);
        parts.unchangedVectorPuts.incrementAndGet();
      } else {
        addPending(local, doc.embedding());
      }
    }
    if (old >= 0) {
      retire(doc.id(), old, serial, false);
    }
    parts.ids.activate(doc.id(), local);
  }

  /**
   * A re-put whose text is unchanged, applied in place on the current version's local id: the
   * attributes are assigned, an equal vector is left alone and a changed one is relinked, and no
   * posting list, stored text or id changes. Returns false (and does nothing) when the text
   * differs, a vector appears or disappears, or the vector is not linked yet (put earlier in this
   * batch): then the put takes a new version. Unlike a new version this is visible at once, as an
   * attribute update is.
   */
  private boolean putInPlace(int old, Document doc) {
    Document stored = parts.documents.get(old);
    if (!stored.title().equals(doc.title()) || !stored.description().equals(doc.description())) {
      return false;
    }
    boolean had = parts.vectors.vectors().row(old) != null; // row(): no copy of the vector
    float[] now = doc.embedding();
    if (had != (now != null) || (now != null && !parts.vectors.linked(old))) {
      return false;
    }
    parts.attributes.assign(old, doc.category(), doc.price(), doc.averageRating());
    if (now != null) {
      if (parts.vectors.vectors().holds(old, now)) {
        parts.unchangedVectorPuts.incrementAndGet();
      } else {
        parts.vectors.replaceVector(old, now);
      }
    }
    parts.unchangedTextPuts.incrementAndGet();
    return true;
  }

  private void addPending(int local, float[] vector) {
    if (pendingCount == pendingIds.length) {
      pendingIds = Arrays.copyOf(pendingIds, pendingCount * 2);
      pendingVectors = Arrays.copyOf(pendingVectors, pendingCount * 2);
    }
    pendingIds[pendingCount] = local;
    pendingVectors[pendingCount++] = vector;
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
      retired = Arrays.copyOf(retired, retiredCount * 2);
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
        parts.vectors.insertAll(Arrays.copyOf(ids, n), Arrays.copyOf(vecs, n));
      }
    }
    parts.ids.publish(serial);
  }

  /** Before start: retired ids a snapshot kept in the graph, handed to the compactor later. */
  void adoptRetired(int[] ids) {
    for (int id : ids) {
      if (retiredCount == retired.length) {
        retired = Arrays.copyOf(retired, retiredCount * 2);
      }
      retired[retiredCount++] = id;
    }
  }

  /** Lock held: retired ids not yet handed to the compactor. */
  int retiredCount() {
    return retiredCount;
  }

  /** Lock held: hands over the retired ids. */
  int[] takeRetired() {
    int[] out = Arrays.copyOf(retired, retiredCount);
    retiredCount = 0;
    return out;
  }

  /** Stops after the queued tasks; idempotent. */
  @Override
  public void close() {
    running = false;
    // Wakes the writer if it waits for a task: otherwise it sees the flag only when its poll
    // times out, and every close waits up to that poll's 50 ms. An empty task, not an interrupt,
    // which would close a log channel the writer is using.
    queue.add(new Control(() -> null, new CompletableFuture<>()));
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted closing the writer", e));
    }
  }
}
