package org.searchlab.bench.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.searchlab.bench.restart.RestartTime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code searchlab restart-time}: how long a mutable index of {@code --docs} documents takes to
 * reopen from its snapshot, phase by phase, median of {@code --rounds} fresh JVMs ({@link
 * RestartTime}). Stateless.
 */
@Command(
    name = "restart-time",
    mixinStandardHelpOptions = true,
    description = {
      "Builds a mutable index of --docs synthetic documents with --dims-dimensional vectors in --dir"
          + " (once; an existing index there is reused), closes it (the close writes a snapshot),"
          + " then reopens it in --rounds fresh JVMs and prints each open phase (checksum, ids,"
          + " documents, attributes, postings, graph, wal) and the medians."
    })
final class RestartTimeCommand implements Callable<Integer> {
  @Option(names = "--dir", required = true, description = "The index directory (built if empty).")
  Path dir;

  @Option(names = "--docs", description = "Documents to build. Default: ${DEFAULT-VALUE}.")
  int docs = 1_000_000;

  @Option(names = "--dims", description = "Embedding dimension. Default: ${DEFAULT-VALUE}.")
  int dims = 384;

  @Option(
      names = "--seed",
      description = "Seed of the synthetic corpus. Default: ${DEFAULT-VALUE}.")
  long seed = 42;

  @Option(
      names = "--rounds",
      description = "Timed reopens; 0 only builds. Default: ${DEFAULT-VALUE}.")
  int rounds = 3;

  @Option(
      names = "--bulk",
      description = "Documents per bulk while building. Default: ${DEFAULT-VALUE}.")
  int bulk = 1000;

  @Option(names = "--heap", description = "The reopening JVMs' -Xmx. Default: ${DEFAULT-VALUE}.")
  String heap = "8g";

  @Option(
      names = "--build-seconds",
      description =
          "Stop building after this many seconds and close the index (the next run goes on; exit"
              + " code 3 until it is complete); 0 for no limit. Default: ${DEFAULT-VALUE}.")
  long buildSeconds = 0;

  @Option(
      names = "--ef-construction",
      description =
          "The graph's build beam while building. Default: ${DEFAULT-VALUE} (the store's).")
  int efConstruction = 200;

  @Option(
      names = "--build-threads",
      description = "Threads linking graph nodes while building. Default: ${DEFAULT-VALUE}.")
  int buildThreads = 1;

  @Override
  public Integer call() throws Exception {
    if (docs < 1 || rounds < 0 || bulk < 1 || buildSeconds < 0) {
      throw new IllegalArgumentException(
          "--docs "
              + docs
              + " and --bulk "
              + bulk
              + " must be ≥ 1, --rounds "
              + rounds
              + " and --build-seconds "
              + buildSeconds
              + " ≥ 0");
    }
    RestartTime.Settings settings =
        new RestartTime.Settings(
            dir,
            docs,
            dims,
            seed,
            rounds,
            bulk,
            heap,
            Duration.ofSeconds(buildSeconds),
            efConstruction,
            buildThreads);
    return new RestartTime(settings, System.out).run().isEmpty() ? 3 : 0;
  }
}
