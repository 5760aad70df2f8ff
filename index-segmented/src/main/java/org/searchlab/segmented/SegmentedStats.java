package org.searchlab.segmented;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.store.Directory;
import org.searchlab.core.IndexStats;
import org.searchlab.core.Schema;

/**
 * The segmented store's counters and the {@link IndexStats} report built from them and from the
 * current reader: one {@link IndexStats.SegmentStats} per segment of the last refresh (whether the
 * last commit holds it, the Lucene version that wrote it, compound or not, its attributes), memory
 * ({@code indexing_buffer}, {@code version_map}) and the counters:
 *
 * <ul>
 *   <li>refreshes that opened a new reader ({@code refreshes}) and the time spent in them ({@code
 *       refresh_time_ms}), {@code last_refresh_epoch_ms};
 *   <li>commits ({@code flushes}; {@code size_flushes}, {@code idle_flushes}), the time spent in
 *       them with and without waiting for another commit to finish ({@code flush_time_ms}, {@code
 *       flush_time_excluding_lock_ms}), and the segments the newest commit holds ({@code
 *       committed_segments});
 *   <li>merges as Elasticsearch counts them ({@link CountingMergeScheduler}): {@code
 *       merges_running}, {@code merges_running_docs}, {@code merges_running_bytes}, {@code
 *       merges_done}, {@code merges_time_ms}, {@code merges_docs}, {@code merges_input_bytes},
 *       {@code merges_stopped_ms}, {@code merges_throttled_ms}, {@code
 *       merges_auto_throttle_bytes_per_sec}; and searchlab's own: {@code merges_input_segments},
 *       {@code merges_cpu_ms} (where the JVM measures thread CPU time), {@code
 *       merges_written_segments} and {@code merges_written_bytes} (the merged segments as written),
 *       {@code flushed_segments} and {@code flushed_segment_bytes} (the segments flushes wrote),
 *       from {@link WrittenSegments};
 *   <li>every byte written through Lucene's directory ({@link CountingDirectory}), the files
 *       deleted again included: {@code index_written_bytes}, {@code index_written_page_bytes} (each
 *       file rounded up to 4 KiB pages) and {@code index_written_files}; the part merges wrote,
 *       {@code index_written_merge_bytes} and {@code index_written_merge_page_bytes}; and {@code
 *       index_written_temp_bytes}, the part written to temporary files;
 *   <li>{@code merges_pending}, {@code merges_held}, {@code docvalues_updates}, {@code
 *       reindex_updates}, {@code noops}, {@code replayed_operations}, {@code wal_fsyncs}, {@code
 *       wal_written_bytes} (every byte appended to the log), {@code version_map_entries}, {@code
 *       background_errors}, and {@code open_<phase>_ms} for each phase of the last open ({@code
 *       replay}, {@code refresh}, {@code commit});
 *   <li>{@code vector_searches} and {@code vector_visited_nodes}: approximate vector searches and
 *       the vectors they scored ({@link org.searchlab.core.VectorVisits});
 *   <li>{@code preload_files_opened}: files the directory opened and loaded into the page cache
 *       ({@link Preload}), 0 without {@link SegmentedConfig#preload};
 *   <li>{@code files_bytes_<ext>}: the bytes on disk of the current reader's segments' files by
 *       Lucene extension ({@code vec} floats, {@code vex} graph, {@code doc}/{@code tim} postings,
 *       {@code fdt} stored fields, {@code cfs} compound files, …), what the kernel may map and
 *       cache for the searches; not a count, like {@code version_map_entries}.
 * </ul>
 *
 * Every count and time starts at zero when the store opens, as Elasticsearch's do when a node
 * restarts; times are summed in nanoseconds and reported in whole milliseconds.
 *
 * <p>Thread-safe: the counters are atomics or volatile, bumped by the writer, the opener, the merge
 * threads and the searcher manager's refresh listener; a report reads them without locks, so its
 * numbers are each current but not one consistent cut.
 */
final class SegmentedStats {
  final AtomicLong flushes = new AtomicLong();
  final AtomicLong docValuesUpdates = new AtomicLong();
  final AtomicLong reindexUpdates = new AtomicLong();
  final AtomicLong noops = new AtomicLong();
  final AtomicLong replayed = new AtomicLong();
  final AtomicLong sizeFlushes = new AtomicLong();
  final AtomicLong idleFlushes = new AtomicLong();
  private final AtomicLong refreshes = new AtomicLong();
  private final AtomicLong refreshNanos = new AtomicLong();
  private volatile long lastRefreshEpochMs;

