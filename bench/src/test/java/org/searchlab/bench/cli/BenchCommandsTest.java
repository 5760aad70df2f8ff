package org.searchlab.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.searchlab.distribution.SearchlabCli;

/** With the bench jar on the class path, {@code searchlab} offers the benchmark's commands too. */
class BenchCommandsTest {
  @Test
  void benchCommandsPlugIntoTheDistributionsCommandLine() {
    assertEquals(
        Set.of(
            "help",
            "test",
            "serve",
            "experiment",
            "dataset",
            "hnsw-bench",
            "jmh",
            "crashtest",
            "restart-time"),
        SearchlabCli.commandLine().getSubcommands().keySet());
  }
}
