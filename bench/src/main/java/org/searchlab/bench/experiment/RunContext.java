package org.searchlab.bench.experiment;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.load.ProcessCpu;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;
import org.searchlab.opensearch.OpenSearchConfig;

/**
 * What every part of a run shares: the profile, the output directory, the run context of each row,
 * the progress line, the load generator and the rows measured so far (also appended to {@code
 * results.partial.jsonl} as they come, so a crashed run keeps its numbers). The row list is
 * synchronized; the rest is used from the runner's thread.
 */
final class RunContext {
  final Profile profile;
  final Path outDir;
  final RunInfo info;
  final Progress progress;
  final LoadGenerator load;
  final PrintStream log;

  /** Nodes of each local OpenSearch cluster (1 to {@value OpenSearchConfig#MAX_NODES}). */
  final int openSearchNodes;

  /**
   * The peaks of the main phases' servers' memory, polled each second once a server is watched
   * ({@link Servers}); whoever made it closes it ({@link ExperimentRunner} writes the peaks to
   * {@code run.json}).
   */
  final org.searchlab.bench.load.MemorySampler memory;

  private final List<ResultRow> rows = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, String> cpuSources = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Long>> vectorBytes = new ConcurrentHashMap<>();
  private final Map<String, Integer> refeedClientNice = new ConcurrentHashMap<>();

  RunContext(
      Profile profile,
      Path outDir,
      RunInfo info,
      Progress progress,
      LoadGenerator load,
      PrintStream log,
      int openSearchNodes) {
    this(
        profile,
        outDir,
        info,
        progress,
        load,
        log,
        openSearchNodes,
        // watched by no one unless a server of the main phases starts: then it polls on a
        // daemon thread that ends with the JVM
        new org.searchlab.bench.load.MemorySampler(java.time.Duration.ofSeconds(1)));
  }

  RunContext(
      Profile profile,
      Path outDir,
      RunInfo info,
      Progress progress,
      LoadGenerator load,
      PrintStream log,
      int openSearchNodes,
      org.searchlab.bench.load.MemorySampler memory) {
    this.memory = memory;
    this.profile = profile;
    this.outDir = outDir;
    this.info = info;
    this.progress = progress;
    this.load = load;
    this.log = log;
    this.openSearchNodes = openSearchNodes;
  }

  /** Records a variant's bytes per vector after its feed (from its {@code /_admin/stats}). */
  void vectorBytes(String variant, Map<String, Long> perVector) {
    vectorBytes.put(variant, Map.copyOf(perVector));
  }

  /** Bytes per vector by variant, for the report. */
  Map<String, Map<String, Long>> vectorBytes() {
    return Map.copyOf(vectorBytes);
  }

  /**
   * Records the Linux nice value the feed client's thread had in a variant's refeed under queries
   * (-1 where it could not be read).
   */
  void refeedClientNice(String variant, int nice) {
    refeedClientNice.put(variant, nice);
  }

  /** The feed client's nice value in each variant's refeed under queries, for run.json. */
  Map<String, Integer> refeedClientNice() {
    return Map.copyOf(refeedClientNice);
  }

  /**
   * Records where a variant's CPU figures come from; rows of variants never named here are
   * searchlab servers read from {@code /proc}.
   */
  void cpuSource(String variant, String source) {
    cpuSources.put(variant, source);
  }

  /** Records a measured row, stamped with its variant's CPU source. */
  void add(ResultRow measured) throws IOException {
    ResultRow row =
        measured.withCpuSource(cpuSources.getOrDefault(measured.variant(), ProcessCpu.SOURCE));
    rows.add(row);
    Files.writeString(
        outDir.resolve("results.partial.jsonl"),
        Json.MAPPER.writeValueAsString(row) + "\n",
        java.nio.file.StandardOpenOption.CREATE,
        java.nio.file.StandardOpenOption.APPEND);
  }

  List<ResultRow> rows() {
    synchronized (rows) {
      return new ArrayList<>(rows);
    }
  }

  void replaceAll(List<ResultRow> newRows) {
    synchronized (rows) {
      rows.clear();
      rows.addAll(newRows);
    }
  }

  /** A fresh data directory for one server's index. */
  Path dataDir(String name) throws IOException {
    Path d = outDir.resolve("data").resolve(name);
    Files.createDirectories(d);
    return d;
  }

  /** The log file of one server. */
  Path serverLog(String name) {
    return outDir.resolve("logs").resolve(name + ".log");
  }
}
