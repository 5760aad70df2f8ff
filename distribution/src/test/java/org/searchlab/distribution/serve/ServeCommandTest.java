package org.searchlab.distribution.serve;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.embed.Embedder;
import org.searchlab.core.wal.SyncPolicy;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.segmented.MergePolicyType;
import org.searchlab.segmented.SegmentedConfig;
import picocli.CommandLine;

/**
 * Every store knob is a flag, {@code --help} shows its default, and the defaults are the stores'.
 */
class ServeCommandTest {
  /** Config component → flag. A knob added to a config without a flag fails this test. */
  private static final Map<String, String> SEGMENTED = new LinkedHashMap<>();

  private static final Map<String, String> MUTABLE = new LinkedHashMap<>();
  private static final Map<String, String> HNSW = new LinkedHashMap<>();

  /**
   * HNSW components that are no server knob: the similarity belongs to a vector field's mapping
   * ({@code dense_vector}'s {@code similarity}), and the store sets it from there.
   */
  private static final java.util.Set<String> HNSW_FROM_MAPPINGS = java.util.Set.of("similarity");

  static {
    SEGMENTED.put("mergePolicy", "--merge-policy");
    SEGMENTED.put("segmentsPerTier", "--segments-per-tier");
    SEGMENTED.put("maxMergeAtOnce", "--max-merge-at-once");
    SEGMENTED.put("floorSegmentMB", "--floor-segment-mb");
    SEGMENTED.put("maxMergedSegmentMB", "--max-merged-segment-mb");
    SEGMENTED.put("deletesPctAllowed", "--deletes-pct-allowed");
    SEGMENTED.put("refreshIntervalMs", "--refresh-interval-ms");
    SEGMENTED.put("segmentPerBatch", "--segment-per-batch");
    SEGMENTED.put("ramBufferMB", "--ram-buffer-mb");
    SEGMENTED.put("flushThresholdBytes", "--flush-threshold-bytes");
    SEGMENTED.put("flushIdleMs", "--flush-idle-ms");
    SEGMENTED.put("searchThreads", "--segment-search-threads");
    SEGMENTED.put("slicing", "--slicing");
    SEGMENTED.put("hnswM", "--hnsw-m");
    SEGMENTED.put("hnswBeamWidth", "--ef-construction");
    SEGMENTED.put("hnswMergeWorkers", "--hnsw-merge-workers");
    SEGMENTED.put("mergeThreads", "--merge-threads");
    SEGMENTED.put("partialUpdateMode", "--partial-update-mode");
    SEGMENTED.put("wal", "--wal-sync");
    SEGMENTED.put("quantization", "--quantization");
    SEGMENTED.put("oversample", "--oversample");
    SEGMENTED.put("preload", "--preload");
    MUTABLE.put("hnsw", "--hnsw-m");
    MUTABLE.put("wal", "--wal-sync");
    MUTABLE.put("threadsPerSearch", "--threads-per-search");
    MUTABLE.put("snapshotInterval", "--snapshot-interval-s");
    MUTABLE.put("compactionRatio", "--compaction-ratio");
    MUTABLE.put("compactionMinDocs", "--compaction-min-docs");
    MUTABLE.put("writerBatch", "--writer-batch");
    MUTABLE.put("feedNiceness", "--feed-niceness");
    HNSW.put("m", "--hnsw-m");
    HNSW.put("efConstruction", "--ef-construction");
    HNSW.put("seed", "--hnsw-seed");
    HNSW.put("buildThreads", "--build-threads");
    HNSW.put("approximateThreshold", "--approximate-threshold");
    HNSW.put("filterFirstThreshold", "--filter-first-threshold");
    HNSW.put("exactScanPerBeam", "--exact-scan-per-beam");
    HNSW.put("quantization", "--quantization");
    HNSW.put("oversample", "--oversample");
    HNSW.put("rerankConfidence", "--rerank-confidence");
    HNSW.put("inlineCodes", "--inline-codes");
  }

  private static TreeSet<String> components(Class<? extends Record> c) {
    TreeSet<String> out = new TreeSet<>();
    Arrays.stream(c.getRecordComponents()).forEach(rc -> out.add(rc.getName()));
    return out;
  }

  @Test
  void everyKnobIsAFlagWithItsDefaultInHelp() {
    assertEquals(components(SegmentedConfig.class), new TreeSet<>(SEGMENTED.keySet()));
    assertEquals(components(MutableConfig.class), new TreeSet<>(MUTABLE.keySet()));
    TreeSet<String> hnsw = components(HnswConfig.class);
    hnsw.removeAll(HNSW_FROM_MAPPINGS);
    assertEquals(hnsw, new TreeSet<>(HNSW.keySet()));
    CommandLine cli = new CommandLine(new ServeCommand());
    String help = cli.getUsageMessage(CommandLine.Help.Ansi.OFF);
    for (Map<String, String> m : java.util.List.of(SEGMENTED, MUTABLE, HNSW)) {
      for (String flag : m.values()) {
        assertTrue(cli.getCommandSpec().findOption(flag) != null, flag + " is an option");
        assertTrue(help.contains(flag), flag + " is in --help");
      }
    }
    for (var option : cli.getCommandSpec().options()) {
      if (option.longestName().equals("--help") || option.longestName().equals("--version")) {
        continue;
      }
      String description = String.join(" ", option.description());
      assertTrue(description.contains("Default:"), option.longestName() + " shows its default");
    }
    assertTrue(help.contains("--store"), help);
    assertTrue(help.contains("Default: segmented"), help);
    assertTrue(help.contains("Default: ./data"), help);
    assertTrue(help.contains("Default: 127.0.0.1"), help);
    assertTrue(help.contains("Default: 8080"), help);
  }

