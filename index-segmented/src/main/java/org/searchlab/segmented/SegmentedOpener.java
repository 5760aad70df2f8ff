package org.searchlab.segmented;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene104.Lucene104HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.util.quantization.QuantizedByteVectorValues.ScalarEncoding;
import org.searchlab.core.Schema;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.io.Durable;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.scoring.Bm25;
import org.searchlab.core.wal.WriteAheadLog;

/**
 * Opens a segmented store and recovers it: turns a {@link SegmentedConfig} into Lucene's {@code
 * IndexWriterConfig} (codec with the HNSW parameters, merge policy and scheduler, RAM buffer),
 * starts the executors, opens {@code <dir>/index} and {@code <dir>/wal}, and replays the log after
 * the serial the last commit covers.
 *
 * <p>Recovery, step by step:
 *
 * <ol>
 *   <li>{@link SegmentedWriter#flush()} stores the last applied WAL serial S in the commit's user
 *       data ({@link #SERIAL_KEY}) and trims the log up to S;
 *   <li>opening reads S from the newest commit and moves the log's next serial past it, so a lost
 *       or trimmed log never hands out a serial the commit already covers;
 *   <li>the log's records after S are applied again through {@link SegmentedWriter#replay}, on
 *       {@link #REPLAY_LANES} threads by {@link ParallelReplay}: each id's operations in log order,
 *       different ids side by side, natural merges held back meanwhile ({@link
 *       MergePolicies.HeldDuringRecovery}). The commit may hold some of them already (writes that
 *       landed between reading S and committing); applying them twice is harmless because every
 *       operation assigns values (put, assign, delete) and none increments one;
 *   <li>a blocking refresh makes the replayed state searchable; if anything was replayed, a commit
 *       ({@link SegmentedWriter#flush()}) covers it, so the next restart does not replay it again;
 *       then the periodic refresh and the idle commit ({@link SegmentedWriter#maybeFlushIdle})
 *       start, and the held merges {@link #MERGE_RELEASE_DELAY_MS} later (at once when nothing was
 *       replayed).
 * </ol>
 *
 * <p>Stateless and thread-safe; {@link #open} and {@link #recover} run once per store, on the
 * opening thread, before the store is handed to anyone.
 */
final class SegmentedOpener {
  /** The commit user-data key holding the last WAL serial the commit covers. */
  static final String SERIAL_KEY = "searchlab.wal_serial";

  /**
   * Threads that apply the log on open: one per core, up to 4 (a replay's cost is mostly Lucene's
   * per-document HNSW insert, which runs on the applying thread).
   */
  static final int REPLAY_LANES = Math.max(1, Math.min(4, SegmentedConfig.CORES));

  private SegmentedOpener() {}

  /**
   * Steps 1–2: opens Lucene and the log in {@code dir} (created if missing) and wires the searcher
   * manager to the version map and the refresh counters. On failure it releases what it opened.
   */
  static SegmentedParts open(Path dir, SegmentedConfig config) throws IOException {
    return open(dir, config, java.nio.channels.FileChannel::open, d -> d);
  }

  /**
   * {@link #open(Path, SegmentedConfig)} with the log's files opened through {@code walFiles} and
   * Lucene's directory wrapped by {@code indexDirectory}: the seams of fault-injection tests.
   */
  static SegmentedParts open(
      Path dir,
      SegmentedConfig config,
      WriteAheadLog.FileOpener walFiles,
      java.util.function.UnaryOperator<Directory> indexDirectory)
      throws IOException {
    return open(dir, config, walFiles, indexDirectory, LuceneFields.PRODUCT);
  }

