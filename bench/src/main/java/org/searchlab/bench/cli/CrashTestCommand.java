package org.searchlab.bench.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.searchlab.bench.crash.CrashTest;
import org.searchlab.core.VectorQuantization;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code searchlab crashtest}: SIGKILLs a server child at seeded moments while it takes writes (or,
 * with {@code --power-loss}, cuts the power of its simulated disk) and checks every acknowledged
 * operation after each restart ({@link CrashTest}). Exits 1 on any loss, resurrection, torn
 * document, or if a second server could open the same directory.
 */
@Command(
    name = "crashtest",
    mixinStandardHelpOptions = true,
    description = {
      "Starts 'serve' as a child on a fresh data directory, feeds _bulk puts, partial updates and"
          + " deletes from several threads while journaling every acknowledged item, kills the"
          + " server at seeded moments (SIGKILL; one cycle SIGTERM), restarts it and checks every"
          + " id exactly. Also starts a second server on the same directory and expects a"
          + " refusal. One line per cycle, a summary with restart times; exit 1 on any violation."
    })
final class CrashTestCommand implements Callable<Integer> {
  @Option(
      names = "--store",
      description =
          "mutable, segmented, or both as mutable,segmented: one server then holds an index of"
              + " each kind and every bulk writes to both. Default: ${DEFAULT-VALUE}.")
  String store = "mutable";

  @Option(names = "--cycles", description = "Kill-and-restart cycles. Default: ${DEFAULT-VALUE}.")
  int cycles = 20;

  @Option(names = "--threads", description = "Feeder threads. Default: ${DEFAULT-VALUE}.")
  int threads = 4;

  @Option(names = "--ids", description = "Distinct document ids. Default: ${DEFAULT-VALUE}.")
  int ids = 5000;

  @Option(names = "--dims", description = "Embedding dimension. Default: ${DEFAULT-VALUE}.")
  int dims = 16;

  @Option(names = "--seed", description = "Seed of the kill moments and the operations.")
  long seed = System.nanoTime();

  @Option(
      names = "--min-uptime-ms",
      description = "Shortest feeding time before a kill. Default: ${DEFAULT-VALUE}.")
  long minUptimeMs = 2000;

  @Option(
      names = "--max-uptime-ms",
      description = "Longest feeding time before a kill. Default: ${DEFAULT-VALUE}.")
  long maxUptimeMs = 8000;

  @Option(names = "--data-dir", description = "Fresh data directory. Default: a new temp dir.")
  Path dataDir;

  @Option(names = "--heap", description = "The server's -Xmx. Default: ${DEFAULT-VALUE}.")
  String heap = "1g";

  @Option(
      names = "--quantization",
      description =
          "The server's vectors (serve --quantization): none or int8. The check compares every"
              + " float component either way. Default: ${DEFAULT-VALUE}.")
  String quantization = "none";

  @Option(
      names = "--power-loss",
      description =
          "Cut the power instead of SIGKILL: the server runs on a simulated disk that forgets"
              + " unforced writes (dropped, the last one torn, or one page skipped), and each"
              + " restart opens what the cut left.")
  boolean powerLoss;

  @Override
  public Integer call() throws Exception {
    for (String s : store.split(",", -1)) {
      if (!s.equals("mutable") && !s.equals("segmented")) {
        throw new IllegalArgumentException(
            "--store " + store + ": [" + s + "] is neither mutable nor segmented");
      }
    }
    if (minUptimeMs < 1 || maxUptimeMs < minUptimeMs) {
      throw new IllegalArgumentException(
          "--min-uptime-ms " + minUptimeMs + " must be ≥ 1 and ≤ --max-uptime-ms " + maxUptimeMs);
    }
    Path dir = dataDir != null ? dataDir : Files.createTempDirectory("searchlab-crashtest-");
    if (Files.isDirectory(dir)) {
      try (var files = Files.list(dir)) {
        if (files.findAny().isPresent()) {
          throw new IllegalArgumentException(
              "--data-dir " + dir + " is not empty; give a fresh one");
        }
      }
    }
    VectorQuantization q = VectorQuantization.parse(quantization);
    System.out.println(
        "crashtest: store "
            + store
            + (q == VectorQuantization.NONE ? "" : ", " + q.flag() + " vectors")
            + (powerLoss ? ", power loss" : "")
            + ", seed "
            + seed
            + ", data "
            + dir);
    CrashTest.Summary s =
        new CrashTest(
                new CrashTest.Settings(
                    store,
                    cycles,
                    threads,
                    ids,
                    dims,
                    seed,
                    Duration.ofMillis(minUptimeMs),
                    Duration.ofMillis(maxUptimeMs),
                    dir,
                    heap,
                    q,
                    powerLoss),
                System.out)
            .run();
    return s.passed() ? 0 : 1;
  }
}
