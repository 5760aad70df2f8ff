package org.searchlab.bench.report;

/**
 * What one write window of the merge-policy comparison cost one server: a feed of the corpus (or a
 * force-merge) and the merges it started, up to when they settled. The store's own figures are the
 * growth of its counters over the window, null where the server does not report them; the
 * independent readings come from the kernel ({@code /proc/<pid>/io}, {@code /proc/<pid>/task}) and
 * from polling {@code _segments}. Immutable.
 *
 * @param variant the policy's label ({@code mutable} for the reference store)
 * @param phase {@code feed} (0 → N), {@code force_merge} (policy {@code none}, after each feed) or
 *     {@code refeed} (every document again)
 * @param round the refeed round, null for the first feed and its force-merge
 * @param docs documents acknowledged
 * @param feedSeconds wall time of the feed itself (0 for a force-merge)
 * @param settleSeconds wall time after it until the merges it started had finished (the whole merge
 *     for a force-merge)
 * @param feedCpuCores server cores over the feed itself
 * @param docsPerSecPerCore documents per second per server core over the feed
 * @param serverCpuSeconds server CPU over the whole window (feed, merges, settling)
 * @param segments searchable segments at the end
 * @param indexBytes the index's bytes at the end ({@code store.size_in_bytes}), null when not
 *     reported
 * @param mergesTotal {@code merges.total} growth
 * @param mergeTimeMs {@code merges.total_time_in_millis} growth
 * @param mergeThrottledMs {@code merges.total_throttled_time_in_millis} growth
 * @param mergeDocs {@code merges.total_docs} growth (documents of the inputs)
 * @param mergeInputBytes {@code merges.total_size_in_bytes} growth (bytes of the inputs)
 * @param mergeOutputBytes the store's bytes written by merges
 * @param mergeCpuMs the store's CPU of its merge threads
 * @param flushedSegmentBytes the store's bytes of segments written by flushes
 * @param translogBytes bytes appended to the write-ahead log ({@code wal_written_bytes}), else its
 *     growth summed over polls of {@code translog.size_in_bytes} (a commit that trims it between
 *     polls loses the growth since the last poll)
 * @param refreshes {@code refresh.total} growth
 * @param flushes {@code flush.total} growth
 * @param kernelWriteBytes {@code write_bytes} growth of the server process, null where the kernel
 *     does not report it
 * @param mergeThreads merge threads seen by the poller (Lucene starts one per merge): a lower bound
 *     on merges, since one that starts and ends between two polls is not seen
 * @param threadMergeCpuMs CPU of those threads over the window, read from their {@code stat}
 * @param threadMergeWallMs their lifetimes within the window, summed (start from {@code starttime},
 *     end half a poll after the last poll that saw them)
 * @param threadMergeWriteBytes their {@code write_bytes}, summed: every byte a merge thread wrote,
 *     the temporary files it deletes again included
 * @param vanishedDocs documents of segments seen by one poll of {@code _segments} and gone by a
 *     later one: the inputs of merges (and, in a refeed, segments dropped whole as all deleted)
 * @param vanishedBytes the bytes of those segments
 * @param polls polls of {@code _segments} over the window
 * @param kernelCancelledBytes {@code cancelled_write_bytes} growth of the server process: dirty
 *     bytes of files deleted or truncated before they reached the disk
 * @param indexWrittenPageBytes the store's every byte written through its Lucene directory, each
 *     file rounded up to pages ({@code index_written_page_bytes}), null when not reported
 * @param mergeWrittenPageBytes the part of those merges wrote, temporary files included
 * @param mergeThreadsEnded merge threads seen alive and then gone within the window
 * @param threadMergeCpuTailMs the most CPU those could have used after their last reading (the time
 *     from it to the poll that found them gone, summed)
 */
