package org.searchlab.mutable;

import java.time.Duration;
import java.util.Objects;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.mutable.hnsw.HnswConfig;

/**
 * The settings of a {@link MutableIndex}. Immutable; build one with {@link #builder()} (which
 * starts from {@link #DEFAULT}) or change one with {@link #toBuilder()}.
 *
 * @param hnsw the graph's M, efConstruction, seed, build threads and the filter thresholds of the
 *     vector plan chooser (exact below {@code approximateThreshold}, filter-first below {@code
 *     filterFirstThreshold}); requests may override the thresholds per query. The store's default
 *     build threads are {@link #DEFAULT_BUILD_THREADS} (the cores): each writer batch's neighbour
 *     searches run on that many threads and the writer links; the graph is the same for any count
 *     of two or more (see {@code BatchInserter}), one builds exactly like sequential inserts
 * @param wal the write-ahead log settings (sync policy {@code REQUEST} is safe, {@code ASYNC} is
 *     faster and may lose the last interval in a crash)
 * @param threadsPerSearch threads one search may use (Vespa's {@code num-threads-per-search}), 1 to
 *     64; more lowers the latency of a heavy lexical query or exact scan and costs throughput under
 *     load. Default 1.
 * @param snapshotInterval how often a snapshot is written in the background and the WAL trimmed;
 *     {@link Duration#ZERO} for only on {@code flush()}. Shorter replays less on restart and writes
 *     more. Default 10 minutes.
 * @param compactionRatio background compaction of deleted postings starts when postings of deleted
 *     documents exceed this fraction of all postings (or {@code compactionMinDocs} documents are
 *     retired), in (0, 1]. Lower keeps posting lists tighter and compacts more often. Default 0.1.
 * @param compactionMinDocs retired documents that trigger a compaction on their own, 1 to 10⁹;
 *     lower frees local ids sooner. Default 4096.
 * @param writerBatch operations the writer takes from its queue at once (one WAL write and one
 *     fsync each), 1 to 100,000; larger amortises fsyncs, smaller lowers per-write latency under
 *     load. Default 2048.
 * @param feedNiceness how much the write path yields the cores to searches (Vespa's {@code
 *     feeding.niceness}), 0.0 to 1.0: the writer, its graph-build threads, the compactor and the
 *     snapshot thread run at Linux nice {@code round(19 × feedNiceness)}, so a search never waits
 *     in the run queue behind them while they still take every core searches leave idle. 0.0 runs
 *     them as any other thread. Default 0.0 (the embedding application's threads decide); {@code
 *     searchlab serve} runs the store at {@link #SERVER_FEED_NICENESS}. See {@code FeedNiceness}
 */
public record MutableConfig(
    HnswConfig hnsw,
    WalConfig wal,
    int threadsPerSearch,
    Duration snapshotInterval,
    double compactionRatio,
    int compactionMinDocs,
    int writerBatch,
    double feedNiceness) {

  /**
   * The feed niceness {@code searchlab serve} gives the store unless told otherwise: 1.0, the
   * nicest, so that a server's searches keep their cores while it absorbs writes (measurements in
   * the module's README, "Writes and queries sharing the cores").
   */
  public static final double SERVER_FEED_NICENESS = 1.0;

  /**
   * The store's default HNSW build threads: the available processors, at most 256 (the graph's own
   * default is 1; a store that feeds wants every core for its inserts).
   */
  public static final int DEFAULT_BUILD_THREADS =
      Math.min(256, Runtime.getRuntime().availableProcessors());

  public static final MutableConfig DEFAULT =
      new MutableConfig(
          HnswConfig.DEFAULT.toBuilder().buildThreads(DEFAULT_BUILD_THREADS).build(),
          WalConfig.DEFAULT,
          1,
          Duration.ofMinutes(10),
          0.1,
          4096,
          2048,
          0.0);

  public MutableConfig {
    Objects.requireNonNull(hnsw, "hnsw");
    Objects.requireNonNull(wal, "wal");
    Objects.requireNonNull(snapshotInterval, "snapshotInterval");
    if (threadsPerSearch < 1 || threadsPerSearch > 64) {
      throw new InvalidRequestException(
          "threadsPerSearch " + threadsPerSearch + " is outside [1, 64]");
    }
    if (snapshotInterval.isNegative()) {
      throw new InvalidRequestException("snapshotInterval " + snapshotInterval + " is negative");
    }
    if (!(compactionRatio > 0 && compactionRatio <= 1)) {
      throw new InvalidRequestException(
          "compactionRatio " + compactionRatio + " is outside (0, 1]");
    }
    if (compactionMinDocs < 1 || compactionMinDocs > 1_000_000_000) {
      throw new InvalidRequestException(
          "compactionMinDocs " + compactionMinDocs + " is outside [1, 1000000000]");
    }
    if (writerBatch < 1 || writerBatch > 100_000) {
      throw new InvalidRequestException("writerBatch " + writerBatch + " is outside [1, 100000]");
    }
    org.searchlab.core.FeedNiceness.check(feedNiceness);
  }

  /** A builder starting from {@link #DEFAULT}. */
  public static Builder builder() {
    return DEFAULT.toBuilder();
  }

  /** A builder preloaded with this config's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.hnsw = hnsw;
    b.wal = wal;
    b.threadsPerSearch = threadsPerSearch;
    b.snapshotInterval = snapshotInterval;
    b.compactionRatio = compactionRatio;
    b.compactionMinDocs = compactionMinDocs;
    b.writerBatch = writerBatch;
    b.feedNiceness = feedNiceness;
    return b;
  }

  /**
   * Builds a {@link MutableConfig}, one setter per component; {@link #build()} runs the record's
   * validation. Not thread-safe.
   */
  public static final class Builder {
    private HnswConfig hnsw;
    private WalConfig wal;
    private int threadsPerSearch;
    private Duration snapshotInterval;
    private double compactionRatio;
    private int compactionMinDocs;
    private int writerBatch;
    private double feedNiceness;

    private Builder() {}

    public Builder hnsw(HnswConfig v) {
      hnsw = v;
      return this;
    }

    public Builder wal(WalConfig v) {
      wal = v;
      return this;
    }

    public Builder threadsPerSearch(int v) {
      threadsPerSearch = v;
      return this;
    }

    public Builder snapshotInterval(Duration v) {
      snapshotInterval = v;
      return this;
    }

    public Builder compactionRatio(double v) {
      compactionRatio = v;
      return this;
    }

    public Builder compactionMinDocs(int v) {
      compactionMinDocs = v;
      return this;
    }

    public Builder writerBatch(int v) {
      writerBatch = v;
      return this;
    }

    public Builder feedNiceness(double v) {
      feedNiceness = v;
      return this;
    }

    public MutableConfig build() {
      return new MutableConfig(
          hnsw,
          wal,
          threadsPerSearch,
          snapshotInterval,
          compactionRatio,
          compactionMinDocs,
          writerBatch,
          feedNiceness);
    }
  }
}
