package org.searchlab.distribution.serve;

import java.time.Duration;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.hnsw.HnswConfig;
import picocli.CommandLine.Option;

/**
 * The mutable store's knobs as flags, each defaulting to {@link MutableConfig#DEFAULT}. Ranges and
 * which way is better are on {@link MutableConfig} and {@link HnswConfig}. Not thread-safe; picocli
 * fills it once.
 */
final class MutableOptions {
  private static final MutableConfig D = MutableConfig.DEFAULT;

  @Option(
      names = "--threads-per-search",
      description = "Mutable: threads one search may use, 1-64. Default: ${DEFAULT-VALUE}.")
  int threadsPerSearch = D.threadsPerSearch();

  @Option(
      names = "--snapshot-interval-s",
      description =
          "Mutable: background snapshot period in seconds, 0 = only on flush. Default:"
              + " ${DEFAULT-VALUE}.")
  long snapshotIntervalS = D.snapshotInterval().toSeconds();

  @Option(
      names = "--compaction-ratio",
      description =
          "Mutable: compact postings when deleted postings exceed this share, (0, 1]. Default:"
              + " ${DEFAULT-VALUE}.")
  double compactionRatio = D.compactionRatio();

  @Option(
      names = "--compaction-min-docs",
      description =
          "Mutable: retired documents that trigger compaction. Default: ${DEFAULT-VALUE}.")
  int compactionMinDocs = D.compactionMinDocs();

  @Option(
      names = "--writer-batch",
      description =
          "Mutable: operations per writer batch (one WAL write, one fsync), 1-100000. Default:"
              + " ${DEFAULT-VALUE}.")
  int writerBatch = D.writerBatch();

  @Option(
      names = "--hnsw-seed",
      description = "Mutable: seed of the HNSW level generator. Default: ${DEFAULT-VALUE}.")
  long hnswSeed = D.hnsw().seed();

  @Option(
      names = {"--build-threads", "--hnsw-build-threads"},
      description =
          "Mutable: threads searching for graph neighbours in each writer batch (the writer links),"
              + " 1-256. Default: the cores, ${DEFAULT-VALUE}.")
  int hnswBuildThreads = D.hnsw().buildThreads();

  @Option(
      names = "--approximate-threshold",
      description =
          "Mutable: filter hit ratio below which a filtered vector search is exact, [0, 1]."
              + " Default: ${DEFAULT-VALUE}.")
  double approximateThreshold = D.hnsw().approximateThreshold();

  @Option(
      names = "--filter-first-threshold",
      description =
          "Mutable: filter hit ratio below which the graph is explored filter-first, [0, 1]."
              + " Default: ${DEFAULT-VALUE}.")
  double filterFirstThreshold = D.hnsw().filterFirstThreshold();

  @Option(
      names = "--exact-scan-per-beam",
      description =
          "Mutable: a filtered vector search over floats is also exact when its filter accepts"
              + " fewer than this many documents per unit of its beam (unless the request sets its"
              + " own approximate threshold), 0-100000, 0 for the hit ratio alone."
              + " Default: ${DEFAULT-VALUE}.")
  int exactScanPerBeam = D.hnsw().exactScanPerBeam();

  @Option(
      names = "--rerank-confidence",
      description =
          "Mutable, with 1-bit or 4-bit codes (--quantization bbq or int4, or such fields): how"
              + " far below the"
              + " k-th float score a candidate's code estimate may sit and still be rescored by its"
              + " floats, in units of the code's error (RaBitQ's epsilon), 0-10; higher rescores"
              + " deeper and misses fewer neighbours. Default: ${DEFAULT-VALUE}.")
  float rerankConfidence = D.hnsw().rerankConfidence();

  @Option(
      names = "--inline-codes",
      description =
          "Mutable, with 1-bit codes: keep each node's neighbours' codes in its bottom-level row,"
              + " so that a search estimates a node's neighbours from one contiguous row: the same"
              + " hits, faster, for about 2M x (dims/8 + 12) more bytes per vector (2 KB at M 16"
              + " and 384 dimensions). Default: off.")
  boolean inlineCodes;

  /** The config these flags describe, with the shared HNSW and WAL settings. */
  MutableConfig config(CommonStoreOptions common) {
    HnswConfig hnsw =
        D.hnsw().toBuilder()
            .m(common.hnswM)
            .efConstruction(common.efConstruction)
            .seed(hnswSeed)
            .buildThreads(hnswBuildThreads)
            .approximateThreshold(approximateThreshold)
            .filterFirstThreshold(filterFirstThreshold)
            .exactScanPerBeam(exactScanPerBeam)
            .quantization(common.quantization())
            .oversample(common.oversample)
            .rerankConfidence(rerankConfidence)
            .inlineCodes(inlineCodes)
            .build();
    return MutableConfig.builder()
        .hnsw(hnsw)
        .wal(common.wal())
        .threadsPerSearch(threadsPerSearch)
        .snapshotInterval(Duration.ofSeconds(snapshotIntervalS))
        .compactionRatio(compactionRatio)
        .compactionMinDocs(compactionMinDocs)
        .writerBatch(writerBatch)
        .build();
  }
}