  /** Time in {@link SegmentedWriter#flush()}, from its call, and from holding its mutex. */
  final AtomicLong flushNanos = new AtomicLong();

  final AtomicLong flushLockedNanos = new AtomicLong();

  /**
   * The names of the segments the newest commit holds (empty before the first commit); empty when
   * the commit could not be read ({@link #readCommit}).
   */
  private volatile Optional<Set<String>> committedSegments = Optional.of(Set.of());

  /** The segments flushes and merges wrote. */
  final WrittenSegments written;

  /** Every byte written through the Lucene directory. */
  final CountingDirectory directoryWrites;

  /** The files the directory loads as it maps them ({@link SegmentedConfig#preload}). */
  final Preload preload;

  private final Map<String, Long> openMillis = new LinkedHashMap<>();

  /** The vector searches and the vectors they scored ({@link PlannedKnnQuery} counts them). */
  final org.searchlab.core.VectorVisits visits = new org.searchlab.core.VectorVisits();

  /** The serial of the newest commit; written by {@link SegmentedWriter#flush()}. */
  volatile long flushedSerial;

  /** Background failures: scheduled refreshes, merges, size-triggered commits. */
  final org.searchlab.core.BackgroundErrors errors;

  /**
   * The store's merge policy, kept here because {@code IndexWriter.getConfig()} throws once a
   * tragedy closed the writer, and the stats must still answer then.
   */
  final MergePolicies.HeldDuringRecovery heldMerges;

  SegmentedStats(
      long committedSerial,
      org.searchlab.core.BackgroundErrors errors,
      MergePolicies.HeldDuringRecovery heldMerges,
      WrittenSegments written,
      CountingDirectory directoryWrites,
      Preload preload) {
    this.preload = preload;
    this.flushedSerial = committedSerial;
    this.errors = errors;
    this.heldMerges = heldMerges;
    this.written = written;
    this.directoryWrites = directoryWrites;
  }

  /**
   * Reads which segments the newest commit in {@code dir} holds; called once the store opened and
   * after each commit, under the commit mutex, so no commit runs meanwhile. A commit that cannot be
   * read leaves them unknown (and counts a background error) rather than failing the commit, which
   * succeeded.
   */
  void readCommit(Directory dir) {
    try {
      Set<String> names = new HashSet<>();
      for (SegmentCommitInfo info : SegmentInfos.readLatestCommit(dir)) {
        names.add(info.info.name);
      }
      committedSegments = Optional.of(Set.copyOf(names));
    } catch (IndexNotFoundException none) {
      committedSegments = Optional.of(Set.of()); // a new index: no commit yet
    } catch (IOException e) {
      committedSegments = Optional.empty();
      errors.record("reading the segments of the last commit", e);
    }
  }

  /** Records how long a phase of opening the store took, in milliseconds. */
  synchronized void openPhase(String phase, long nanos) {
    openMillis.merge(phase, nanos / 1_000_000, Long::sum);
  }

  private synchronized Map<String, Long> openMillis() {
    return new LinkedHashMap<>(openMillis);
  }

  /**
   * Counts the refreshes that opened a new reader, adds up their time (Elasticsearch's refresh
   * metric times the same span: from the reader manager's before- to its after-refresh call) and
   * records when the last one finished. A refresh that found nothing new is neither counted nor
   * timed: the periodic refresh calls every interval, where Elasticsearch's first checks whether a
   * refresh is needed.
   */
  ReferenceManager.RefreshListener refreshCounter() {
    return new ReferenceManager.RefreshListener() {
      // Written and read only under the reader manager's refresh lock, which one thread holds
      // from the before- to the after-refresh call.
      private long startNanos;

      @Override
      public void beforeRefresh() {
        startNanos = System.nanoTime();
      }

      @Override
      public void afterRefresh(boolean didRefresh) {
        if (didRefresh) {
          refreshNanos.addAndGet(System.nanoTime() - startNanos);
          refreshes.incrementAndGet();
          lastRefreshEpochMs = System.currentTimeMillis();
        }
      }
    };
  }

