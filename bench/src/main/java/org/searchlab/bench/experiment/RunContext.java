package org.searchlab.bench.experiment;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;

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
  private final List<ResultRow> rows = Collections.synchronizedList(new ArrayList<>());

  RunContext(
      Profile profile,
      Path outDir,
      RunInfo info,
      Progress progress,
      LoadGenerator load,
      PrintStream log) {
    this.profile = profile;
    this.outDir = outDir;
    this.info = info;
    this.progress = progress;
    this.load = load;
    this.log = log;
  }

  /** Records a measured row. */
  void add(ResultRow row) throws IOException {
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
