package org.searchlab.segmented;

import java.util.Objects;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.wal.WalConfig;

/**
 * Settings of the segmented store; {@link #DEFAULT} equals Elasticsearch 8's defaults for one
 * shard. Every component is a knob an experiment may turn (the server exposes each as a flag), so
 * each names its range and which way is better. Immutable; build one with {@link #builder()} (which
 * starts from the defaults) or change one with {@link #toBuilder()}. The constructor rejects
 * out-of-range values with {@link InvalidRequestException}.
 *
 * @param mergePolicy which merge policy runs; {@link MergePolicyType#TIERED} as Elasticsearch
 * @param segmentsPerTier tiered: segments allowed per tier, 2 to 1000 (Elasticsearch 10); lower
 *     means fewer segments and more merging
 * @param maxMergeAtOnce tiered: segments merged at once, 2 to 1000 (Elasticsearch 10); for {@code
 *     log-byte-size} it is the merge factor. Clamped to {@code segmentsPerTier} as Elasticsearch
 *     does
 * @param floorSegmentMB tiered: segments below this size count as this size, 0 to 1,048,576
 *     (Elasticsearch 2 MB); for {@code log-byte-size} the minimum merge size. Higher merges tiny
 *     segments away sooner
 * @param maxMergedSegmentMB tiered: the largest segment natural merges produce, 1 to 1,048,576
 *     (Elasticsearch 5 GB = 5120 MB); for {@code log-byte-size} the maximum merge size
 * @param deletesPctAllowed tiered: share of deleted documents tolerated before merges reclaim them,
 *     5 to 50 percent (Elasticsearch 20); lower saves space and costs more merging
 * @param refreshIntervalMs how often a scheduled refresh makes writes visible, 1 to 3,600,000 ms,
 *     or -1 for "only on an explicit refresh" (Elasticsearch 1000); shorter means fresher results
 *     and more, smaller segments
 * @param segmentPerBatch refresh after every bulk, so one bulk makes one segment (and full-flush
 *     merges are not waited for); for segment-count experiments
 * @param ramBufferMB the indexing buffer, 1 to 2047 MB (Elasticsearch gives {@code IndexWriter} 256
 *     MB and flushes by its own controller); larger means fewer flush-made segments
 * @param searchThreads 0 searches the segments one after another on the caller's thread; N from 1
 *     to 1024 searches slices concurrently on a pool of N threads (Elasticsearch's search pool:
 *     cores × 3 / 2 + 1). More threads cut latency at low load and cost CPU per query
 * @param slicing how segments are grouped into slices for concurrent search
 * @param hnswM HNSW max connections per node (the paper's M), 2 to 512 (Elasticsearch {@code m}
 *     16); higher is more accurate, larger and slower to build
 * @param hnswBeamWidth HNSW beam width while building (the paper's efConstruction), 1 to 3200
 *     (Elasticsearch {@code ef_construction} 100; the benchmark uses 200, our default); higher is
 *     more accurate and slower to build
 * @param hnswMergeWorkers threads one HNSW graph merge may use, 1 to 64 (Elasticsearch 1); more
 *     speeds up big merges at the cost of cores
 * @param mergeThreads concurrent merges, 1 to 64 (Elasticsearch: max(1, min(4, cores / 2))); up to
 *     {@code mergeThreads + 5} merges may queue before indexing threads stall
 * @param partialUpdateMode how partial updates are applied
 * @param wal write-ahead log settings (Elasticsearch {@code durability: request})
 * @param flushThresholdBytes commit (and trim the log) once the log written since the last commit
 *     passes this size, 64 KiB to 1 TiB (Elasticsearch {@code flush_threshold_size} 512 MB);
 *     smaller bounds the log and the restart's replay tighter and commits more often
 * @param flushIdleMs commit (and trim the log) once nothing was written for this long while the log
 *     holds writes since the last commit, 100 ms to 1 day, or {@link #IDLE_FLUSH_DISABLED}
 *     (Elasticsearch flushes a shard inactive for {@code indices.memory.shard_inactive_time}, 5
 *     minutes, our default); so a store that was fed and then went quiet restarts as fast as one
 *     that was flushed
 * @param quantization the embedding's vectors format: {@link VectorQuantization#NONE} is Lucene's
 *     float HNSW format (Elasticsearch {@code hnsw}); {@link VectorQuantization#INT8} is Lucene's
 *     scalar-quantized HNSW format with 7-bit codes (Elasticsearch {@code int8_hnsw}), {@link
 *     VectorQuantization#INT4} the same with 4-bit codes ({@code int4_hnsw}) and {@link
 *     VectorQuantization#BBQ} with 1-bit codes searched by a 4-bit query ({@code bbq_hnsw}); a
 *     quantized format's graph is built and searched on the codes while the floats stay in the
 *     segment's {@code .vec} file for rescoring. Default {@code NONE}
 * @param oversample with quantization, each segment's best {@code targetHits × oversample} hits by
 *     quantized score are rescored with their float vectors (Elasticsearch {@code
 *     rescore_vector.oversample}), 1 to 10; higher recovers more recall and reads more floats.
 *     Default 3
 * @param preload the Lucene file extensions ({@code vec}, {@code vex}, {@code doc}, …; {@link
 *     #PRELOAD_EXTENSIONS}, or {@code *} for every file) whose files the store loads into the page
 *     cache as it maps them (Elasticsearch's {@code index.store.preload}, through Lucene's {@code
 *     MMapDirectory.setPreload}, which loads each mapped segment of such a file), so that their
 *     pages are resident before the first search; default none (Elasticsearch's default). More
 *     extensions mean slower opens and refreshes, fewer page faults in the first searches, and a
 *     resident set that holds those files whatever the searches touch
 */