  /**
   * The writer's buffered bytes; 0 once Lucene closed it after a tragic failure, so that stats (and
   * {@code /metrics}) keep answering while {@code health()} reports the stop.
   */
  private static long indexingBufferBytes(org.apache.lucene.index.IndexWriter writer) {
    try {
      return writer.ramBytesUsed();
    } catch (org.apache.lucene.store.AlreadyClosedException closed) {
      return 0;
    }
  }

  /** 1 when merges wait for a thread, else 0; 0 once a tragic failure stopped the writer. */
  private static long pendingMerges(org.apache.lucene.index.IndexWriter writer) {
    try {
      return writer.hasPendingMerges() ? 1 : 0;
    } catch (IllegalStateException stopped) { // AlreadyClosedException too
      return 0;
    }
  }

  /** The report of {@link org.searchlab.core.SearchIndex#stats()}. */
  static IndexStats report(SegmentedParts parts) throws IOException {
    SegmentedStats c = parts.stats;
    IndexSearcher s = parts.manager.acquire();
    try {
      IndexReader reader = s.getIndexReader();
      List<IndexStats.SegmentStats> segments = new ArrayList<>();
      Map<String, Long> vectorFiles = new LinkedHashMap<>();
      Map<String, Long> files = new java.util.TreeMap<>();
      long vectors = 0;
      Set<String> committed = c.committedSegments.orElse(Set.of());
      for (LeafReaderContext leaf : reader.leaves()) {
        SegmentReader sr = (SegmentReader) FilterLeafReader.unwrap(leaf.reader());
        vectors += vectorFileBytes(sr, vectorFiles);
        SegmentCommitInfo info = sr.getSegmentInfo();
        fileBytes(info, files);
        segments.add(
            new IndexStats.SegmentStats(
                info.info.name,
                sr.maxDoc(),
                sr.numDeletedDocs(),
                info.sizeInBytes(),
                committed.contains(info.info.name),
                info.info.getVersion().toString(),
                info.info.getUseCompoundFile(),
                info.info.getAttributes()));
      }
      Map<String, Long> memory = new LinkedHashMap<>();
      memory.put("indexing_buffer", indexingBufferBytes(parts.indexWriter));
      memory.put("version_map", parts.versionMap.ramBytesUsed());
      Map<String, Long> counters = new LinkedHashMap<>();
      counters.put("refreshes", c.refreshes.get());
      counters.put("refresh_time_ms", ms(c.refreshNanos.get()));
      counters.put("last_refresh_epoch_ms", c.lastRefreshEpochMs);
      counters.put("flushes", c.flushes.get());
      counters.put("flush_time_ms", ms(c.flushNanos.get()));
      counters.put("flush_time_excluding_lock_ms", ms(c.flushLockedNanos.get()));
      counters.put("size_flushes", c.sizeFlushes.get());
      counters.put("idle_flushes", c.idleFlushes.get());
      c.committedSegments.ifPresent(
          names -> counters.put("committed_segments", (long) names.size()));
      mergeCounters(parts.mergeScheduler, c.written, counters);
      // Merges the policy chose that no merge thread runs yet: with merges_running, 0 and 0
      // means the index's structure is settled (what the experiment waits for after a feed).
      counters.put("merges_pending", pendingMerges(parts.indexWriter));
      // 1 for a second after a restart that replayed: merges wait, so 0 running and 0 pending do
      // not yet mean settled.
      counters.put("merges_held", c.heldMerges.held() ? 1L : 0L);
      counters.put("docvalues_updates", c.docValuesUpdates.get());
      counters.put("reindex_updates", c.reindexUpdates.get());
      counters.put("noops", c.noops.get());
      counters.put("replayed_operations", c.replayed.get());
      counters.put("wal_fsyncs", parts.wal.fsyncCount());
      counters.put("wal_written_bytes", parts.wal.writtenBytes());
      CountingDirectory d = c.directoryWrites;
      counters.put("index_written_bytes", d.totalBytes());
      counters.put("index_written_page_bytes", d.pageBytes());
      counters.put("index_written_files", d.files());
      counters.put("index_written_merge_bytes", d.mergeBytes());
      counters.put("index_written_merge_page_bytes", d.mergePageBytes());
      counters.put("index_written_temp_bytes", d.tempBytes());
      counters.put("version_map_entries", (long) parts.versionMap.size());
      counters.put("background_errors", c.errors.count());
      c.visits.report(counters);
      counters.put("preload_files_opened", c.preload.filesLoaded());
      c.openMillis().forEach((phase, ms) -> counters.put("open_" + phase + "_ms", ms));
      files.forEach((ext, bytes) -> counters.put(FILES_BYTES + ext, bytes));
      return new IndexStats(
          "segmented",
          reader.numDocs(),
          reader.numDeletedDocs(),
          segments.size(),
          segments,
          parts.wal.lastSerial(),
          c.flushedSerial,
          parts.wal.sizeBytes(),
          memory,
          counters,
          perVector(vectorFiles, vectors));
    } finally {
      parts.manager.release(s);
    }
  }

