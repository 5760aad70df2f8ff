package org.searchlab.distribution;

import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code searchlab} command line: one picocli command with a subcommand per job. This module
 * ships {@code serve} and {@code test}; the benchmark module adds {@code experiment}, {@code
 * dataset}, {@code hnsw-bench} and {@code jmh} through {@link CliExtension} when its jar is on the
 * class path (the launcher adds it for those commands; the server image does not carry it). {@code
 * bin/searchlab} finds a JDK 21+, builds the jars when they are missing or stale, and runs this
 * class with the SIMD vector module and assertions on. Not thread-safe; {@link #main} runs once.
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
      org.searchlab.distribution.serve.ServeCommand.class,
    })
public final class SearchlabCli implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line with every subcommand found on the class path. */
  public static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new SearchlabCli());
    for (CliExtension extension : ServiceLoader.load(CliExtension.class)) {
      for (Object subcommand : extension.subcommands()) {
        cli.addSubcommand(subcommand);
      }
    }
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