  /**
   * {@link #open(Path, SegmentedConfig, WriteAheadLog.FileOpener,
   * java.util.function.UnaryOperator)} for the fields {@code fields} describes.
   */
  static SegmentedParts open(
      Path dir,
      SegmentedConfig config,
      WriteAheadLog.FileOpener walFiles,
      java.util.function.UnaryOperator<Directory> indexDirectory,
      LuceneFields fields)
      throws IOException {
    // Durably (R1): the store's directory, and index/ before FSDirectory would create it without
    // forcing the store's directory (its own syncMetaData forces index/, not the name of index/).
    Durable.createDirectories(dir.resolve("index"));
    org.searchlab.core.BackgroundErrors errors =
        new org.searchlab.core.BackgroundErrors("segmented index in " + dir);
    CountingMergeScheduler mergeScheduler =
        new CountingMergeScheduler(config.mergeThreads(), errors);
    // The workers' CPU time counts as merge CPU: they build merged segments' graphs.
    ExecutorService hnswMergeExecutor =
        config.hnswMergeWorkers() > 1
            ? mergeScheduler.cpuTimed(config.hnswMergeWorkers(), daemon("hnsw-merge"))
            : null;
    WrittenSegments written = new WrittenSegments();
    Preload preload = new Preload(config.preload());
    CountingDirectory counted =
        new CountingDirectory(
            new OrderedDeletesDirectory(luceneDirectory(dir.resolve("index"), preload)));
    Directory directory = indexDirectory.apply(counted);
    MergePolicies.HeldDuringRecovery merges = MergePolicies.create(config);
    IndexWriter writer = null;
    WriteAheadLog log = null;
    ExecutorService searchExecutor = null;
    try {
      writer =
          new IndexWriter(
              directory,
              writerConfig(config, merges, mergeScheduler, hnswMergeExecutor, fields, written));
      long committed = committedSerial(writer);
      log = WriteAheadLog.open(dir.resolve("wal"), config.wal(), walFiles);
      // If the log was lost or trimmed past the commit, never reuse the commit's serials.
      log.advanceTo(committed + 1);
      searchExecutor =
          config.searchThreads() > 0
              ? Executors.newFixedThreadPool(config.searchThreads(), daemon("search"))
              : null;
      SearcherManager manager =
          new SearcherManager(writer, new Factory(config, searchExecutor, fields));
      LiveVersionMap versionMap = new LiveVersionMap();
      SegmentedStats stats =
          new SegmentedStats(committed, errors, merges, written, counted, preload);
      stats.readCommit(directory); // the commit the writer opened, if any
      // The version map first: its old entries must be retired before anything reacts to a refresh.
      manager.addListener(versionMap);
      manager.addListener(stats.refreshCounter());
      // Creating the scheduled executor starts no thread; recover() schedules the refresh.
      ScheduledExecutorService refresher =
          config.periodicRefresh() || config.idleFlush() ? refresher() : null;
      return new SegmentedParts(
          directory,
          dir.resolve("index"),
          writer,
          manager,
          log,
          versionMap,
          mergeScheduler,
          stats,
          committed,
          searchExecutor,
          hnswMergeExecutor,
          refresher);
    } catch (IOException | RuntimeException e) {
      closeQuietly(log);
      if (writer != null) {
        writer.rollback();
      }
      directory.close();
      SegmentedParts.shutdown(searchExecutor);
      SegmentedParts.shutdown(hnswMergeExecutor);
      throw e;
    }
  }

  /**
   * Lucene's directory on {@code index}: {@link FSDirectory#open} (memory-mapped) on the default
   * file system, which every production path is on; an {@link NIOFSDirectory} on any other.
   *
   * <p>Why: {@code MMapDirectory} maps through {@code FileChannel.map(MapMode, long, long, Arena)},
   * which a file channel of another file system cannot implement while the project compiles for
   * release 21 (the overload is a preview API there, final in 22), so the inherited method throws
   * {@code UnsupportedOperationException}. The test file systems that simulate a power cut (issue
   * 70) are such file systems; positional reads work on any file channel.
   */
  static FSDirectory luceneDirectory(Path index) throws IOException {
    return luceneDirectory(index, new Preload(java.util.Set.of()));
  }

  /** {@link #luceneDirectory(Path)} with the store's preload applied ({@link Preload#applyTo}). */
  static FSDirectory luceneDirectory(Path index, Preload preload) throws IOException {
    FSDirectory d =
        index.getFileSystem() == FileSystems.getDefault()
            ? FSDirectory.open(index)
            : new NIOFSDirectory(index);
    preload.applyTo(d);
    return d;
  }