  /** The prefix of the counters of file bytes by extension. */
  static final String FILES_BYTES = "files_bytes_";

  /**
   * Adds the sizes of a segment's files ({@link SegmentCommitInfo#files()}: its own and those of
   * its deletions and doc-values updates) to {@code into}, by extension. The reader being held
   * keeps them from being deleted while they are measured.
   */
  private static void fileBytes(SegmentCommitInfo info, Map<String, Long> into) throws IOException {
    for (String file : info.files()) {
      String ext = org.apache.lucene.index.IndexFileNames.getExtension(file);
      into.merge(ext == null ? "none" : ext, info.info.dir.fileLength(file), Long::sum);
    }
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }

  /** The merge counters of the class comment, read from the scheduler and the written segments. */
  private static void mergeCounters(
      CountingMergeScheduler m, WrittenSegments w, Map<String, Long> counters) {
    // Running first: a merge joins the totals before it leaves the running counts, so when this
    // reads 0 running, the totals read after it hold every merge begun so far.
    counters.put("merges_running", m.running());
    counters.put("merges_running_docs", m.runningDocs());
    counters.put("merges_running_bytes", m.runningBytes());
    counters.put("merges_done", m.done());
    counters.put("merges_time_ms", ms(m.nanos()));
    counters.put("merges_docs", m.docs());
    counters.put("merges_input_bytes", m.inputBytes());
    counters.put("merges_input_segments", m.inputSegments());
    counters.put("merges_stopped_ms", ms(m.stoppedNanos()));
    counters.put("merges_throttled_ms", ms(m.throttledNanos()));
    if (CountingMergeScheduler.measuresCpu()) {
      counters.put("merges_cpu_ms", ms(m.cpuNanos()));
    }
    counters.put("merges_written_segments", w.merged());
    counters.put("merges_written_bytes", w.mergedBytes());
    counters.put("flushed_segments", w.flushed());
    counters.put("flushed_segment_bytes", w.flushedBytes());
    counters.put("merges_auto_throttle_bytes_per_sec", m.autoThrottleBytesPerSec());
  }

  /**
   * Adds the embedding's off-heap bytes in {@code sr}, by file extension ({@code vec} floats,
   * {@code veq} quantized codes, {@code vex} graph), to {@code into}; returns how many vectors
   * those files hold (deleted documents' included: their bytes stay until a merge).
   */
  private static long vectorFileBytes(SegmentReader sr, Map<String, Long> into) throws IOException {
    FieldInfo fi = sr.getFieldInfos().fieldInfo(Schema.EMBEDDING);
    KnnVectorsReader vr = sr.getVectorReader();
    if (fi == null || vr == null || !fi.hasVectorValues()) {
      return 0;
    }
    FloatVectorValues values = vr.getFloatVectorValues(Schema.EMBEDDING);
    vr.getOffHeapByteSize(fi).forEach((ext, bytes) -> into.merge(ext, bytes, Long::sum));
    return values == null ? 0 : values.size();
  }

  /**
   * Bytes per vector of the floats and the quantized codes (when quantized, under {@code int8}
   * whatever their width, as {@link org.searchlab.core.IndexStats} says), and of the graph when
   * Lucene reports its {@code vex} file (it does not for every segment).
   */
  private static Map<String, Long> perVector(Map<String, Long> files, long vectors) {
    Map<String, Long> m = new LinkedHashMap<>();
    if (vectors == 0) {
      return m;
    }
    for (String[] e : new String[][] {{"vec", "float"}, {"veq", "int8"}, {"vex", "graph"}}) {
      Long bytes = files.get(e[0]);
      if (bytes != null && bytes > 0) {
        m.put(e[1], Math.round(bytes / (double) vectors));
      }
    }
    return m;
  }
}
