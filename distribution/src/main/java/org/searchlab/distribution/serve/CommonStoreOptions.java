package org.searchlab.distribution.serve;

import java.time.Duration;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.wal.SyncPolicy;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.segmented.SegmentedConfig;
import picocli.CommandLine.Option;

/**
 * Knobs both stores share: the HNSW graph's M and efConstruction, the vector quantization and its
 * rescoring oversample, and the write-ahead log. Not thread-safe; picocli fills it once.
 */
final class CommonStoreOptions {
  @Option(
      names = {"--hnsw-m", "--m"},
      description =
          "HNSW max connections per node (M), 2-512; higher is more accurate, larger, slower to"
              + " build. Default: ${DEFAULT-VALUE}.")
  int hnswM = SegmentedConfig.DEFAULT.hnswM();

  @Option(
      names = {"--ef-construction", "--hnsw-beam-width"},
      description =
          "HNSW candidates explored per insert (efConstruction / beam width), 1-3200; higher is"
              + " more accurate and slower to build. Default: ${DEFAULT-VALUE}.")
  int efConstruction = SegmentedConfig.DEFAULT.hnswBeamWidth();

  @Option(
      names = "--quantization",
      description =
          "What the vector graph search reads: none (float vectors; Elasticsearch hnsw, Vespa"
              + " float cells) or int8 (int8 codes with the floats kept for rescoring;"
              + " Elasticsearch int8_hnsw, Vespa int8 cells), both stores; int4 or bbq (4-bit"
              + " or 1-bit codes, floats kept for rescoring; Elasticsearch int4_hnsw, bbq_hnsw),"
              + " both stores, no Vespa cell type. Default:"
              + " ${DEFAULT-VALUE}.")
  String quantization = VectorQuantization.NONE.flag();

  @Option(
      names = "--oversample",
      description =
          "With a quantized --quantization: candidates rescored with the float vectors per wanted hit"
              + " (Elasticsearch rescore_vector.oversample), 1-10; higher recovers more recall and"
              + " reads more floats. Default: ${DEFAULT-VALUE}.")
  int oversample = VectorQuantization.DEFAULT_OVERSAMPLE;

  /** The {@code --quantization} value, or an error naming it and the allowed ones. */
  VectorQuantization quantization() {
    return VectorQuantization.parse(quantization);
  }

  @Option(
      names = "--wal-sync",
      description =
          "WAL durability: request (fsync before acknowledging) or async (periodic fsync)."
              + " Default: ${DEFAULT-VALUE}.")
  String walSync = WalConfig.DEFAULT.syncPolicy().name().toLowerCase(java.util.Locale.ROOT);

  @Option(
      names = "--wal-async-interval-ms",
      description = "WAL fsync period under async, 1-3600000 ms. Default: ${DEFAULT-VALUE}.")
  long walAsyncIntervalMs = WalConfig.DEFAULT.asyncInterval().toMillis();

  @Option(
      names = "--wal-file-mb",
      description = "WAL file size before rolling, 1-16384 MB. Default: ${DEFAULT-VALUE}.")
  long walFileMb = WalConfig.DEFAULT.fileBytes() >> 20;

  WalConfig wal() {
    SyncPolicy p =
        switch (walSync.toLowerCase(java.util.Locale.ROOT)) {
          case "request" -> SyncPolicy.REQUEST;
          case "async" -> SyncPolicy.ASYNC;
          default ->
              throw new org.searchlab.core.InvalidRequestException(
                  "--wal-sync '" + walSync + "' is not request or async");
        };
    return WalConfig.builder()
        .syncPolicy(p)
        .asyncInterval(Duration.ofMillis(walAsyncIntervalMs))
        .fileBytes(walFileMb << 20)
        .build();
  }
}
