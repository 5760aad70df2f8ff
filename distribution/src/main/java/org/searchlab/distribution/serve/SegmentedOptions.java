package org.searchlab.distribution.serve;

import org.searchlab.segmented.MergePolicyType;
import org.searchlab.segmented.PartialUpdateMode;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.segmented.Slicing;
import picocli.CommandLine.Option;

/**
 * The segmented store's knobs as flags, each defaulting to {@link SegmentedConfig#DEFAULT}
 * (Elasticsearch 8's defaults for one shard). Ranges and which way is better are on {@link
 * SegmentedConfig}. Not thread-safe; picocli fills it once.
 */
final class SegmentedOptions {
  private static final SegmentedConfig D = SegmentedConfig.DEFAULT;

  @Option(
      names = "--merge-policy",
      description = "Segmented: tiered, log-byte-size or none. Default: ${DEFAULT-VALUE}.")
  String mergePolicy = D.mergePolicy().cliName();

  @Option(
      names = "--segments-per-tier",
      description = "Segmented, tiered: segments per tier, 2-1000. Default: ${DEFAULT-VALUE}.")
  double segmentsPerTier = D.segmentsPerTier();

  @Option(
      names = "--max-merge-at-once",
      description = "Segmented: segments merged at once, 2-1000. Default: ${DEFAULT-VALUE}.")
  int maxMergeAtOnce = D.maxMergeAtOnce();

  @Option(
      names = "--floor-segment-mb",
      description = "Segmented: floor segment size in MB. Default: ${DEFAULT-VALUE}.")
  double floorSegmentMB = D.floorSegmentMB();

  @Option(
      names = "--max-merged-segment-mb",
      description = "Segmented: largest naturally merged segment in MB. Default: ${DEFAULT-VALUE}.")
  double maxMergedSegmentMB = D.maxMergedSegmentMB();

  @Option(
      names = "--deletes-pct-allowed",
      description = "Segmented: deleted share tolerated, 5-50 %%. Default: ${DEFAULT-VALUE}.")
  double deletesPctAllowed = D.deletesPctAllowed();

  @Option(
      names = "--refresh-interval-ms",
      description =
          "Segmented: scheduled refresh period in ms, or -1 for explicit refreshes only."
              + " Default: ${DEFAULT-VALUE}.")
  long refreshIntervalMs = D.refreshIntervalMs();

  @Option(
      names = "--segment-per-batch",
      description =
          "Segmented: refresh after every bulk (one segment per bulk). Default: ${DEFAULT-VALUE}.")
  boolean segmentPerBatch = D.segmentPerBatch();

  @Option(
      names = "--ram-buffer-mb",
      description = "Segmented: IndexWriter RAM buffer, 1-2047 MB. Default: ${DEFAULT-VALUE}.")
  double ramBufferMB = D.ramBufferMB();

  @Option(
      names = "--flush-threshold-bytes",
      description =
          "Segmented: commit and trim the WAL once it passes this many bytes since the last commit,"
              + " 64 KiB-1 TiB (Elasticsearch flush_threshold_size). Default: ${DEFAULT-VALUE}.")
  long flushThresholdBytes = D.flushThresholdBytes();

  @Option(
      names = "--flush-idle-ms",
      description =
          "Segmented: commit and trim the WAL once nothing was written for this long, 100 ms-1 day,"
              + " 0 = never (Elasticsearch flushes a shard inactive for 5 minutes)."
              + " Default: ${DEFAULT-VALUE}.")
  long flushIdleMs = D.flushIdleMs();

  @Option(
      names = "--segment-search-threads",
      description =
          "Segmented: concurrent segment search threads, 0 = sequential. Default: ${DEFAULT-VALUE}.")
  int searchThreads = D.searchThreads();

  @Option(
      names = "--slicing",
      description =
          "Segmented: lucene-default, segment-per-slice or partitions. Default: ${DEFAULT-VALUE}.")
  String slicing = D.slicing().cliName();

  @Option(
      names = "--hnsw-merge-workers",
      description = "Segmented: threads per HNSW graph merge, 1-64. Default: ${DEFAULT-VALUE}.")
  int hnswMergeWorkers = D.hnswMergeWorkers();

  @Option(
      names = "--merge-threads",
      description = "Segmented: concurrent merges, 1-64. Default: ${DEFAULT-VALUE}.")
  int mergeThreads = D.mergeThreads();

  @Option(
      names = "--partial-update-mode",
      description = "Segmented: reindex or docvalues. Default: ${DEFAULT-VALUE}.")
  String partialUpdateMode = D.partialUpdateMode().name().toLowerCase(java.util.Locale.ROOT);

  @Option(
      names = "--preload",
      split = ",",
      converter = PreloadExtension.class,
      description =
          "Segmented: Lucene file extensions to load into the page cache as the index maps them,"
              + " comma-separated (vec,vex,veq,doc,tim,tip,nvd,dvd, ...; * for all), as"
              + " Elasticsearch's index.store.preload. Default: none.")
  java.util.List<String> preload = new java.util.ArrayList<>();

  /**
   * One extension of {@code --preload}: an extension the index does not write is a usage error that
   * names it (picocli prints it with the usage and exits with 2).
   */
  static final class PreloadExtension implements picocli.CommandLine.ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        java.util.Set<String> one = SegmentedConfig.parsePreload(value);
        if (one.size() != 1) {
          throw new picocli.CommandLine.TypeConversionException(
              "preload extension '" + value + "' is not one file extension");
        }
        return one.iterator().next();
      } catch (org.searchlab.core.InvalidRequestException e) {
        throw new picocli.CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }

  /** The config these flags describe, with the shared HNSW and WAL settings. */
  SegmentedConfig config(CommonStoreOptions common) {
    return SegmentedConfig.builder()
        .mergePolicy(MergePolicyType.parse(mergePolicy))
        .segmentsPerTier(segmentsPerTier)
        .maxMergeAtOnce(maxMergeAtOnce)
        .floorSegmentMB(floorSegmentMB)
        .maxMergedSegmentMB(maxMergedSegmentMB)
        .deletesPctAllowed(deletesPctAllowed)
        .refreshIntervalMs(refreshIntervalMs)
        .segmentPerBatch(segmentPerBatch)
        .ramBufferMB(ramBufferMB)
        .flushThresholdBytes(flushThresholdBytes)
        .flushIdleMs(flushIdleMs)
        .searchThreads(searchThreads)
        .slicing(Slicing.parse(slicing))
        .hnswM(common.hnswM)
        .hnswBeamWidth(common.efConstruction)
        .hnswMergeWorkers(hnswMergeWorkers)
        .mergeThreads(mergeThreads)
        .partialUpdateMode(PartialUpdateMode.parse(partialUpdateMode))
        .wal(common.wal())
        .quantization(common.quantization())
        .oversample(common.oversample)
        .preload(java.util.Set.copyOf(preload))
        .build();
  }
}
