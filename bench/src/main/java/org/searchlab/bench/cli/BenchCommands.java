package org.searchlab.bench.cli;

import java.util.List;
import org.searchlab.bench.data.DatasetCommand;
import org.searchlab.bench.hnsw.HnswBenchCommand;
import org.searchlab.distribution.CliExtension;

/** The benchmark module's subcommands of {@code searchlab}. Stateless. */
public final class BenchCommands implements CliExtension {
  @Override
  public List<Object> subcommands() {
    return List.of(
        new ExperimentCommand(),
        new DatasetCommand(),
        new HnswBenchCommand(),
        new JmhCommand(),
        new CrashTestCommand(),
        new HistoryCommand(),
        new RestartTimeCommand(),
        new SweepCompareCommand());
  }
}
