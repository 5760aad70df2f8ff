package org.searchlab.bench.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code searchlab} command line: one picocli command with a subcommand per job. {@code
 * bin/searchlab} finds a JDK 21+, builds the jars when they are missing or stale, and runs this
 * class with the SIMD vector module and assertions on.
 */
@Command(
    name = "searchlab",
    mixinStandardHelpOptions = true,
    version = "searchlab 0.1.0",
    description =
        "Segmented (Lucene) and mutable (Vespa-style) search indexes, measured side by side.",
    subcommands = {
      CommandLine.HelpCommand.class,
      TestCommand.class,
      org.searchlab.bench.hnsw.HnswBenchCommand.class,
      org.searchlab.bench.data.DatasetCommand.class,
      org.searchlab.server.cli.ServeCommand.class,
    })
public final class SearchlabCli implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new SearchlabCli()).execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