public record MergeWindow(
    String variant,
    String phase,
    Integer round,
    long docs,
    double feedSeconds,
    double settleSeconds,
    double feedCpuCores,
    double docsPerSecPerCore,
    double serverCpuSeconds,
    Integer segments,
    Long indexBytes,
    Long mergesTotal,
    Long mergeTimeMs,
    Long mergeThrottledMs,
    Long mergeDocs,
    Long mergeInputBytes,
    Long mergeOutputBytes,
    Long mergeCpuMs,
    Long flushedSegmentBytes,
    Long translogBytes,
    Long refreshes,
    Long flushes,
    Long kernelWriteBytes,
    Integer mergeThreads,
    Double threadMergeCpuMs,
    Double threadMergeWallMs,
    Long threadMergeWriteBytes,
    Long vanishedDocs,
    Long vanishedBytes,
    int polls,
    Long kernelCancelledBytes,
    Long indexWrittenPageBytes,
    Long mergeWrittenPageBytes,
    Integer mergeThreadsEnded,
    Double threadMergeCpuTailMs) {

  public static final String FEED = "feed";
  public static final String FORCE_MERGE = "force_merge";
  public static final String REFEED = "refeed";

  /**
   * Bytes written by merges: the store's figure, else the merge threads' kernel reading; null with
   * neither.
   */
  @com.fasterxml.jackson.annotation.JsonProperty("merge_bytes")
  public Long mergeBytes() {
    return mergeOutputBytes != null ? mergeOutputBytes : threadMergeWriteBytes;
  }

  /** Where {@link #mergeBytes} comes from. */
  @com.fasterxml.jackson.annotation.JsonProperty("merge_bytes_source")
  public String mergeBytesSource() {
    return mergeOutputBytes != null
        ? "store"
        : threadMergeWriteBytes != null ? "merge threads' write_bytes" : "none";
  }

  /** Merge CPU in ms: the store's figure, else the merge threads' reading. */
  @com.fasterxml.jackson.annotation.JsonProperty("merge_cpu")
  public Double mergeCpu() {
    return mergeCpuMs != null ? Double.valueOf(mergeCpuMs) : threadMergeCpuMs;
  }

  /** Bytes written by merges ÷ bytes of the index at the end; null when either is unknown. */
  @com.fasterxml.jackson.annotation.JsonProperty("write_amplification")
  public Double writeAmplification() {
    Long m = mergeBytes();
    return m == null || indexBytes == null || indexBytes <= 0 ? null : m / (double) indexBytes;
  }

  /** All bytes the kernel saw the server write ÷ bytes of the index at the end. */
  @com.fasterxml.jackson.annotation.JsonProperty("total_write_amplification")
  public Double totalWriteAmplification() {
    return kernelWriteBytes == null || indexBytes == null || indexBytes <= 0
        ? null
        : kernelWriteBytes / (double) indexBytes;
  }

  /**
   * Everything the store says it wrote: every byte appended to its log and every file written
   * through its Lucene directory, rounded up to pages; null when it does not say.
   */
  @com.fasterxml.jackson.annotation.JsonProperty("store_all_written_bytes")
  public Long storeAllWrittenBytes() {
    return translogBytes == null || indexWrittenPageBytes == null
        ? null
        : translogBytes + indexWrittenPageBytes;
  }

  /**
   * What the kernel says reached (or will reach) the disk: {@code write_bytes} less {@code
   * cancelled_write_bytes}; null when it does not say.
   */
  @com.fasterxml.jackson.annotation.JsonProperty("kernel_kept_bytes")
  public Long kernelKeptBytes() {
    return kernelWriteBytes == null || kernelCancelledBytes == null
        ? null
        : kernelWriteBytes - kernelCancelledBytes;
  }

  /** The store's own account of the files it keeps: log + flushed segments + merged segments. */
  @com.fasterxml.jackson.annotation.JsonProperty("store_written_bytes")
  public Long storeWrittenBytes() {
    return translogBytes == null || flushedSegmentBytes == null || mergeOutputBytes == null
        ? null
        : translogBytes + flushedSegmentBytes + mergeOutputBytes;
  }
}