  @Test
  void defaultFlagsGiveTheStoresDefaults() {
    ServeCommand cmd = new ServeCommand();
    new CommandLine(cmd).parseArgs();
    assertEquals(SegmentedConfig.DEFAULT, cmd.segmented.config(cmd.common));
    assertEquals(MutableConfig.DEFAULT, cmd.mutable.config(cmd.common));
    assertEquals(100 * 1024 * 1024, ServeCommand.parseSize(cmd.maxContentLength));
  }

  @Test
  void theDefaultIndexIsCreatedUnlessNoDefaultIndexIsGiven() {
    ServeCommand neither = new ServeCommand();
    new CommandLine(neither).parseArgs();
    assertTrue(neither.defaultIndex, "neither flag: the product index is created");
    ServeCommand on = new ServeCommand();
    new CommandLine(on).parseArgs("--default-index");
    assertTrue(on.defaultIndex, "--default-index");
    ServeCommand off = new ServeCommand();
    new CommandLine(off).parseArgs("--no-default-index");
    assertFalse(off.defaultIndex, "--no-default-index");
  }

  @Test
  void quantizationReachesBothStoresAndBadValuesNameTheAllowedOnes() {
    ServeCommand cmd = new ServeCommand();
    new CommandLine(cmd).parseArgs("--quantization", "int8_hnsw", "--oversample", "5");
    assertEquals(
        org.searchlab.core.VectorQuantization.INT8,
        cmd.segmented.config(cmd.common).quantization());
    assertEquals(5, cmd.segmented.config(cmd.common).oversample());
    assertEquals(
        org.searchlab.core.VectorQuantization.INT8,
        cmd.mutable.config(cmd.common).hnsw().quantization());
    assertEquals(5, cmd.mutable.config(cmd.common).hnsw().oversample());
    // Elasticsearch's 4-bit and 1-bit types reach both stores, the mutable one with its rerank
    // confidence.
    ServeCommand int4 = new ServeCommand();
    new CommandLine(int4).parseArgs("--quantization", "int4_hnsw");
    assertEquals(
        org.searchlab.core.VectorQuantization.INT4,
        int4.segmented.config(int4.common).quantization());
    assertEquals(
        org.searchlab.core.VectorQuantization.INT4,
        int4.mutable.config(int4.common).hnsw().quantization());
    ServeCommand bbq = new ServeCommand();
    new CommandLine(bbq)
        .parseArgs("--quantization", "bbq", "--rerank-confidence", "2.5", "--inline-codes");
    assertEquals(
        org.searchlab.core.VectorQuantization.BBQ, bbq.segmented.config(bbq.common).quantization());
    assertEquals(
        org.searchlab.core.VectorQuantization.BBQ,
        bbq.mutable.config(bbq.common).hnsw().quantization());
    assertEquals(2.5f, bbq.mutable.config(bbq.common).hnsw().rerankConfidence());
    assertTrue(bbq.mutable.config(bbq.common).hnsw().inlineCodes());
    assertFalse(int4.mutable.config(int4.common).hnsw().inlineCodes());
    ServeCommand bad = new ServeCommand();
    new CommandLine(bad).parseArgs("--quantization", "int2");
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            org.searchlab.core.InvalidRequestException.class, () -> bad.mutable.config(bad.common));
    assertTrue(
        e.getMessage().contains("[int2]")
            && e.getMessage().contains("int8")
            && e.getMessage().contains("bbq_hnsw"),
        e.getMessage());
  }

  @Test
  void flagsReachTheConfigs() {
    ServeCommand cmd = new ServeCommand();
    new CommandLine(cmd)
        .parseArgs(
            "--merge-policy",
            "none",
            "--refresh-interval-ms",
            "-1",
            "--hnsw-m",
            "32",
            "--ef-construction",
            "64",
            "--wal-sync",
            "async",
            "--threads-per-search",
            "4",
            "--filter-first-threshold",
            "0.5",
            "--build-threads",
            "3",
            "--segment-per-batch");
    SegmentedConfig s = cmd.segmented.config(cmd.common);
    assertEquals(MergePolicyType.NONE, s.mergePolicy());
    assertEquals(SegmentedConfig.REFRESH_DISABLED, s.refreshIntervalMs());
    assertEquals(32, s.hnswM());
    assertEquals(64, s.hnswBeamWidth());
    assertTrue(s.segmentPerBatch());
    assertEquals(SyncPolicy.ASYNC, s.wal().syncPolicy());
    MutableConfig m = cmd.mutable.config(cmd.common);
    assertEquals(32, m.hnsw().m());
    assertEquals(64, m.hnsw().efConstruction());
    assertEquals(4, m.threadsPerSearch());
    assertEquals(0.5, m.hnsw().filterFirstThreshold());
    assertEquals(3, m.hnsw().buildThreads());
    assertEquals(SyncPolicy.ASYNC, m.wal().syncPolicy());
  }

  @Test
  void preloadTakesLuceneExtensionsAndNamesABadOne() {
    ServeCommand none = new ServeCommand();
    new CommandLine(none).parseArgs();
    assertEquals(java.util.Set.of(), none.segmented.config(none.common).preload());
    ServeCommand some = new ServeCommand();
    new CommandLine(some).parseArgs("--preload", "vec,vex,doc");
    assertEquals(
        java.util.Set.of("vec", "vex", "doc"), some.segmented.config(some.common).preload());
    ServeCommand bad = new ServeCommand();
    CommandLine.ParameterException e =
        assertThrows(
            CommandLine.ParameterException.class,
            () -> new CommandLine(bad).parseArgs("--preload", "vec,vecx"));
    assertTrue(e.getMessage().contains("'vecx'"), e.getMessage());
    // On the command line: a usage error (exit code 2) whose message names the extension.
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CommandLine cli = new CommandLine(new ServeCommand());
    cli.setErr(new java.io.PrintWriter(err, true, UTF_8));
    assertEquals(2, cli.execute("--preload", ".vec"));
    assertTrue(err.toString(UTF_8).contains("'.vec'"), err.toString(UTF_8));
  }

  @Test
  void feedNicenessDefaultsPerStoreAndBadValuesNameTheRange() {
    ServeCommand cmd = new ServeCommand();
    new CommandLine(cmd).parseArgs();
    assertEquals(MutableConfig.SERVER_FEED_NICENESS, cmd.feedNiceness(ServeCommand.Store.MUTABLE));
    assertEquals(0.0, cmd.feedNiceness(ServeCommand.Store.SEGMENTED));
    ServeCommand set = new ServeCommand();
    new CommandLine(set).parseArgs("--feed-niceness", "0.5");
    assertEquals(0.5, set.feedNiceness(ServeCommand.Store.MUTABLE));
    assertEquals(0.5, set.feedNiceness(ServeCommand.Store.SEGMENTED));
    ServeCommand bad = new ServeCommand();
    new CommandLine(bad).parseArgs("--feed-niceness", "2");
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class, () -> bad.feedNiceness(ServeCommand.Store.MUTABLE));
    assertTrue(e.getMessage().contains("2.0") && e.getMessage().contains("1.0"), e.getMessage());
  }

  @Test
  void minilmIsTheRealModel() {
    try (Embedder e = ServeCommand.openEmbedder("MiniLM", 384).orElseThrow()) {
      assertEquals("minilm", e.name());
      assertEquals(384, e.embed("command-line JSON processor").length);
    }
    assertTrue(ServeCommand.openEmbedder("none", 32).isEmpty());
  }

  @Test
  void badValuesNameTheValue() {
    assertEquals(512 * 1024, ServeCommand.parseSize("512kb"));
    InvalidRequestException size =
        assertThrows(InvalidRequestException.class, () -> ServeCommand.parseSize("lots"));
    assertTrue(size.getMessage().contains("'lots'"));
    InvalidRequestException store =
        assertThrows(InvalidRequestException.class, () -> ServeCommand.parseStore("rocks"));
    assertTrue(store.getMessage().contains("'rocks'"));
    InvalidRequestException embedder =
        assertThrows(InvalidRequestException.class, () -> ServeCommand.openEmbedder("gpt", 384));
    assertTrue(embedder.getMessage().contains("'gpt'"));
    InvalidRequestException dims =
        assertThrows(InvalidRequestException.class, () -> ServeCommand.openEmbedder("minilm", 32));
    assertTrue(dims.getMessage().contains("--dims is 32"), dims.getMessage());
  }

  /** A data directory another server holds is refused with its message alone: no stack trace. */
  @Test
  void aRefusedDataDirectoryIsOneClearMessage(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("data");
    try (var held =
        org.searchlab.server.index.Indices.open(
            dir,
            StoreKinds.of(SegmentedConfig.DEFAULT, MutableConfig.DEFAULT),
            "mutable",
            java.util.Optional.empty(),
            new org.searchlab.server.metrics.ServerMetrics())) {
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      PrintStream stderr = System.err;
      int code;
      System.setErr(new PrintStream(err, true, UTF_8));
      try {
        CommandLine cli = new CommandLine(new ServeCommand());
        cli.setErr(new java.io.PrintWriter(System.err, true));
        code =
            cli.execute(
                "--store", "mutable", "--data-dir", dir.toString(), "--dims", "16", "--port", "0");
      } finally {
        System.setErr(stderr);
      }
      String said = err.toString(UTF_8);
      assertEquals(1, code, said);
      assertTrue(said.contains("is in use by another running store"), said);
      assertFalse(said.contains("\tat "), "no stack trace: " + said);
    }
  }
}
