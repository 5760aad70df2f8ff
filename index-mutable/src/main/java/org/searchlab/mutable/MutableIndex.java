// Over 500 lines: the product store's open, write, search and lifecycle paths and the choice
// between it and the store of any mapping, kept together because they share its parts.
package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.searchlab.core.BackgroundErrors;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.DataDirectory;
import org.searchlab.core.Document;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.StoreHealth;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.WriteResult;
import org.searchlab.core.io.Durable;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.core.wal.WriteAheadLog;
import org.searchlab.mutable.postings.FieldIndex;
import org.searchlab.mutable.snapshot.SnapshotFiles;

/**
 * The mutable store: one mutable index per field instead of immutable segments, as Vespa keeps
 * them. Posting lists with block-max MaxScore, columnar attributes updated in place, one HNSW
 * graph, a document store, a write-ahead log and snapshots. A write is visible to searches when it
 * is acknowledged; {@link #refresh()} is a no-op.
 *
 * <p>Files in its directory: {@code wal/} (the core write-ahead log), {@code snapshot-<serial>.bin}
 * and {@code graph-<serial>.bin} (the newest snapshot). Opening loads the snapshot and replays the
 * log after it.
 *
 * <p>Thread safety: as {@link SearchIndex}: any number of threads write, read and search
 * concurrently. Writes go through one writer thread in log order; searches and gets take no locks.
 */
public final class MutableIndex implements SearchIndex {
  private final Path dir;
  private final Schema schema;
  private final MutableConfig config;
  private final IndexParts parts;
  private final WriteAheadLog wal;
  private final IndexWriter writer;
  private final Compactor compactor;
  private final Searcher searcher;
  private final ExecutorService searchPool;
  private final ScheduledExecutorService snapshotTimer;
  private final BackgroundErrors errors;
  private final DataDirectory dataDirectory;
  private final OpenTimes openTimes;
  private volatile long flushedSerial;
  private volatile boolean closed;

