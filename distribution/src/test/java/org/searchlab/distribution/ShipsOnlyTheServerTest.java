package org.searchlab.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The distribution's class path (this module's runtime dependencies, what the launcher's {@code
 * serve} and the Docker image run) holds none of the benchmark's libraries, and without the bench
 * jar the command line offers only what ships.
 */
class ShipsOnlyTheServerTest {
  @Test
  void noBenchmarkLibraryIsOnTheClassPath() {
    for (String benchOnly :
        new String[] {
          "org.openjdk.jmh.runner.Runner", // JMH
          "org.knowm.xchart.XYChart", // XChart
          "org.apache.commons.compress.archivers.ArchiveEntry", // commons-compress
          "org.HdrHistogram.Histogram", // HdrHistogram
          "org.searchlab.bench.cli.BenchCommands", // the bench module itself
        }) {
      assertThrows(ClassNotFoundException.class, () -> Class.forName(benchOnly), benchOnly);
    }
  }

  @Test
  void withoutTheBenchJarOnlyServeTestAndHelpExist() {
    assertEquals(
        Set.of("help", "test", "serve"), SearchlabCli.commandLine().getSubcommands().keySet());
  }
}
