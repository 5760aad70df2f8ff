package org.searchlab.segmented;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ReferenceManager;
import org.searchlab.core.IndexStats;
import org.searchlab.core.Schema;

/**
 * The segmented store's counters and the {@link IndexStats} report built from them and from the
 * current reader: one {@link IndexStats.SegmentStats} per segment of the last refresh, memory
 * ({@code indexing_buffer}, {@code version_map}) and the counters {@code refreshes}, {@code
 * last_refresh_epoch_ms}, {@code flushes}, {@code merges_running}, {@code merges_pending}, {@code
 * merges_done}, {@code merges_held}, {@code docvalues_updates}, {@code reindex_updates}, {@code
 * noops}, {@code replayed_operations}, {@code wal_fsyncs}, {@code version_map_entries}, and {@code
 * open_<phase>_ms} for each phase of the last open ({@code replay}, {@code refresh}, {@code
 * commit}).
 *
 * <p>Thread-safe: the counters are atomics or volatile, bumped by the writer, the opener and the
 * searcher manager's refresh listener; a report reads them without locks, so its numbers are each
 * current but not one consistent cut.
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
  private volatile long lastRefreshEpochMs;
  private final Map<String, Long> openMillis = new LinkedHashMap<>();

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
      MergePolicies.HeldDuringRecovery heldMerges) {
    this.flushedSerial = committedSerial;
    this.errors = errors;
    this.heldMerges = heldMerges;
  }

  /** Records how long a phase of opening the store took, in milliseconds. */
  synchronized void openPhase(String phase, long nanos) {
    openMillis.merge(phase, nanos / 1_000_000, Long::sum);
  }

  private synchronized Map<String, Long> openMillis() {
    return new LinkedHashMap<>(openMillis);
  }

  /** Counts the refreshes that opened a new reader and records when the last one finished. */
  ReferenceManager.RefreshListener refreshCounter() {
    return new ReferenceManager.RefreshListener() {
      @Override
      public void beforeRefresh() {}

      @Override
      public void afterRefresh(boolean didRefresh) {
        if (didRefresh) {
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
      long vectors = 0;
      for (LeafReaderContext leaf : reader.leaves()) {
        SegmentReader sr = (SegmentReader) FilterLeafReader.unwrap(leaf.reader());
        vectors += vectorFileBytes(sr, vectorFiles);
        SegmentCommitInfo info = sr.getSegmentInfo();
        segments.add(
            new IndexStats.SegmentStats(
                info.info.name, sr.maxDoc(), sr.numDeletedDocs(), info.sizeInBytes()));
      }
      Map<String, Long> memory = new LinkedHashMap<>();
      memory.put("indexing_buffer", indexingBufferBytes(parts.indexWriter));
      memory.put("version_map", parts.versionMap.ramBytesUsed());
      Map<String, Long> counters = new LinkedHashMap<>();
      counters.put("refreshes", c.refreshes.get());
      counters.put("last_refresh_epoch_ms", c.lastRefreshEpochMs);
      counters.put("flushes", c.flushes.get());
      counters.put("size_flushes", c.sizeFlushes.get());
      counters.put("idle_flushes", c.idleFlushes.get());
      counters.put("merges_running", parts.mergeScheduler.running());
      // Merges the policy chose that no merge thread runs yet: with merges_running, 0 and 0
      // means the index's structure is settled (what the experiment waits for after a feed).
      counters.put("merges_pending", pendingMerges(parts.indexWriter));
      counters.put("merges_done", parts.mergeScheduler.done());
      // 1 for a second after a restart that replayed: merges wait, so 0 running and 0 pending do
      // not yet mean settled.
      counters.put("merges_held", c.heldMerges.held() ? 1L : 0L);
      counters.put("docvalues_updates", c.docValuesUpdates.get());
      counters.put("reindex_updates", c.reindexUpdates.get());
      counters.put("noops", c.noops.get());
      counters.put("replayed_operations", c.replayed.get());
      counters.put("wal_fsyncs", parts.wal.fsyncCount());
      counters.put("version_map_entries", (long) parts.versionMap.size());
      counters.put("background_errors", c.errors.count());
      c.openMillis().forEach((phase, ms) -> counters.put("open_" + phase + "_ms", ms));
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
   * Bytes per vector of the floats and the int8 codes (when quantized), and of the graph when
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
