package org.searchlab.segmented;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.lucene.document.Field;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.AlreadyClosedException;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.DocumentExistsException;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.StoreStoppedException;
import org.searchlab.core.WriteResult;
import org.searchlab.core.WriteResult.Outcome;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * The write path of the segmented store, Elasticsearch's engine in small: it validates an
 * operation, logs it to the write-ahead log (the translog), applies it to Lucene's {@link
 * IndexWriter} and records the new version in the {@link LiveVersionMap}; it also answers real-time
 * gets, commits ({@link #flush()}) and force-merges.
 *
 * <p>A write, step by step, for an operation on id x:
 *
 * <ol>
 *   <li>validate ({@link #validate}): nothing is logged for bad input;
 *   <li>take x's stripe lock, so writes to x are logged and applied in one order;
 *   <li>read x's current version in real time (version map, else the searcher's reader) to answer
 *       created/updated/not-found, to refuse a create of a present id and to build the new document
 *       of a partial update ({@link #plan});
 *   <li>under the shared side of the flush lock: apply it to the index writer, put the new version
 *       in the version map ({@link #applyChange}), then write the WAL record; release the locks.
 *       Lucene first, as Elasticsearch's engine does: a document Lucene refuses (a check {@link
 *       #validate} does not know of) fails alone with a 400 and is never logged, so no replay can
 *       trip over it;
 *   <li>wait for the record to be durable under the sync policy (one wait per bulk), then ack;
 *   <li>if the log written since the last commit passed {@link
 *       SegmentedConfig#flushThresholdBytes}, commit and trim it ({@link #flush()}), so the log and
 *       the restart's replay stay bounded without anyone calling {@code _flush}.
 * </ol>
 *
 * <p>Fail-stop: if the log write or sync fails, the log stops (see {@link WriteAheadLog}) and so
 * does this writer: no later write is acknowledged and nothing is committed, since Lucene may hold
 * the write whose record failed. The same when Lucene's writer hits a tragic failure (it closes
 * itself). Later writes are refused with {@link StoreStoppedException} before they touch Lucene.
 * Until the store is reopened (which rolls Lucene back to its last commit and replays the log)
 * reads may see the unacknowledged writes that were in flight when the failure happened.
 *
 * <p>Thread safety: any number of threads call {@link #write}, {@link #bulk}, {@link #realTimeGet},
 * {@link #flush()} and {@link #forceMerge} concurrently. Writes to one id are serialised by its
 * stripe lock (256 stripes, so unrelated ids rarely wait); flushes by a mutex. {@link #replay} runs
 * only while opening, before any other call.
 */
final class SegmentedWriter {
  private static final int STRIPES = 256;

  private final DocumentFields fields;
  private final SegmentedConfig config;
  private final IndexWriter writer;
  private final SearcherManager manager;
  private final WriteAheadLog wal;
  private final LiveVersionMap versionMap;
  private final SegmentedStats stats;
  private final CountingMergeScheduler mergeScheduler;
  private final org.apache.lucene.store.Directory directory;
  private final java.nio.file.Path indexPath;
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private final ReentrantReadWriteLock flushLock = new ReentrantReadWriteLock();
  private final ReentrantLock flushMutex = new ReentrantLock();
  private final java.util.concurrent.atomic.AtomicLong logBytesSinceCommit =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * When the last record was logged ({@link System#nanoTime()}); read by {@link #maybeFlushIdle}.
   */
  private volatile long lastLoggedNanos = System.nanoTime();

  /**
   * Elasticsearch refreshes when the version map outgrows a quarter of the indexing buffer, so
   * real-time get never holds an unbounded heap of unrefreshed documents.
   */
  private final long versionMapLimitBytes;

  SegmentedWriter(DocumentFields fields, SegmentedConfig config, SegmentedParts parts) {
    this.fields = fields;
    this.config = config;
    this.writer = parts.indexWriter;
    this.manager = parts.manager;
    this.wal = parts.wal;
    this.versionMap = parts.versionMap;
    this.stats = parts.stats;
    this.mergeScheduler = parts.mergeScheduler;
    this.directory = parts.directory;
    this.indexPath = parts.indexPath;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
    this.versionMapLimitBytes = (long) (config.ramBufferMB() * (1 << 20) / 4);
  }

  /** One write, steps 1–5; returns once it is durable. */
  WriteResult write(Operation op) throws IOException {
    WriteResult r = logAndApply(validate(op));
    if (r.serial() > 0) {
      wal.sync(r.serial());
    }
    maybeRefreshForMemory();
    maybeFlushForSize();
    return r;
  }

  /** Steps 1–4 for each operation, then one wait for them all (step 5). */
  List<BulkItemResult> bulk(List<Operation> ops) throws IOException {
    if (ops == null || ops.isEmpty()) {
      throw new InvalidRequestException("bulk request has no operations; send at least one");
    }
    List<BulkItemResult> results = new ArrayList<>(ops.size());
    long maxSerial = 0;
    for (Operation op : ops) {
      Operation logged;
      try {
        logged = validate(op);
      } catch (InvalidRequestException e) {
        results.add(BulkItemResult.failed(op, e));
        continue;
      }
      WriteResult r;
      try {
        r = logAndApply(logged);
      } catch (InvalidRequestException e) {
        // A create of a present id, or a document Lucene refused: nothing was logged for it.
        results.add(BulkItemResult.failed(op, e));
        continue;
      }
      maxSerial = Math.max(maxSerial, r.serial());
      results.add(BulkItemResult.ok(op, r));
    }
    if (maxSerial > 0) {
      // One wait for the whole bulk: group commit makes it one fsync (Elasticsearch syncs the
      // translog once per bulk request too).
      wal.sync(maxSerial);
    }
    if (config.segmentPerBatch()) {
      manager.maybeRefreshBlocking();
    } else {
      maybeRefreshForMemory();
    }
    maybeFlushForSize();
    return results;
  }

  /**
   * Step 1: the schema's or the mapping's rules ({@link DocumentFields#prepare}), then the Lucene
   * limits checked so far (a keyword's byte length). Every check that can reject an operation
   * belongs here, before the log: a logged record that Lucene refuses would fail again on every
   * replay. Returns the operation to log: a put's document as the mapping read it.
   */
  private Operation validate(Operation op) throws IOException {
    return fields.prepare(op);
  }

  /** Steps 2–4 for a validated operation; serial 0 when nothing was logged. */
  private WriteResult logAndApply(Operation op) throws IOException {
    ReentrantLock stripe = stripe(op.id());
    stripe.lock();
    try {
      // A stopped store changes nothing more: without this check every refused write would still
      // reach Lucene (and so searches) before the log refused it.
      throwIfStopped(null);
      Change change = plan(op);
      if (change.outcome == Outcome.NOT_FOUND || change.outcome == Outcome.NOOP) {
        if (change.outcome == Outcome.NOOP) {
          stats.noops.incrementAndGet();
        }
        return new WriteResult(op.id(), 0, change.outcome);
      }
      byte[] record = OperationCodec.encode(op);
      long serial;
      flushLock.readLock().lock();
      try {
        try {
          applyChange(op, change);
        } catch (IllegalArgumentException e) {
          // Lucene refused the document (non-aborting: the old version stays, nothing is logged).
          throw new InvalidRequestException(
              "document '" + op.id() + "' is refused by the index: " + e.getMessage());
        } catch (AlreadyClosedException e) {
          throwIfStopped(e); // Lucene closed its writer after a tragic failure meanwhile
          throw e;
        }
        serial = wal.write(record);
        logBytesSinceCommit.addAndGet(record.length + 16L);
        lastLoggedNanos = System.nanoTime();
      } finally {
        flushLock.readLock().unlock();
      }
      return new WriteResult(op.id(), serial, change.outcome);
    } finally {
      stripe.unlock();
    }
  }

  /**
   * Throws {@link StoreStoppedException} if the log stopped or Lucene's writer hit a tragic failure
   * (an I/O error in a flush or merge: Lucene then closes it): the store accepts no writes until it
   * is reopened, which rolls Lucene back to its last commit and replays the log.
   */
  private void throwIfStopped(Throwable seen) throws StoreStoppedException {
    Optional<IOException> walFailure = wal.failure();
    Throwable tragedy = writer.getTragicException();
    if (walFailure.isEmpty() && tragedy == null) {
      return;
    }
    StoreStoppedException e =
        new StoreStoppedException(
            "the segmented store stopped after "
                + (walFailure.isPresent()
                    ? "its write-ahead log failed (" + walFailure.get() + ")"
                    : "Lucene's index writer failed (" + tragedy + ")")
                + "; it accepts no writes until it is restarted",
            walFailure.isPresent() ? walFailure.get() : tragedy);
    if (seen != null) {
      e.addSuppressed(seen);
    }
    throw e;
  }

  /**
   * Applies a logged operation again while opening (steps 2–4 without the log write); the log order
   * and the assigning nature of every operation make this idempotent. A put replaces whatever its
   * id holds, so it is applied without looking the id up (a create was decided when it was logged,
   * and the log keeps it as a plain put: the commit may already hold it).
   */
  void replay(Operation op, long serial) throws IOException {
    ReentrantLock stripe = stripe(op.id());
    stripe.lock();
    try {
      Change change =
          op instanceof Operation.Put put
              ? new Change(Outcome.UPDATED, put.document(), null)
              : plan(op);
      if (change.outcome != Outcome.NOT_FOUND && change.outcome != Outcome.NOOP) {
        applyChange(op, change);
      }
    } finally {
      stripe.unlock();
    }
    if (versionMap.ramBytesUsed() > versionMapLimitBytes) {
      manager.maybeRefreshBlocking();
    }
  }

  /**
   * What an operation does to the current version.
   *
   * @param outcome the acknowledgement
   * @param after the new version, or null after a delete
   * @param docValues the doc values to rewrite in place when that suffices, else null
   */
  private record Change(Outcome outcome, Document after, Field[] docValues) {}

  /** Step 3, under the id's stripe lock. */
  private Change plan(Operation op) throws IOException {
    Optional<Document> current = realTimeGet(op.id());
    return switch (op) {
      case Operation.Put put -> {
        if (put.ifAbsent() && current.isPresent()) {
          // Decided under the id's stripe lock, so no other write of this id can slip in between
          // this check and the log write: of many concurrent creates exactly one succeeds.
          throw new DocumentExistsException(put.id());
        }
        yield new Change(
            current.isPresent() ? Outcome.UPDATED : Outcome.CREATED, put.document(), null);
      }
      case Operation.Update upd -> {
        if (current.isEmpty()) {
          yield new Change(Outcome.NOT_FOUND, null, null);
        }
        PartialUpdate u = upd.update();
        Document after = fields.reparse(u.applyTo(current.get()));
        if (after.equals(current.get())) {
          // Elasticsearch's detect_noop: an update that changes nothing is not written.
          yield new Change(Outcome.NOOP, after, null);
        }
        Field[] inPlace =
            config.partialUpdateMode() == PartialUpdateMode.DOCVALUES
                ? fields.inPlace(u, current.get())
                : null;
        yield new Change(Outcome.UPDATED, after, inPlace);
      }
      case Operation.Delete del ->
          new Change(current.isPresent() ? Outcome.DELETED : Outcome.NOT_FOUND, null, null);
    };
  }

  /**
   * Step 4's apply, under the id's stripe lock: the index writer first, then the version map, the
   * order {@link LiveVersionMap}'s correctness argument needs.
   */
  private void applyChange(Operation op, Change change) throws IOException {
    String id = op.id();
    if (change.after == null) {
      writer.deleteDocuments(fields.idTerm(id));
    } else if (change.docValues != null) {
      writer.updateDocValues(fields.idTerm(id), change.docValues);
      stats.docValuesUpdates.incrementAndGet();
    } else {
      writer.updateDocument(fields.idTerm(id), fields.toLucene(change.after));
      if (op instanceof Operation.Update) {
        stats.reindexUpdates.incrementAndGet();
      }
    }
    versionMap.put(id, change.after);
  }

  private ReentrantLock stripe(String id) {
    int h = id.hashCode();
    return stripes[(h ^ (h >>> 16)) & (STRIPES - 1)];
  }

  /**
   * The newest version of {@code id}, written or not yet refreshed: the version map, else the
   * current reader (which is at least as new as the map's last retirement, see {@link
   * LiveVersionMap}).
   */
  Optional<Document> realTimeGet(String id) throws IOException {
    LiveVersionMap.Entry e = versionMap.get(id);
    if (e != null) {
      return Optional.ofNullable(e.doc());
    }
    IndexSearcher s = manager.acquire();
    try {
      return Optional.ofNullable(fields.find(s.getIndexReader(), id));
    } finally {
      manager.release(s);
    }
  }

  /**
   * Step 6: commits when the log written since the last commit passed the threshold. One thread
   * commits; the others carry on writing (they do not queue behind it).
   */
  private void maybeFlushForSize() throws IOException {
    if (logBytesSinceCommit.get() < config.flushThresholdBytes()) {
      return;
    }
    if (flushMutex.tryLock()) {
      try {
        if (logBytesSinceCommit.get() >= config.flushThresholdBytes()) {
          flush();
          stats.sizeFlushes.incrementAndGet();
        }
      } finally {
        flushMutex.unlock();
      }
    }
  }

  /**
   * Commits when the log holds writes since the last commit and nothing was logged for {@link
   * SegmentedConfig#flushIdleMs} (Elasticsearch's flush of an inactive shard), so a store that was
   * fed and then went quiet restarts without replaying. Called by the store's scheduler; a flush
   * already running (a size flush, {@code _flush}) makes this tick a no-op. A stopped log commits
   * nothing ({@link #flush()} refuses; health reports the stop), so this does not try.
   *
   * @return whether it committed
   */
  boolean maybeFlushIdle() throws IOException {
    if (logBytesSinceCommit.get() <= 0
        || wal.failure().isPresent()
        || System.nanoTime() - lastLoggedNanos < config.flushIdleMs() * 1_000_000L) {
      return false;
    }
    if (!flushMutex.tryLock()) {
      return false;
    }
    try {
      if (logBytesSinceCommit.get() <= 0) {
        return false; // another flush committed it meanwhile
      }
      flush();
      stats.idleFlushes.incrementAndGet();
      return true;
    } finally {
      flushMutex.unlock();
    }
  }

  private void maybeRefreshForMemory() throws IOException {
    if (versionMap.ramBytesUsed() > versionMapLimitBytes) {
      manager.maybeRefresh();
    }
  }

  /**
   * Commits everything applied and trims the log up to it. Step by step:
   *
   * <ol>
   *   <li>under the exclusive side of the flush lock, read the log's last serial S: every writer
   *       holding a serial ≤ S has applied it, because it logged and applied under the shared side;
   *       store S in the commit's user data ({@link SegmentedOpener#SERIAL_KEY});
   *   <li>release the lock (writes continue) and commit; the commit may contain writes after S,
   *       which recovery re-applies harmlessly ({@link SegmentedOpener});
   *   <li>force Lucene's directory once more ({@link
   *       org.searchlab.core.io.Durable#forceDirectory}): Lucene swallows a failed force of it;
   *   <li>trim the log up to S.
   * </ol>
   *
   * A commit that succeeds is counted and timed (Elasticsearch's {@code flush} total and time, with
   * and without the wait for a commit already running), and the segments it holds are read.
   */
  void flush() throws IOException {
    long called = System.nanoTime();
    flushMutex.lock();
    long locked = System.nanoTime();
    try {
      long serial;
      long bytes;
      flushLock.writeLock().lock();
      try {
        if (wal.failure().isPresent()) {
          // Lucene may hold a write whose record failed: committing would make it durable.
          throw new IOException(
              "not committing: the write-ahead log stopped after a failure ("
                  + wal.failure().get()
                  + "); restart the store",
              wal.failure().get());
        }
        serial = wal.lastSerial();
        bytes = logBytesSinceCommit.get();
        writer.setLiveCommitData(SegmentedOpener.commitData(serial));
      } finally {
        flushLock.writeLock().unlock();
      }
      writer.commit();
      try {
        // Lucene forces index/ after writing segments_N but swallows a failure of that force in
        // production (IOUtils.fsync; it only asserts). Trimming the log after such a commit would
        // leave acknowledged writes in files whose names may not survive a power cut, so the
        // directory is forced again here, and a failure fails the flush before the trim.
        org.searchlab.core.io.Durable.forceDirectory(indexPath);
        stats.flushedSerial = serial;
        stats.readCommit(directory);
        wal.trimUpTo(serial);
        logBytesSinceCommit.addAndGet(-bytes); // what was written after S stays counted
      } finally {
        // The commit happened: counted even if trimming the log failed.
        long end = System.nanoTime();
        stats.flushNanos.addAndGet(end - called);
        stats.flushLockedNanos.addAndGet(end - locked);
        stats.flushes.incrementAndGet();
      }
    } finally {
      flushMutex.unlock();
    }
  }

  /**
   * Merges down to at most {@code maxSegments} segments, waits, and refreshes. When a merge fails,
   * Lucene's {@code forceMerge} throws as soon as the merge is marked finished, while the merge
   * thread records the tragedy (and closes the writer) just after that; so this waits for the merge
   * threads before answering, and a caller that sees the failure also sees the stop in {@code
   * health()} and gets {@link StoreStoppedException} rather than a bare I/O error.
   */
  void forceMerge(int maxSegments) throws IOException {
    if (maxSegments < 1) {
      throw new InvalidRequestException(
          "max_num_segments " + maxSegments + " is less than the minimum 1");
    }
    try {
      writer.forceMerge(maxSegments, true);
    } catch (IOException | RuntimeException e) {
      mergeScheduler.sync();
      throwIfStopped(e);
      throw e;
    }
    manager.maybeRefreshBlocking();
  }
}