  private MutableIndex(
      Path dir,
      Schema schema,
      MutableConfig config,
      WriteAheadLog.FileOpener walFiles,
      DataDirectory dataDirectory)
      throws IOException {
    this.dataDirectory = dataDirectory;
    this.dir = dir;
    this.schema = schema;
    this.config = config;
    this.errors = new BackgroundErrors("mutable index in " + dir);
    // Durably (R1); a no-op when DataDirectory.acquire made it already.
    Durable.createDirectories(dir);
    this.parts = new IndexParts(null);
    OpenTimes times = new OpenTimes();
    Snapshotter.Loaded loaded =
        Snapshotter.load(dir, parts, schema.dimension(), config.hnsw(), times);
    long snapshotSerial = loaded.serial();
    if (parts.vectors == null) {
      parts.vectors = VectorPart.create(schema.dimension(), config.hnsw(), dir);
    }
    this.flushedSerial = snapshotSerial;
    this.wal = WriteAheadLog.open(dir.resolve("wal"), config.wal(), walFiles);
    Compactor[] compactorRef = new Compactor[1];
    long replayed;
    try {
      wal.advanceTo(snapshotSerial + 1);
      this.writer =
          new IndexWriter(
              parts,
              wal,
              config.writerBatch(),
              config.feedNiceness(),
              () -> compactorRef[0].maybeSignal(retiredCountUnlocked()));
      writer.adoptRetired(loaded.retired());
      replayed = replay(snapshotSerial);
      // Build threads the replay started have the opening thread's priority: the writer starts
      // its own, which inherit its feed niceness.
      parts.vectors.graph().releaseBuildThreads();
    } catch (IOException | RuntimeException | Error e) {
      // Of what this open starts, only the log runs yet (its files, and its syncer thread under the
      // async policy) besides the vectors' scratch file: close both, or every failed open leaks
      // them. open() releases the directory.
      for (java.io.Closeable c : new java.io.Closeable[] {wal, parts.vectors::close}) {
        try {
          c.close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    times.mark("wal");
    this.openTimes = times;
    this.compactor = new Compactor(parts, writer, config, errors);
    compactorRef[0] = compactor;
    this.searchPool =
        config.threadsPerSearch() > 1
            ? Executors.newFixedThreadPool(
                config.threadsPerSearch() - 1,
                r -> {
                  Thread t = new Thread(r, "mutable-index-search");
                  t.setDaemon(true);
                  return t;
                })
            : null;
    this.searcher = new Searcher(parts, searchPool, config.threadsPerSearch());
    writer.start();
    compactor.start();
    if (!config.snapshotInterval().isZero()) {
      snapshotTimer =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t =
                    new Thread(
                        org.searchlab.core.FeedNiceness.niced(config.feedNiceness(), r),
                        "mutable-index-snapshot");
                t.setDaemon(true);
                return t;
              });
      long ms = config.snapshotInterval().toMillis();
      // After a replay, a snapshot at once (Elasticsearch flushes after translog recovery too):
      // otherwise a store killed again before its first periodic snapshot replays the whole log
      // once more, and every crash makes the next restart longer.
      snapshotTimer.scheduleWithFixedDelay(
          this::periodicFlush, replayed > 0 ? 0 : ms, ms, TimeUnit.MILLISECONDS);
    } else {
      snapshotTimer = null;
    }
  }

  /** Opens (or creates) a mutable index in {@code dir}. */
  public static MutableIndex open(Path dir, Schema schema, MutableConfig config)
      throws IOException {
    return open(dir, schema, config, java.nio.channels.FileChannel::open);
  }

  /** Opens with the write-ahead log's files opened through {@code walFiles} (fault injection). */
  static MutableIndex open(
      Path dir, Schema schema, MutableConfig config, WriteAheadLog.FileOpener walFiles)
      throws IOException {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(schema, "schema");
    // Before anything is read: a second store on this directory would trim this one's log.
    DataDirectory claim = DataDirectory.acquire(dir, "mutable", schema, SnapshotFiles.VERSION);
    try {
      return new MutableIndex(dir, schema, config, walFiles, claim);
    } catch (IOException | RuntimeException e) {
      claim.close();
      throw e;
    }
  }

  /**
   * Opens (or creates) a mutable index of {@code mapping} in {@code dir}. The benchmark's product
   * mapping (in a directory without a mapping file) opens the product store, whose searches of the
   * benchmark's shapes take its specialised plans; any other mapping opens the store of any
   * mapping, which keeps the mapping durable in the directory ({@value
   * org.searchlab.core.mapping.IndexMapping#FILE}), grows it as documents and {@code PUT _mapping}
   * add fields, and answers every query type with the general evaluator.
   */
  public static SearchIndex open(
      Path dir,
      org.searchlab.core.mapping.IndexSettings settings,
      org.searchlab.core.mapping.Mapping mapping,
      MutableConfig config)
      throws IOException {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(mapping, "mapping");
    Objects.requireNonNull(config, "config");
    Schema product = productSchema(settings, mapping, config);
    if (product != null
        && !Files.exists(dir.resolve(org.searchlab.core.mapping.IndexMapping.FILE))) {
      return open(dir, product, config);
    }
    return MappedIndex.open(dir, settings, mapping, config);
  }

  /**
   * The schema {@code mapping} is the product mapping of, or null: the benchmark's fields, with a
   * graph the product store builds as its config says (index options that name no type, m or
   * ef_construction, or name the config's own, as {@code serve} writes them).
   */
  static Schema productSchema(
      org.searchlab.core.mapping.IndexSettings settings,
      org.searchlab.core.mapping.Mapping mapping,
      MutableConfig config) {
    // The product fields name their analyzer and similarity in the mapping itself; only a custom
    // analyzer of that name in the settings would change what they index.
    if (settings.analyzers().containsKey(org.searchlab.core.analysis.TextAnalysis.NAME)) {
      return null;
    }
    org.searchlab.core.mapping.FieldType.DenseVector v = mapping.vector(Schema.EMBEDDING);
    if (v == null || v.dims() <= 0) {
      return null;
    }
    org.searchlab.core.mapping.FieldType.IndexOptions io = v.indexOptions();
    boolean asConfigured =
        (io.type() == null || io.type().equals(config.hnsw().quantization().esIndexType()))
            && (io.m() == 0 || io.m() == config.hnsw().m())
            && (io.efConstruction() == 0 || io.efConstruction() == config.hnsw().efConstruction());
    return asConfigured && mapping.equals(org.searchlab.core.mapping.Mapping.product(v.dims(), io))
        ? new Schema(v.dims())
        : null;
  }

  /** Opens with {@link MutableConfig#DEFAULT}. */
  public static MutableIndex open(Path dir, Schema schema) throws IOException {
    return open(dir, schema, MutableConfig.DEFAULT);
  }

  private int retiredCountUnlocked() {
    writer.lock.lock();
    try {
      return writer.retiredCount();
    } finally {
      writer.lock.unlock();
    }
  }

  /**
   * Replays the log after the snapshot, in chunks, as the writer would apply it; returns how many
   * records it applied.
   */
  private long replay(long afterSerial) throws IOException {
    long[] last = {afterSerial};
    int[] inChunk = {0};
    wal.replay(
        afterSerial,
        (serial, payload) -> {
          writer.apply(OperationCodec.decode(payload), serial);
          last[0] = serial;
          if (++inChunk[0] == 1024) {
            writer.finishBatch(serial);
            inChunk[0] = 0;
          }
        });
    writer.finishBatch(last[0]);
    return last[0] - afterSerial;
  }

  private void periodicFlush() {
    try {
      if (!closed && parts.ids.visibleSerial() > flushedSerial) {
        flush();
      }
    } catch (IOException | RuntimeException e) {
      // The next period retries; an explicit flush() reports the failure to its caller.
      errors.record("periodic snapshot of " + dir, e);
    }
  }

  /** The writer, for tests in this package. */
  IndexWriter writer() {
    return writer;
  }

  /** The index's structures, for tests in this package. */
  IndexParts parts() {
    return parts;
  }

  /** The settings this index was opened with. */
  public MutableConfig config() {
    return config;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  /** The benchmark's mapping: the only one this store indexes until it reads any mapping (#66). */
  @Override
  public org.searchlab.core.mapping.Mapping mapping() {
    return schema.mapping();
  }

  /**
   * Accepts an update only when it changes nothing: this store indexes the benchmark's mapping
   * alone until it reads any mapping (#66).
   */
  @Override
  public org.searchlab.core.mapping.Mapping putMapping(org.searchlab.core.mapping.Mapping update) {
    org.searchlab.core.mapping.Mapping m = mapping();
    if (!m.merge(update).equals(m)) {
      throw new org.searchlab.core.InvalidRequestException(
          "this store indexes the benchmark's product mapping only; it cannot add fields");
    }
    return m;
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("mutable index in " + dir + " is closed");
    }
  }

  @Override
  public WriteResult put(Document doc) throws IOException {
    return single(schema.validate(Operation.put(doc)));
  }

  @Override
  public WriteResult create(Document doc) throws IOException {
    return single(schema.validate(Operation.create(doc)));
  }

  @Override
  public WriteResult update(PartialUpdate update) throws IOException {
    return single(schema.validate(Operation.update(update)));
  }

  @Override
  public WriteResult delete(String id) throws IOException {
    return single(schema.validate(Operation.delete(id)));
  }

  /**
   * Queues the operation for the writer and returns at once: concurrent single writes share the
   * writer's batches (one log write and fsync, one parallel graph insert) instead of each waiting
   * for its own.
   */
  @Override
  public java.util.concurrent.CompletableFuture<WriteResult> writeAsync(Operation op)
      throws IOException {
    ensureOpen();
    return writer
        .submitAsync(List.of(schema.validate(op)))
        .thenApply(
            rs -> {
              BulkItemResult r = rs.get(0);
              if (r.failed()) {
                throw new java.util.concurrent.CompletionException(r.error());
              }
              return r.result();
            });
  }

  private WriteResult single(Operation op) throws IOException {
    ensureOpen();
    BulkItemResult r = writer.submit(List.of(op)).get(0);
    if (r.failed()) {
      throw r.error();
    }
    return r.result();
  }

  @Override
  public List<BulkItemResult> bulk(List<Operation> ops) throws IOException {
    if (ops == null || ops.isEmpty()) {
      throw new InvalidRequestException("bulk request has no operations");
    }
    ensureOpen();
    List<Operation> valid = new ArrayList<>(ops.size());
    Map<Integer, InvalidRequestException> errors = new HashMap<>();
    for (int i = 0; i < ops.size(); i++) {
      try {
        valid.add(schema.validate(ops.get(i)));
      } catch (InvalidRequestException e) {
        errors.put(i, e);
      }
    }
    List<BulkItemResult> results = valid.isEmpty() ? List.of() : writer.submit(valid);
    List<BulkItemResult> out = new ArrayList<>(ops.size());
    int next = 0;
    for (int i = 0; i < ops.size(); i++) {
      InvalidRequestException e = errors.get(i);
      out.add(e != null ? BulkItemResult.failed(ops.get(i), e) : results.get(next++));
    }
    return out;
  }

  @Override
  public Optional<Document> get(String id) {
    ensureOpen();
    Schema.validateId(id);
    try (var guard = parts.generations.enter()) {
      int local = parts.ids.lookup(id);
      return local < 0 ? Optional.empty() : Optional.ofNullable(parts.document(local));
    }
  }

  @Override
  public SearchResult search(SearchRequest request) {
    ensureOpen();
    request.validate(schema);
    if (request.needsEveryMatch()) {
      // Aggregations and sorts read every match; the top-k plans below never see such a request.
      return searcher.searchEveryMatch(request, schema.mapping());
    }
    return searcher.search(request);
  }

  /** A no-op: every acknowledged write is already visible. */
  @Override
  public void refresh() {
    ensureOpen();
  }

  /** Writes a snapshot of everything acknowledged and trims the write-ahead log up to it. */
  @Override
  public void flush() throws IOException {
    ensureOpen();
    long serial = writer.onWriter(() -> Snapshotter.write(dir, parts));
    wal.trimUpTo(serial);
    flushedSerial = serial;
  }

  /**
   * There are no segments; compacts the postings of deleted documents now (the closest thing to a
   * merge) and returns when that pass is done.
   */
  @Override
  public void forceMerge(int maxSegments) {
    ensureOpen();
    if (maxSegments < 1) {
      throw new InvalidRequestException("maxSegments " + maxSegments + " is less than 1");
    }
    compactor.compactNow();
  }

  @Override
  public IndexStats stats() throws IOException {
    ensureOpen();
    Map<String, Long> memory = new HashMap<>();
    memory.put("postings", parts.postingBytes());
    memory.put("attributes", parts.attributes.ramBytesUsed() + parts.ids.ramBytesUsed());
    memory.put("vectors", parts.vectors.vectorBytes());
    if (config.hnsw().quantization() == VectorQuantization.NONE) {
      // The codes the exact plan scans (and rescores by the floats); the graph walks the floats.
      memory.put("vectors_scan_codes", parts.vectors.quantizedBytes());
    } else {
      // The int8 codes (the graph's with int8; the exact plan's beside low-bit codes), then the
      // 1-bit or 4-bit codes the graph walks with bbq or int4 (their rows' links count as graph).
      long bits = parts.vectors.lowBitBytes();
      memory.put("vectors_int8", parts.vectors.quantizedBytes() - bits);
      if (bits > 0) {
        memory.put("vectors_" + config.hnsw().quantization().flag(), bits);
      }
      long inline = parts.vectors.inlineBytes();
      if (inline > 0) {
        // The rows with the neighbours' codes (and the level-0 links) the graph walks instead.
        memory.put("vectors_bbq_inline", inline);
      }
      // Not heap: the page cache of the floats' scratch file (what Lucene's .vec file is).
      memory.put("vectors_mapped", parts.vectors.mappedVectorBytes());
    }
    memory.put("graph", parts.vectors.graphBytes());
    memory.put("document_store", parts.documents.ramBytesUsed());
    Map<String, Long> counters = new HashMap<>();
    counters.put("in_place_updates", parts.inPlaceUpdates.get());
    counters.put("reindexed_updates", parts.reindexedUpdates.get());
    counters.put("postings_touched", parts.postingListsTouched.get());
    counters.put("graph_operations", parts.vectors.graphOperations());
    counters.put("unchanged_vector_puts", parts.unchangedVectorPuts.get());
    counters.put("unchanged_text_puts", parts.unchangedTextPuts.get());
    counters.put("writer_batches", parts.writerBatches.get());
    counters.put("writer_check_ms", parts.writerCheckNanos.get() / 1_000_000);
    counters.put("writer_log_write_ms", parts.writerLogWriteNanos.get() / 1_000_000);
    counters.put("writer_log_sync_ms", parts.writerLogSyncNanos.get() / 1_000_000);
    counters.put("writer_apply_ms", parts.writerApplyNanos.get() / 1_000_000);
    counters.put("writer_graph_ms", parts.writerGraphNanos.get() / 1_000_000);
    counters.put("compactions", parts.compactions.get());
    counters.put("postings_compacted", parts.postingsCompacted.get());
    counters.put("ids_freed", parts.idsFreed.get());
    counters.put("snapshots", parts.snapshots.get());
    counters.put("refreshes", 0L);
    long dead = 0;
    for (FieldIndex f : parts.fields) {
      dead += f.deadPostings();
    }
    counters.put("dead_postings", dead);
    counters.put("background_errors", errors.count());
    parts.vectors.visits().report(counters);
    openTimes.nanos().forEach((phase, ns) -> counters.put("open_" + phase + "_ms", ns / 1_000_000));
    // Settings, constant for the life of the index, listed with the counters so that /metrics and
    // /_admin/stats show what the numbers were measured with.
    counters.put("build_threads", (long) config.hnsw().buildThreads());
    counters.put(
        "feed_nice", (long) org.searchlab.core.FeedNiceness.niceValue(config.feedNiceness()));
    int live = parts.ids.liveCount();
    int retired = parts.ids.limit() - live - parts.ids.freeCount();
    return new IndexStats(
        "mutable",
        live,
        Math.max(0, retired),
        1,
        List.of(),
        parts.ids.visibleSerial(),
        flushedSerial,
        wal.sizeBytes(),
        memory,
        counters,
        perVector());
  }

  /**
   * Heap bytes per stored vector of the floats, of the int8 codes (when quantized), of the 1-bit
   * codes ({@code bbq}, with bbq: 64 bytes at 384 dimensions, code and corrections) or the 4-bit
   * ones ({@code int4}, with int4: 208 bytes at 384 dimensions), of the rows with the neighbours'
   * codes ({@code bbq_inline}, with {@code --inline-codes}: about 2 KB at M 16 and 384 dimensions,
   * level-0 links included) and of the other graph links: object headers and table slots included,
   * so a 384-dimension float vector costs about 1,560 bytes and its code about 412. With int8 codes
   * the floats are in a mapped scratch file (page cache, as the segmented store's {@code .vec}
   * file): {@code float} then counts their four bytes a component there plus their heap
   * bookkeeping, and {@code float_heap} that bookkeeping alone (a stamp each). Empty while no
   * vector is stored.
   */
  private Map<String, Long> perVector() {
    int count = parts.vectors.vectorCount();
    if (count == 0) {
      return Map.of();
    }
    Map<String, Long> m = new HashMap<>();
    long heapFloats = parts.vectors.vectorBytes();
    if (parts.vectors.mappedVectorBytes() > 0) {
      long inFile = (long) count * parts.vectors.vectors().dimension() * Float.BYTES;
      m.put("float", Math.round((inFile + heapFloats) / (double) count));
      m.put("float_heap", Math.round(heapFloats / (double) count));
    } else {
      m.put("float", Math.round(heapFloats / (double) count));
    }
    long bits = parts.vectors.lowBitBytes();
    long codes = Math.round((parts.vectors.quantizedBytes() - bits) / (double) count);
    m.put(config.hnsw().quantization() == VectorQuantization.NONE ? "scan_codes" : "int8", codes);
    if (bits > 0) {
      m.put(config.hnsw().quantization().flag(), Math.round(bits / (double) count));
    }
    long inline = parts.vectors.inlineBytes();
    if (inline > 0) {
      m.put("bbq_inline", Math.round(inline / (double) count));
    }
    m.put("graph", Math.round(parts.vectors.graphBytes() / (double) count));
    return m;
  }

  @Override
  public StoreHealth health() {
    return new StoreHealth(
        writer.failure().map(Throwable::toString),
        wal.failure().map(Throwable::toString),
        errors.count(),
        errors.last());
  }

  /**
   * Stops the threads, writes a snapshot of everything applied since the last one and closes the
   * log. The snapshot makes a restart give back the index that was closed, graph links included (a
   * replay links its nodes in other batches and builds another, equally valid, graph), and makes
   * that restart a load instead of a replay. If the snapshot fails, the log still holds every
   * acknowledged write; the failure is thrown after the log is closed.
   */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    if (snapshotTimer != null) {
      // No interrupt: a periodic snapshot interrupted inside a FileChannel call (its log trim's
      // roll, say) gets the channel closed under it (ClosedByInterruptException), which stops the
      // log and failed this close. A running one finishes (the writer still runs); none starts.
      snapshotTimer.shutdown();
      try {
        snapshotTimer.awaitTermination(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    writer.close();
    compactor.close();
    if (searchPool != null) {
      searchPool.shutdownNow();
    }
    IOException failure = null;
    writer.lock.lock();
    try {
      // After a failure the log decides what survives (nothing may be trimmed from it now).
      if (parts.ids.visibleSerial() > flushedSerial && health().writable()) {
        long serial = Snapshotter.write(dir, parts);
        wal.trimUpTo(serial);
        flushedSerial = serial;
      }
    } catch (IOException | RuntimeException e) {
      failure = new IOException("snapshot on close of the mutable index in " + dir + " failed", e);
    } finally {
      writer.lock.unlock();
    }
    // The vectors' scratch file goes after the snapshot, which reads the floats from it.
    for (java.io.Closeable c : new java.io.Closeable[] {wal, parts.vectors::close, dataDirectory}) {
      try {
        c.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