  /**
   * Steps 3–4: replays the log after the committed serial through {@code writer}, refreshes, and
   * starts the periodic refresh. On failure it closes {@code parts}.
   */
  static void recover(SegmentedParts parts, SegmentedWriter writer, SegmentedConfig config)
      throws IOException {
    try {
      long t0 = System.nanoTime();
      ParallelReplay.run(
          parts.wal,
          parts.committedSerial,
          REPLAY_LANES,
          (op, serial) -> {
            writer.replay(op, serial);
            parts.stats.replayed.incrementAndGet();
          });
      long t1 = System.nanoTime();
      parts.stats.openPhase("replay", t1 - t0);
      parts.manager.maybeRefreshBlocking();
      long t2 = System.nanoTime();
      parts.stats.openPhase("refresh", t2 - t1);
      if (parts.stats.replayed.get() > 0) {
        // Commit what was replayed (Elasticsearch flushes at the end of translog recovery):
        // otherwise a store killed again before its log reaches the flush threshold replays
        // everything once more, and every crash makes the next restart longer.
        writer.flush();
      }
      parts.stats.openPhase("commit", System.nanoTime() - t2);
    } catch (IOException | RuntimeException e) {
      try {
        parts.close();
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    if (config.periodicRefresh()) {
      SearcherManager manager = parts.manager;
      org.searchlab.core.BackgroundErrors errors = parts.stats.errors;
      parts.refresher.scheduleWithFixedDelay(
          () -> scheduledRefresh(manager, errors),
          config.refreshIntervalMs(),
          config.refreshIntervalMs(),
          TimeUnit.MILLISECONDS);
    }
    if (config.idleFlush()) {
      org.searchlab.core.BackgroundErrors errors = parts.stats.errors;
      long tick = idleCheckMillis(config.flushIdleMs());
      parts.refresher.scheduleWithFixedDelay(
          () -> idleFlush(writer, errors), tick, tick, TimeUnit.MILLISECONDS);
    }
    if (parts.refresher != null && parts.stats.replayed.get() > 0) {
      // The store is ready. The merges held back while it replayed start a moment later, so that
      // they do not take the cores from what is still starting (the server around the store).
      parts.refresher.schedule(
          () -> releaseMerges(parts), MERGE_RELEASE_DELAY_MS, TimeUnit.MILLISECONDS);
    } else {
      // Nothing was replayed (a clean close, a _flush, a new store): nothing to wait for.
      releaseMerges(parts);
    }
  }

  /**
   * One thread for the periodic refresh and the delayed work after recovery. A close drops delayed
   * work that has not started (so closing right after opening does not wait for it).
   */
  private static ScheduledExecutorService refresher() {
    ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, daemon("refresh"));
    e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return e;
  }

  /** How long after opening the merges held during recovery start, when a refresher runs. */
  static final long MERGE_RELEASE_DELAY_MS = 1000;

  /** Ends the hold on natural merges and looks for merges at once. */
  private static void releaseMerges(SegmentedParts parts) {
    // Not through indexWriter.getConfig(), which throws once a tragedy closed the writer.
    parts.stats.heldMerges.release();
    try {
      parts.indexWriter.maybeMerge();
    } catch (AlreadyClosedException e) {
      // Closed (or stopped by a tragedy, which health() reports) before the release.
    } catch (IOException | UncheckedIOException e) {
      parts.stats.errors.record("merging after recovery", e);
    }
  }

  /**
   * How often the idle commit looks: a quarter of the idle time, between 25 ms and 5 s
   * (Elasticsearch looks for inactive shards every 5 s, {@code indices.memory.interval}); so a
   * commit comes at most a quarter later than the idle time says.
   */
  static long idleCheckMillis(long flushIdleMs) {
    return Math.max(25, Math.min(5000, flushIdleMs / 4));
  }

  private static void idleFlush(
      SegmentedWriter writer, org.searchlab.core.BackgroundErrors errors) {
    try {
      writer.maybeFlushIdle();
    } catch (AlreadyClosedException e) {
      // Closing (or the writer hit a tragedy, which health() reports): nothing to commit.
    } catch (IOException | RuntimeException e) {
      // The next tick retries (a throw would cancel the schedule); counted and logged once.
      errors.record("idle commit", e);
    }
  }

  private static void scheduledRefresh(
      SearcherManager manager, org.searchlab.core.BackgroundErrors errors) {
    try {
      manager.maybeRefresh();
    } catch (AlreadyClosedException e) {
      // Closing (or the writer hit a tragedy, which health() reports): nothing to refresh.
    } catch (IOException | UncheckedIOException e) {
      // The next tick (or an explicit refresh) retries; the failure is counted and logged once.
      errors.record("scheduled refresh", e);
    }
  }

  /**
   * The largest vector dimension the store's HNSW format indexes (Lucene's is 1024, below the
   * schema's 4096): a larger schema would log every document and then fail in Lucene.
   */
  static int maxDimensions(SegmentedConfig config) {
    return codec(config, null, null).knnVectorsFormat().getMaxDimensions(Schema.EMBEDDING);
  }

  /** The commit data of a commit covering every log record up to {@code serial}. */
  static Iterable<Map.Entry<String, String>> commitData(long serial) {
    return Map.of(SERIAL_KEY, Long.toString(serial)).entrySet();
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

  private static IndexWriterConfig writerConfig(
      SegmentedConfig config,
      MergePolicies.HeldDuringRecovery merges,
      CountingMergeScheduler mergeScheduler,
      ExecutorService hnswMergeExecutor,
      LuceneFields fields,
      WrittenSegments written) {
    IndexWriterConfig iwc = new IndexWriterConfig(fields.analyzer());
    iwc.setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
    // Norms do not depend on k1 and b, so one BM25 indexes every field's norms.
    iwc.setSimilarity(new BM25Similarity(Bm25.K1, Bm25.B));
    iwc.setCodec(written.wrap(codec(config, hnswMergeExecutor, fields.vectors())));
    iwc.setMergePolicy(merges);
    iwc.setMergeScheduler(mergeScheduler);
    iwc.setRAMBufferSizeMB(config.ramBufferMB());
    // Closing must not commit: acknowledged writes are safe in the WAL, and a commit on close
    // would make a reopen's state depend on how it was closed.
    iwc.setCommitOnClose(false);
    if (config.segmentPerBatch()) {
      // Merges found at refresh time would blur "one batch, one segment".
      iwc.setMaxFullFlushMergeWaitMillis(0);
    }
    return iwc;
  }

  private static Lucene104Codec codec(
      SegmentedConfig c,
      ExecutorService mergeExec,
      java.util.function.Function<String, FieldType.DenseVector> vectors) {
    KnnVectorsFormat hnsw = format(c, mergeExec, c.quantization(), c.hnswM(), c.hnswBeamWidth());
    if (vectors != null) {
      // Any mapping: each dense_vector field's own index_options (type, m, ef_construction), the
      // store's settings where a field leaves them unset.
      Map<String, KnnVectorsFormat> formats = new java.util.concurrent.ConcurrentHashMap<>();
      return new Lucene104Codec() {
        @Override
        public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
          FieldType.DenseVector v = vectors.apply(field);
          if (v == null) {
            return hnsw;
          }
          FieldType.IndexOptions o = v.indexOptions();
          VectorQuantization q =
              o.type() == null ? c.quantization() : VectorQuantization.fromEsIndexType(o.type());
          int m = o.m() > 0 ? o.m() : c.hnswM();
          int beam = o.efConstruction() > 0 ? o.efConstruction() : c.hnswBeamWidth();
          return formats.computeIfAbsent(
              q + "/" + m + "/" + beam, k -> format(c, mergeExec, q, m, beam));
        }
      };
    }
    // The per-field override Elasticsearch uses for dense_vector index_options.
    return new Lucene104Codec() {
      @Override
      public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
        return Schema.EMBEDDING.equals(field) ? hnsw : super.getKnnVectorsFormatForField(field);
      }
    };
  }

