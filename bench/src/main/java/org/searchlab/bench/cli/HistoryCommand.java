package org.searchlab.bench.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.searchlab.bench.history.HistoryRun;
import org.searchlab.bench.history.HistorySuite;
import org.searchlab.testing.history.LinearizabilityChecker;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code searchlab history}: records client histories against a server child that is SIGKILLed and
 * restarted in between, and checks each per document for linearizability, lost writes and dirty
 * reads, and apart from those the search-after-refresh guarantee ({@link HistorySuite}). Exits 1 on
 * any violation or a history that could not run to its end. Stateless.
 */
@Command(
    name = "history",
    mixinStandardHelpOptions = true,
    description = {
      "Starts 'serve' as a child on a fresh data directory per history; --clients threads make"
          + " --ops single-document calls (put, create, partial update, delete, real-time get) on"
          + " --ids documents, each with its invocation and completion time and a unique token per"
          + " write; the server is SIGKILLed --kills times at seeded moments and restarted on the"
          + " same directory, and once more before a quiet final read of every id. Each history is"
          + " checked per document (Wing-Gong-Lowe linearizability, lost writes, dirty reads), and"
          + " its refresh-then-search calls against the weaker search-after-refresh guarantee. One"
          + " line per history, a summary; a violating history is saved with its data directory"
          + " and server log. Exit 1 on any violation.",
      "With --check FILE, checks a saved history file instead and starts nothing."
    })
final class HistoryCommand implements Callable<Integer> {
  @Option(names = "--store", description = "mutable or segmented. Default: ${DEFAULT-VALUE}.")
  String store = "mutable";

  @Option(names = "--histories", description = "Histories to run. Default: ${DEFAULT-VALUE}.")
  int histories = 3;

  @Option(
      names = "--ops",
      description =
          "Document calls per history (the final reads come on top). Default:"
              + " ${DEFAULT-VALUE}.")
  int ops = 1000;

  @Option(names = "--clients", description = "Client threads. Default: ${DEFAULT-VALUE}.")
  int clients = 8;

  @Option(
      names = "--ids",
      description = "Documents per history; fewer is more contention. Default: ${DEFAULT-VALUE}.")
  int ids = 40;

  @Option(
      names = "--kills",
      description =
          "SIGKILLs among the calls of each history (one more comes before the final read unless"
              + " --no-final-kill). Default: ${DEFAULT-VALUE}.")
  int kills = 2;

  @Option(names = "--no-final-kill", description = "Do not kill the server before the final read.")
  boolean noFinalKill;

  @Option(
      names = "--refresh-rate",
      description =
          "Chance of a refresh-then-search before a call, in [0, 1]. Default: ${DEFAULT-VALUE}.")
  double refreshRate = 0.005;

  @Option(names = "--seed", description = "Seed of history 0's calls and kill moments.")
  long seed = System.nanoTime();

  @Option(
      names = "--work-dir",
      description =
          "Where data directories, server logs and saved histories go. Default: a new temp dir.")
  Path workDir;

  @Option(names = "--heap", description = "The server's -Xmx. Default: ${DEFAULT-VALUE}.")
  String heap = "256m";

  @Option(names = "--keep-all", description = "Save every history file, not only violating ones.")
  boolean keepAll;

  @Option(
      names = "--max-steps",
      description =
          "The checker's budget per document in model steps; past it (or a minute) the verdict is"
              + " unknown. Default: ${DEFAULT-VALUE}.")
  long maxSteps = 50_000_000L;

  @Option(names = "--check", description = "Check this saved history file; start nothing.")
  Path check;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    LinearizabilityChecker.Budget budget;
    HistoryRun.Settings run;
    try {
      budget = new LinearizabilityChecker.Budget(maxSteps, Duration.ofMinutes(1));
      // The suite gives each history its own data directory under the work directory.
      run =
          new HistoryRun.Settings(
              store,
              clients,
              ops,
              ids,
              kills,
              !noFinalKill,
              refreshRate,
              seed,
              Path.of("h0"),
              heap);
      if (histories < 1) {
        throw new IllegalArgumentException("--histories " + histories + " must be at least 1");
      }
    } catch (IllegalArgumentException e) {
      // a usage error (exit 2 with the message), not a stack trace
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    long t0 = System.nanoTime();
    HistorySuite.Summary s;
    if (check != null) {
      s = HistorySuite.checkFile(check, budget, System.out);
    } else {
      Path dir = workDir != null ? workDir : Files.createTempDirectory("searchlab-history-");
      System.out.printf(
          "history: store %s, %d histories × %d calls, %d clients, %d ids, %d kills%s, seed %d,"
              + " work %s%n",
          store,
          histories,
          ops,
          clients,
          ids,
          kills,
          noFinalKill ? "" : " + 1 before the final read",
          seed,
          dir);
      s =
          new HistorySuite(
                  new HistorySuite.Settings(run, histories, dir, keepAll, budget), System.out)
              .run();
    }
    System.out.printf("time: %.1f s%n", (System.nanoTime() - t0) / 1e9);
    if (s.unknown() > 0) {
      System.out.println(
          s.unknown() + " documents were not decided within the checker's budget (--max-steps)");
    }
    return s.passed() ? 0 : 1;
  }
}