public record SegmentedConfig(
    MergePolicyType mergePolicy,
    double segmentsPerTier,
    int maxMergeAtOnce,
    double floorSegmentMB,
    double maxMergedSegmentMB,
    double deletesPctAllowed,
    long refreshIntervalMs,
    boolean segmentPerBatch,
    double ramBufferMB,
    int searchThreads,
    Slicing slicing,
    int hnswM,
    int hnswBeamWidth,
    int hnswMergeWorkers,
    int mergeThreads,
    PartialUpdateMode partialUpdateMode,
    WalConfig wal,
    long flushThresholdBytes,
    long flushIdleMs,
    VectorQuantization quantization,
    int oversample,
    java.util.Set<String> preload) {

  /** The cores this JVM may use, from which Elasticsearch derives its pool sizes. */
  public static final int CORES = Runtime.getRuntime().availableProcessors();

  /** {@code -1}: refresh only when asked. */
  public static final long REFRESH_DISABLED = -1;

  /** {@code 0}: no commit when the store goes idle. */
  public static final long IDLE_FLUSH_DISABLED = 0;

  public static final SegmentedConfig DEFAULT =
      new SegmentedConfig(
          MergePolicyType.TIERED,
          10.0,
          10,
          2.0,
          5 * 1024.0,
          20.0,
          1000,
          false,
          256.0,
          CORES * 3 / 2 + 1,
          Slicing.LUCENE_DEFAULT,
          16,
          200,
          1,
          Math.max(1, Math.min(4, CORES / 2)),
          PartialUpdateMode.REINDEX,
          WalConfig.DEFAULT,
          512L << 20,
          300_000,
          VectorQuantization.NONE,
          VectorQuantization.DEFAULT_OVERSAMPLE,
          java.util.Set.of());

  public SegmentedConfig {
    Objects.requireNonNull(mergePolicy, "mergePolicy");
    Objects.requireNonNull(slicing, "slicing");
    Objects.requireNonNull(partialUpdateMode, "partialUpdateMode");
    Objects.requireNonNull(wal, "wal");
    Objects.requireNonNull(quantization, "quantization");
    VectorQuantization.checkOversample(oversample);
    preload = checkPreload(preload);
    range("segmentsPerTier", segmentsPerTier, 2, 1000);
    range("maxMergeAtOnce", maxMergeAtOnce, 2, 1000);
    range("floorSegmentMB", floorSegmentMB, 0, 1 << 20);
    range("maxMergedSegmentMB", maxMergedSegmentMB, 1, 1 << 20);
    range("deletesPctAllowed", deletesPctAllowed, 5, 50);
    if (refreshIntervalMs != REFRESH_DISABLED) {
      range("refreshIntervalMs", refreshIntervalMs, 1, 3_600_000);
    }
    range("ramBufferMB", ramBufferMB, 1, 2047);
    range("searchThreads", searchThreads, 0, 1024);
    range("hnswM", hnswM, 2, 512);
    range("hnswBeamWidth", hnswBeamWidth, 1, 3200);
    range("hnswMergeWorkers", hnswMergeWorkers, 1, 64);
    range("mergeThreads", mergeThreads, 1, 64);
    range("flushThresholdBytes", flushThresholdBytes, 64 << 10, 1L << 40);
    if (flushIdleMs != IDLE_FLUSH_DISABLED) {
      range("flushIdleMs", flushIdleMs, 100, 86_400_000);
    }
  }

  private static void range(String name, double value, double min, double max) {
    if (!(value >= min && value <= max)) {
      throw new InvalidRequestException(
          name + " " + value + " is outside [" + min + ", " + max + "]");
    }
  }

  /** {@link #preload}'s name for every file of the index, as Elasticsearch's {@code *}. */
  public static final String PRELOAD_ALL = "*";

  /**
   * The extensions {@link #preload} accepts: those of the files this store's codec writes (Lucene
   * 10's postings, terms, norms, doc values, points, stored fields, term vectors, float, HNSW and
   * quantized vectors, live docs, compound files and segment metadata).
   */
  public static final java.util.Set<String> PRELOAD_EXTENSIONS =
      java.util.Set.of(
          "doc", "pos", "pay", "psm", "tim", "tip", "tmd", "nvd", "nvm", "dvd", "dvm", "kdd", "kdi",
          "kdm", "fdt", "fdx", "fdm", "tvd", "tvx", "tvm", "vec", "vemf", "vex", "vem", "veq",
          "vemq", "liv", "cfs", "cfe", "si", "fnm");

  /**
   * The extensions of a comma-separated list such as {@code vec,vex,doc} ({@code serve --preload});
   * an empty list is none.
   *
   * @throws InvalidRequestException naming an extension that is not one of {@link
   *     #PRELOAD_EXTENSIONS} or {@link #PRELOAD_ALL}
   */
  public static java.util.Set<String> parsePreload(String list) {
    java.util.Set<String> out = new java.util.TreeSet<>();
    for (String e : list.split(",", -1)) {
      String ext = e.strip();
      if (!ext.isEmpty() || !list.isBlank()) {
        out.add(ext);
      }
    }
    return checkPreload(out);
  }

  private static java.util.Set<String> checkPreload(java.util.Set<String> preload) {
    Objects.requireNonNull(preload, "preload");
    for (String ext : preload) {
      if (!ext.equals(PRELOAD_ALL) && !PRELOAD_EXTENSIONS.contains(ext)) {
        throw new InvalidRequestException(
            "preload extension '"
                + ext
                + "' is not a file extension of the index; expected "
                + PRELOAD_ALL
                + " or some of "
                + new java.util.TreeSet<>(PRELOAD_EXTENSIONS));
      }
    }
    return java.util.Set.copyOf(preload);
  }

  /** Whether a scheduled refresh runs. */
  public boolean periodicRefresh() {
    return refreshIntervalMs != REFRESH_DISABLED;
  }

  /** Whether the store commits when it goes idle. */
  public boolean idleFlush() {
    return flushIdleMs != IDLE_FLUSH_DISABLED;
  }

  /** A builder starting from {@link #DEFAULT}. */
  public static Builder builder() {
    return DEFAULT.toBuilder();
  }

  /** A builder preloaded with this config's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.mergePolicy = mergePolicy;
    b.segmentsPerTier = segmentsPerTier;
    b.maxMergeAtOnce = maxMergeAtOnce;
    b.floorSegmentMB = floorSegmentMB;
    b.maxMergedSegmentMB = maxMergedSegmentMB;
    b.deletesPctAllowed = deletesPctAllowed;
    b.refreshIntervalMs = refreshIntervalMs;
    b.segmentPerBatch = segmentPerBatch;
    b.ramBufferMB = ramBufferMB;
    b.searchThreads = searchThreads;
    b.slicing = slicing;
    b.hnswM = hnswM;
    b.hnswBeamWidth = hnswBeamWidth;
    b.hnswMergeWorkers = hnswMergeWorkers;
    b.mergeThreads = mergeThreads;
    b.partialUpdateMode = partialUpdateMode;
    b.wal = wal;
    b.flushThresholdBytes = flushThresholdBytes;
    b.flushIdleMs = flushIdleMs;
    b.quantization = quantization;
    b.oversample = oversample;
    b.preload = preload;
    return b;
  }

  /**
   * Builds a {@link SegmentedConfig}, one setter per component; {@link #build()} runs the record's
   * validation. Not thread-safe.
   */
  public static final class Builder {
    private MergePolicyType mergePolicy;
    private double segmentsPerTier;
    private int maxMergeAtOnce;
    private double floorSegmentMB;
    private double maxMergedSegmentMB;
    private double deletesPctAllowed;
    private long refreshIntervalMs;
    private boolean segmentPerBatch;
    private double ramBufferMB;
    private int searchThreads;
    private Slicing slicing;
    private int hnswM;
    private int hnswBeamWidth;
    private int hnswMergeWorkers;
    private int mergeThreads;
    private PartialUpdateMode partialUpdateMode;
    private WalConfig wal;
    private long flushThresholdBytes;
    private long flushIdleMs;
    private VectorQuantization quantization;
    private int oversample;
    private java.util.Set<String> preload;

    private Builder() {}

    public Builder mergePolicy(MergePolicyType v) {
      mergePolicy = v;
      return this;
    }

    public Builder segmentsPerTier(double v) {
      segmentsPerTier = v;
      return this;
    }

    public Builder maxMergeAtOnce(int v) {
      maxMergeAtOnce = v;
      return this;
    }

    public Builder floorSegmentMB(double v) {
      floorSegmentMB = v;
      return this;
    }

    public Builder maxMergedSegmentMB(double v) {
      maxMergedSegmentMB = v;
      return this;
    }

    public Builder deletesPctAllowed(double v) {
      deletesPctAllowed = v;
      return this;
    }

    public Builder refreshIntervalMs(long v) {
      refreshIntervalMs = v;
      return this;
    }

    public Builder segmentPerBatch(boolean v) {
      segmentPerBatch = v;
      return this;
    }

    public Builder ramBufferMB(double v) {
      ramBufferMB = v;
      return this;
    }

    public Builder searchThreads(int v) {
      searchThreads = v;
      return this;
    }

    public Builder slicing(Slicing v) {
      slicing = v;
      return this;
    }

    public Builder hnswM(int v) {
      hnswM = v;
      return this;
    }

    public Builder hnswBeamWidth(int v) {
      hnswBeamWidth = v;
      return this;
    }

    public Builder hnswMergeWorkers(int v) {
      hnswMergeWorkers = v;
      return this;
    }

    public Builder mergeThreads(int v) {
      mergeThreads = v;
      return this;
    }

    public Builder partialUpdateMode(PartialUpdateMode v) {
      partialUpdateMode = v;
      return this;
    }

    public Builder wal(WalConfig v) {
      wal = v;
      return this;
    }

    public Builder flushThresholdBytes(long v) {
      flushThresholdBytes = v;
      return this;
    }

    public Builder flushIdleMs(long v) {
      flushIdleMs = v;
      return this;
    }

    public Builder quantization(VectorQuantization v) {
      quantization = v;
      return this;
    }

    public Builder oversample(int v) {
      oversample = v;
      return this;
    }

    public Builder preload(java.util.Set<String> v) {
      preload = v;
      return this;
    }

    public SegmentedConfig build() {
      return new SegmentedConfig(
          mergePolicy,
          segmentsPerTier,
          maxMergeAtOnce,
          floorSegmentMB,
          maxMergedSegmentMB,
          deletesPctAllowed,
          refreshIntervalMs,
          segmentPerBatch,
          ramBufferMB,
          searchThreads,
          slicing,
          hnswM,
          hnswBeamWidth,
          hnswMergeWorkers,
          mergeThreads,
          partialUpdateMode,
          wal,
          flushThresholdBytes,
          flushIdleMs,
          quantization,
          oversample,
          preload);
    }
  }
}