  private static KnnVectorsFormat format(
      SegmentedConfig c, ExecutorService mergeExec, VectorQuantization q, int m, int beam) {
    return switch (q) {
      case NONE ->
          mergeExec == null
              ? new Lucene99HnswVectorsFormat(m, beam)
              : new Lucene99HnswVectorsFormat(m, beam, c.hnswMergeWorkers(), mergeExec);
      // Elasticsearch's int8_hnsw: 7-bit scalar codes (Lucene's SEVEN_BIT keeps the dot
      // product of two codes inside signed arithmetic), the graph built and searched on them,
      // the floats kept in the segment for rescoring. Lucene 10.4 replaced the confidence-
      // interval ScalarQuantizer of Lucene99HnswScalarQuantizedVectorsFormat (now only in
      // backward-codecs) with this optimized scalar quantization (per-vector corrections
      // around the segment's centroid); it is Lucene's own int8 format in this version.
      case INT8 -> quantized(c, mergeExec, ScalarEncoding.SEVEN_BIT, m, beam);
      // Elasticsearch's int4_hnsw: 4-bit codes packed two to a byte, by the same optimized scalar
      // quantization. Elasticsearch itself keeps its own fork of Lucene's older int4 quantizer
      // (confidence interval 0: dynamic quantiles); docs/quantization.md names the deviation.
      case INT4 -> quantized(c, mergeExec, ScalarEncoding.PACKED_NIBBLE, m, beam);
      // Elasticsearch's bbq_hnsw: 1-bit codes scored against a 4-bit query (asymmetric), the
      // same optimized scalar quantization that Elasticsearch's own bbq format forks.
      case BBQ -> quantized(c, mergeExec, ScalarEncoding.SINGLE_BIT_QUERY_NIBBLE, m, beam);
    };
  }

  /**
   * Lucene's scalar-quantized HNSW format with {@code encoding}: the graph built and searched on
   * the codes, the floats kept in the segment's {@code .vec} file for rescoring, merges' graph
   * builds on the store's merge workers as with floats.
   */
  private static KnnVectorsFormat quantized(
      SegmentedConfig c, ExecutorService mergeExec, ScalarEncoding encoding, int m, int beam) {
    return mergeExec == null
        ? new Lucene104HnswScalarQuantizedVectorsFormat(encoding, m, beam)
        : new Lucene104HnswScalarQuantizedVectorsFormat(
            encoding, m, beam, c.hnswMergeWorkers(), mergeExec);
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "segmented-" + name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
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

    private final LuceneFields fields;

    Factory(SegmentedConfig config, ExecutorService executor, LuceneFields fields) {
      this.config = config;
      this.executor = executor;
      this.fields = fields;
    }

    @Override
    public IndexSearcher newSearcher(IndexReader reader, IndexReader previous) {
      IndexSearcher s =
          executor == null
              ? new IndexSearcher(reader)
              : new SlicingIndexSearcher(
                  reader, executor, config.slicing(), config.searchThreads());
      s.setSimilarity(fields.similarity());
      return s;
    }
  }
}
