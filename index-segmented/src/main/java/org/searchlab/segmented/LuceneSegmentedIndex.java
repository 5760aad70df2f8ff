package org.searchlab.segmented;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.WriteResult;
import org.searchlab.core.WriteResult.Outcome;
import org.searchlab.core.scoring.Bm25;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * The Elasticsearch-like store: a Lucene {@link IndexWriter} whose segments come from refreshes and
 * merges, searched through a {@link SearcherManager} refreshed on a schedule, with the core {@link
 * WriteAheadLog} as its translog. Files: {@code <dir>/index} (Lucene) and {@code <dir>/wal}.
 *
 * <p><b>Writes</b>, step by step, for an operation on id x:
 *
 * <ol>
 *   <li>validate (nothing is logged for bad input);
 *   <li>take x's stripe lock, so writes to x are logged and applied in one order;
 *   <li>read x's current version in real time (version map, else the searcher's reader) to answer
 *       created/updated/not-found and to build the new document of a partial update;
 *   <li>under the shared side of the flush lock: write the WAL record, apply it to the index
 *       writer, put the new version in the {@link LiveVersionMap}; release the locks;
 *   <li>wait for the record to be durable under the sync policy (one wait per bulk), then ack.
 * </ol>
 *
 * <p>{@link #flush()} takes the exclusive side of the flush lock only to read the last WAL serial
 * (every record up to it is then applied) and store it in the commit's user data; commits later
 * than that serial may contain more operations, which replay re-applies harmlessly because every
 * operation assigns values (put, assign, delete) rather than increments them. {@link #open} replays
 * the WAL after the committed serial.
 *
 * <p>Thread-safe, as {@link SearchIndex} requires. {@link #close()} must not race other calls.
 */
public final class LuceneSegmentedIndex implements SearchIndex {
  /** The commit user-data key holding the last WAL serial the commit covers. */
  static final String SERIAL_KEY = "searchlab.wal_serial";

  private static final int STRIPES = 256;

  private final Schema schema;
  private final SegmentedConfig config;
  private final Directory directory;
  private final IndexWriter writer;
  private final SearcherManager manager;
  private final WriteAheadLog wal;
  private final LiveVersionMap versionMap = new LiveVersionMap();
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private final ReentrantReadWriteLock flushLock = new ReentrantReadWriteLock();
  private final ReentrantLock flushMutex = new ReentrantLock();
  private final CountingMergeScheduler mergeScheduler;
  private final ExecutorService searchExecutor;
  private final ExecutorService hnswMergeExecutor;
  private final ScheduledExecutorService refresher;
  private final long versionMapLimitBytes;
  private final AtomicLong refreshes = new AtomicLong();
  private final AtomicLong flushes = new AtomicLong();
  private final AtomicLong docValuesUpdates = new AtomicLong();
  private final AtomicLong reindexUpdates = new AtomicLong();
  private final AtomicLong noops = new AtomicLong();
  private final AtomicLong replayed = new AtomicLong();
  private volatile long lastRefreshEpochMs;
  private volatile long flushedSerial;
  private volatile boolean closed;

  private LuceneSegmentedIndex(Path dir, Schema schema, SegmentedConfig config) throws IOException {
    this.schema = schema;
    this.config = config;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
    this.versionMapLimitBytes = (long) (config.ramBufferMB() * (1 << 20) / 4);
    Files.createDirectories(dir);
    this.hnswMergeExecutor =
        config.hnswMergeWorkers() > 1
            ? Executors.newFixedThreadPool(config.hnswMergeWorkers(), daemon("hnsw-merge"))
            : null;
    this.mergeScheduler = new CountingMergeScheduler(config.mergeThreads());
    this.directory = FSDirectory.open(dir.resolve("index"));
    IndexWriterConfig iwc =
        new IndexWriterConfig(org.searchlab.core.analysis.TextAnalysis.analyzer());
    iwc.setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
    iwc.setSimilarity(new BM25Similarity(Bm25.K1, Bm25.B));
    iwc.setCodec(codec(config, hnswMergeExecutor));
    iwc.setMergePolicy(MergePolicies.create(config));
    iwc.setMergeScheduler(mergeScheduler);
    iwc.setRAMBufferSizeMB(config.ramBufferMB());
    // Closing must not commit: acknowledged writes are safe in the WAL, and a commit on close
    // would make a reopen's state depend on how it was closed.
    iwc.setCommitOnClose(false);
    if (config.segmentPerBatch()) {
      // Merges found at refresh time would blur "one batch, one segment".
      iwc.setMaxFullFlushMergeWaitMillis(0);
    }
    IndexWriter w = null;
    WriteAheadLog log = null;
    try {
      w = new IndexWriter(directory, iwc);
      this.writer = w;
      long committed = committedSerial(w);
      this.flushedSerial = committed;
      log = WriteAheadLog.open(dir.resolve("wal"), config.wal());
      this.wal = log;
      // If the log was lost or trimmed past the commit, never reuse the commit's serials.
      log.advanceTo(committed + 1);
      this.searchExecutor =
          config.searchThreads() > 0
              ? Executors.newFixedThreadPool(config.searchThreads(), daemon("search"))
              : null;
      this.manager = new SearcherManager(w, new Factory(config, searchExecutor));
      manager.addListener(
          new ReferenceManager.RefreshListener() {
            @Override
            public void beforeRefresh() {
              versionMap.beforeRefresh();
            }

            @Override
            public void afterRefresh(boolean didRefresh) {
              versionMap.afterRefresh();
              if (didRefresh) {
                refreshes.incrementAndGet();
                lastRefreshEpochMs = System.currentTimeMillis();
              }
            }
          });
      log.replay(
          committed,
          (serial, payload) -> {
            apply(OperationCodec.decode(payload), serial);
            replayed.incrementAndGet();
          });
      manager.maybeRefreshBlocking();
    } catch (IOException | RuntimeException e) {
      closeQuietly(log);
      if (w != null) {
        w.rollback();
      }
      directory.close();
      shutdown(hnswMergeExecutor);
      throw e;
    }
    if (config.periodicRefresh()) {
      refresher = Executors.newSingleThreadScheduledExecutor(daemon("refresh"));
      refresher.scheduleWithFixedDelay(
          this::scheduledRefresh,
          config.refreshIntervalMs(),
          config.refreshIntervalMs(),
          TimeUnit.MILLISECONDS);
    } else {
      refresher = null;
    }
  }

  /**
   * Opens (or creates) the store in {@code dir} and replays its write-ahead log after the last
   * commit.
   */
  public static LuceneSegmentedIndex open(Path dir, Schema schema, SegmentedConfig config)
      throws IOException {
    return new LuceneSegmentedIndex(dir, schema, config);
  }

  /** Opens with {@link SegmentedConfig#DEFAULT}. */
  public static LuceneSegmentedIndex open(Path dir, Schema schema) throws IOException {
    return open(dir, schema, SegmentedConfig.DEFAULT);
  }

  /** The settings this store runs with. */
  public SegmentedConfig config() {
    return config;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  @Override
  public WriteResult put(Document doc) throws IOException {
    return writeOne(Operation.put(doc));
  }

  @Override
  public WriteResult update(PartialUpdate update) throws IOException {
    return writeOne(Operation.update(update));
  }

  @Override
  public WriteResult delete(String id) throws IOException {
    return writeOne(Operation.delete(id));
  }

  private WriteResult writeOne(Operation op) throws IOException {
    ensureOpen();
    validate(op);
    WriteResult r = logAndApply(op);
    if (r.serial() > 0) {
      wal.sync(r.serial());
    }
    maybeRefreshForMemory();
    return r;
  }

  @Override
  public List<BulkItemResult> bulk(List<Operation> ops) throws IOException {
    ensureOpen();
    if (ops == null || ops.isEmpty()) {
      throw new InvalidRequestException("bulk request has no operations; send at least one");
    }
    List<BulkItemResult> results = new ArrayList<>(ops.size());
    long maxSerial = 0;
    for (Operation op : ops) {
      try {
        validate(op);
      } catch (InvalidRequestException e) {
        results.add(BulkItemResult.failed(op, e));
        continue;
      }
      WriteResult r = logAndApply(op);
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
    return results;
  }

  private void validate(Operation op) {
    schema.validate(op);
    switch (op) {
      case Operation.Put put -> LuceneMapping.validateForLucene(put.document());
      case Operation.Update upd -> {
        if (upd.update().category() != null) {
          LuceneMapping.validateCategory(upd.id(), upd.update().category());
        }
      }
      case Operation.Delete del -> {}
    }
  }

  /** Steps 2–4 of the class comment for a live write; serial 0 when nothing was logged. */
  private WriteResult logAndApply(Operation op) throws IOException {
    ReentrantLock stripe = stripe(op.id());
    stripe.lock();
    try {
      Change change = plan(op);
      if (change.outcome == Outcome.NOT_FOUND || change.outcome == Outcome.NOOP) {
        if (change.outcome == Outcome.NOOP) {
          noops.incrementAndGet();
        }
        return new WriteResult(op.id(), 0, change.outcome);
      }
      long serial;
      flushLock.readLock().lock();
      try {
        serial = wal.write(OperationCodec.encode(op));
        applyChange(op, change);
      } finally {
        flushLock.readLock().unlock();
      }
      return new WriteResult(op.id(), serial, change.outcome);
    } finally {
      stripe.unlock();
    }
  }

  /** Replay: apply a logged operation again (it is idempotent given the log order). */
  private void apply(Operation op, long serial) throws IOException {
    ReentrantLock stripe = stripe(op.id());
    stripe.lock();
    try {
      Change change = plan(op);
      if (change.outcome != Outcome.NOT_FOUND && change.outcome != Outcome.NOOP) {
        applyChange(op, change);
      }
    } finally {
      stripe.unlock();
    }
    if (versionMap.ramBytes() > versionMapLimitBytes) {
      manager.maybeRefreshBlocking();
    }
  }

  /**
   * What an operation does to the current version.
   *
   * @param outcome the acknowledgement
   * @param after the new version, or null after a delete
   * @param docValuesOnly whether a doc-values rewrite suffices
   */
  private record Change(Outcome outcome, Document after, boolean docValuesOnly) {}

  private Change plan(Operation op) throws IOException {
    Optional<Document> current = realTimeGet(op.id());
    return switch (op) {
      case Operation.Put put ->
          new Change(
              current.isPresent() ? Outcome.UPDATED : Outcome.CREATED, put.document(), false);
      case Operation.Update upd -> {
        if (current.isEmpty()) {
          yield new Change(Outcome.NOT_FOUND, null, false);
        }
        PartialUpdate u = upd.update();
        Document after = u.applyTo(current.get());
        if (after.equals(current.get())) {
          // Elasticsearch's detect_noop: an update that changes nothing is not written.
          yield new Change(Outcome.NOOP, after, false);
        }
        boolean dvOnly =
            config.partialUpdateMode() == PartialUpdateMode.DOCVALUES
                && u.onlyAttributes()
                && u.category() == null;
        yield new Change(Outcome.UPDATED, after, dvOnly);
      }
      case Operation.Delete del ->
          new Change(current.isPresent() ? Outcome.DELETED : Outcome.NOT_FOUND, null, false);
    };
  }

  private void applyChange(Operation op, Change change) throws IOException {
    String id = op.id();
    if (change.after == null) {
      writer.deleteDocuments(LuceneMapping.idTerm(id));
    } else if (change.docValuesOnly) {
      PartialUpdate u = ((Operation.Update) op).update();
      List<org.apache.lucene.document.Field> fields = new ArrayList<>(2);
      if (u.price() != null) {
        fields.add(new NumericDocValuesField(Schema.PRICE, u.price()));
      }
      if (u.averageRating() != null) {
        fields.add(
            new NumericDocValuesField(
                Schema.AVERAGE_RATING, LuceneMapping.ratingBits(u.averageRating())));
      }
      writer.updateDocValues(
          LuceneMapping.idTerm(id), fields.toArray(new org.apache.lucene.document.Field[0]));
      docValuesUpdates.incrementAndGet();
    } else {
      writer.updateDocument(LuceneMapping.idTerm(id), LuceneMapping.toLucene(change.after));
      if (op instanceof Operation.Update) {
        reindexUpdates.incrementAndGet();
      }
    }
    versionMap.put(id, change.after);
  }

  private ReentrantLock stripe(String id) {
    int h = id.hashCode();
    return stripes[(h ^ (h >>> 16)) & (STRIPES - 1)];
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  @Override
  public Optional<Document> get(String id) throws IOException {
    ensureOpen();
    Schema.validateId(id);
    return realTimeGet(id);
  }

  private Optional<Document> realTimeGet(String id) throws IOException {
    LiveVersionMap.Entry e = versionMap.get(id);
    if (e != null) {
      return Optional.ofNullable(e.doc());
    }
    IndexSearcher s = manager.acquire();
    try {
      return Optional.ofNullable(LuceneMapping.find(s.getIndexReader(), id));
    } finally {
      manager.release(s);
    }
  }

  @Override
  public SearchResult search(SearchRequest request) throws IOException {
    ensureOpen();
    request.validate(schema);
    IndexSearcher s = manager.acquire();
    try {
      return SegmentedSearcher.search(s, request);
    } finally {
      manager.release(s);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Refresh, flush, merge

  @Override
  public void refresh() throws IOException {
    ensureOpen();
    manager.maybeRefreshBlocking();
  }

  private void scheduledRefresh() {
    try {
      manager.maybeRefresh();
    } catch (IOException | AlreadyClosedException | UncheckedIOException e) {
      // Closing, or a failed refresh; the next tick (or an explicit refresh) retries.
    }
  }

  private void maybeRefreshForMemory() throws IOException {
    // Elasticsearch refreshes when the version map outgrows a share of the indexing buffer, so
    // real-time get never holds an unbounded heap of unrefreshed documents.
    if (versionMap.ramBytes() > versionMapLimitBytes) {
      manager.maybeRefresh();
    }
  }

  @Override
  public void flush() throws IOException {
    ensureOpen();
    flushMutex.lock();
    try {
      long serial;
      flushLock.writeLock().lock();
      try {
        // Every writer holding a serial ≤ lastSerial has applied it (it held the read lock).
        serial = wal.lastSerial();
        writer.setLiveCommitData(Map.of(SERIAL_KEY, Long.toString(serial)).entrySet());
      } finally {
        flushLock.writeLock().unlock();
      }
      writer.commit();
      flushedSerial = serial;
      flushes.incrementAndGet();
      wal.trimUpTo(serial);
    } finally {
      flushMutex.unlock();
    }
  }

  @Override
  public void forceMerge(int maxSegments) throws IOException {
    ensureOpen();
    if (maxSegments < 1) {
      throw new InvalidRequestException(
          "max_num_segments " + maxSegments + " is less than the minimum 1");
    }
    writer.forceMerge(maxSegments, true);
    manager.maybeRefreshBlocking();
  }

  // ---------------------------------------------------------------------------------------------
  // Stats and lifecycle

  @Override
  public IndexStats stats() throws IOException {
    ensureOpen();
    IndexSearcher s = manager.acquire();
    try {
      IndexReader reader = s.getIndexReader();
      List<IndexStats.SegmentStats> segments = new ArrayList<>();
      for (LeafReaderContext leaf : reader.leaves()) {
        SegmentReader sr = (SegmentReader) FilterLeafReader.unwrap(leaf.reader());
        SegmentCommitInfo info = sr.getSegmentInfo();
        segments.add(
            new IndexStats.SegmentStats(
                info.info.name, sr.maxDoc(), sr.numDeletedDocs(), info.sizeInBytes()));
      }
      Map<String, Long> memory = new LinkedHashMap<>();
      memory.put("indexing_buffer", writer.ramBytesUsed());
      memory.put("version_map", versionMap.ramBytes());
      Map<String, Long> counters = new LinkedHashMap<>();
      counters.put("refreshes", refreshes.get());
      counters.put("last_refresh_epoch_ms", lastRefreshEpochMs);
      counters.put("flushes", flushes.get());
      counters.put("merges_running", mergeScheduler.running());
      counters.put("merges_done", mergeScheduler.done());
      counters.put("docvalues_updates", docValuesUpdates.get());
      counters.put("reindex_updates", reindexUpdates.get());
      counters.put("noops", noops.get());
      counters.put("replayed_operations", replayed.get());
      counters.put("wal_fsyncs", wal.fsyncCount());
      counters.put("version_map_entries", (long) versionMap.size());
      return new IndexStats(
          "segmented",
          reader.numDocs(),
          reader.numDeletedDocs(),
          segments.size(),
          segments,
          wal.lastSerial(),
          flushedSerial,
          wal.sizeBytes(),
          memory,
          counters);
    } finally {
      manager.release(s);
    }
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
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
        // commitOnClose is false: this rolls back to the last commit; the WAL has the rest.
        writer.close();
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

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the segmented index is closed");
    }
  }

  private static long committedSerial(IndexWriter w) {
    Iterable<Map.Entry<String, String>> data = w.getLiveCommitData();
    if (data != null) {
      for (Map.Entry<String, String> e : data) {
        if (SERIAL_KEY.equals(e.getKey())) {
          return Long.parseLong(e.getValue());
        }
      }
    }
    return 0;
  }

  private static Lucene104Codec codec(SegmentedConfig c, ExecutorService mergeExec) {
    KnnVectorsFormat hnsw =
        mergeExec == null
            ? new Lucene99HnswVectorsFormat(c.hnswM(), c.hnswBeamWidth())
            : new Lucene99HnswVectorsFormat(
                c.hnswM(), c.hnswBeamWidth(), c.hnswMergeWorkers(), mergeExec);
    // The per-field override Elasticsearch uses for dense_vector index_options.
    return new Lucene104Codec() {
      @Override
      public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
        return Schema.EMBEDDING.equals(field) ? hnsw : super.getKnnVectorsFormatForField(field);
      }
    };
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "segmented-" + name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  private static void shutdown(ExecutorService e) {
    if (e != null) {
      e.shutdownNow();
    }
  }

  private static void closeQuietly(WriteAheadLog log) {
    if (log != null) {
      try {
        log.close();
      } catch (IOException | RuntimeException ignored) {
        // Reporting the original failure matters more.
      }
    }
  }

  /** Builds the searcher for each refreshed reader: BM25 and, if asked, concurrent slices. */
  private static final class Factory extends SearcherFactory {
    private final SegmentedConfig config;
    private final ExecutorService executor;

    Factory(SegmentedConfig config, ExecutorService executor) {
      this.config = config;
      this.executor = executor;
    }

    @Override
    public IndexSearcher newSearcher(IndexReader reader, IndexReader previous) {
      IndexSearcher s =
          executor == null
              ? new IndexSearcher(reader)
              : new SlicingIndexSearcher(
                  reader, executor, config.slicing(), config.searchThreads());
      s.setSimilarity(new BM25Similarity(Bm25.K1, Bm25.B));
      return s;
    }
  }

  /** For tests: the reader searches currently use. */
  DirectoryReader currentReaderForTests() throws IOException {
    IndexSearcher s = manager.acquire();
    try {
      DirectoryReader r = (DirectoryReader) s.getIndexReader();
      r.incRef();
      return r;
    } finally {
      manager.release(s);
    }
  }
}
