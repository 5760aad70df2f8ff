package org.searchlab.bench.history;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.searchlab.testing.history.LinearizabilityChecker;
import org.searchlab.testing.history.Op;
import org.searchlab.testing.history.Verdict;

/**
 * {@code searchlab history}: records {@code histories} histories one after another ({@link
 * HistoryRun}, each on a fresh data directory), checks each ({@link HistoryCheck}), prints a line
 * per history and a summary, and keeps the evidence of any violation: the history file ({@link
 * HistoryFile}), the data directory and the server log.
 *
 * <p>History {@code h} runs with seed {@code seed + h·0x9E3779B97F4A7C15}, printed on its line;
 * {@code --histories 1 --seed <that>} runs the same calls and kill moments again (the interleaving
 * of the clients is the machine's, not the seed's). Not thread-safe: one {@link #run()} per
 * instance.
 */
public final class HistorySuite {
  /**
   * The settings of a suite.
   *
   * @param run the settings of every history; its seed is history 0's, its data directory is
   *     replaced by one per history under {@code workDir}
   * @param histories how many, at least 1
   * @param workDir where the data directories, server logs and kept history files go
   * @param keepAll keep every history file (by default only those with a violation)
   * @param budget the checker's budget per document
   */
  public record Settings(
      HistoryRun.Settings run,
      int histories,
      Path workDir,
      boolean keepAll,
      LinearizabilityChecker.Budget budget) {
    public Settings {
      Objects.requireNonNull(run, "run");
      Objects.requireNonNull(workDir, "workDir");
      Objects.requireNonNull(budget, "budget");
      if (histories < 1) {
        throw new IllegalArgumentException("histories [" + histories + "] must be at least 1");
      }
    }
  }

  /** The totals of a suite (or of one checked file). */
  public static final class Summary {
    int histories;
    long calls;
    long ok;
    long indeterminate;
    long failed;
    final List<Long> restartMillis = new ArrayList<>();
    int documents;
    int linearizable;
    int illegal;
    int unknown;
    int lost;
    int dirty;
    long unexpected;
    int errors;
    int searches;
    long searchedDocuments;
    int stale;
    int phantom;
    long recordNanos;
    long checkNanos;
    final List<Path> saved = new ArrayList<>();

    /** Whether nothing was violated and every history ran to its end. */
    public boolean passed() {
      return illegal == 0 && lost == 0 && dirty == 0 && stale == 0 && phantom == 0 && errors == 0;
    }

    /** How many documents the checker could not decide within its budget. */
    public int unknown() {
      return unknown;
    }

    /** How many histories were checked. */
    public int histories() {
      return histories;
    }

    /** The history files kept. */
    public List<Path> saved() {
      return List.copyOf(saved);
    }

    void add(RecordedHistory h, HistoryCheck c) {
      histories++;
      calls += h.ops().size();
      ok += h.count(Op.Outcome.OK);
      indeterminate += h.count(Op.Outcome.INDETERMINATE);
      failed += h.count(Op.Outcome.FAILED);
      h.kills().forEach(k -> restartMillis.add(k.restartMillis()));
      documents += c.verdicts().size();
      linearizable += c.count(Verdict.Result.OK);
      illegal += c.count(Verdict.Result.ILLEGAL);
      unknown += c.count(Verdict.Result.UNKNOWN);
      lost += c.anomalies().lost().size();
      dirty += c.anomalies().dirtyReads().size();
      unexpected += h.unexpected();
      searches += c.refresh().searches();
      searchedDocuments += c.refresh().documentsChecked();
      stale += c.refresh().stale().size();
      phantom += c.refresh().phantom().size();
      checkNanos += c.checkNanos();
    }

    /** The summary line. */
    public String line(String store) {
      List<Long> sorted = new ArrayList<>(restartMillis);
      sorted.sort(null);
      return String.format(
          "summary: store %s, %d histories, %d calls (%d ok, %d indeterminate, %d failed), %d"
              + " kills, restart ms min %d median %d max %d; documents %d: %d linearizable, %d"
              + " illegal, %d unknown; %d lost, %d dirty reads; %d unexpected answers, %d errors;"
              + " refresh visibility (checked apart): %d searches, %d documents, %d stale, %d"
              + " phantom; record %.1f s, check %.1f s",
          store,
          histories,
          calls,
          ok,
          indeterminate,
          failed,
          sorted.size(),
          sorted.isEmpty() ? 0 : sorted.get(0),
          sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2),
          sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1),
          documents,
          linearizable,
          illegal,
          unknown,
          lost,
          dirty,
          unexpected,
          errors,
          searches,
          searchedDocuments,
          stale,
          phantom,
          recordNanos / 1e9,
          checkNanos / 1e9);
    }
  }

  private final Settings settings;
  private final PrintStream out;

  public HistorySuite(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs every history and prints the summary line last. */
  public Summary run() throws IOException, InterruptedException {
    Files.createDirectories(settings.workDir());
    Summary sum = new Summary();
    HistoryRun.Settings base = settings.run();
    for (int h = 0; h < settings.histories(); h++) {
      long seed = base.seed() + h * 0x9E3779B97F4A7C15L;
      String name = "h" + h;
      HistoryRun.Settings s =
          new HistoryRun.Settings(
              base.store(),
              base.clients(),
              base.ops(),
              base.ids(),
              base.kills(),
              base.finalKill(),
              base.refreshRate(),
              seed,
              settings.workDir().resolve(name),
              base.heap());
      long t0 = System.nanoTime();
      RecordedHistory recorded;
      try {
        recorded = new HistoryRun(s).run();
      } catch (IOException | RuntimeException e) {
        sum.errors++;
        out.printf(
            "history %d: seed %d, ERROR (data directory and server log kept in %s): %s%n",
            h, seed, settings.workDir(), e);
        continue;
      }
      sum.recordNanos += System.nanoTime() - t0;
      HistoryCheck check = HistoryCheck.of(recorded, settings.budget());
      sum.add(recorded, check);
      boolean keep = check.violated() || settings.keepAll();
      out.println(line(h, recorded, check, (System.nanoTime() - t0) / 1e9));
      if (check.violated()) {
        out.print(check.describeViolations());
      }
      if (recorded.unexpected() > 0) {
        recorded.unexpectedSamples().forEach(u -> out.println("  unexpected answer: " + u));
      }
      if (keep) {
        Path file = settings.workDir().resolve("history-" + h + ".jsonl");
        HistoryFile.write(file, recorded);
        sum.saved.add(file);
        out.println("  history saved: " + file);
      }
      if (!check.violated()) {
        deleteRun(name);
      }
    }
    out.println(sum.line(base.store()));
    return sum;
  }

  /** Checks one saved history file and prints its line and, on a violation, the evidence. */
  public static Summary checkFile(Path file, LinearizabilityChecker.Budget budget, PrintStream out)
      throws IOException {
    RecordedHistory h = HistoryFile.read(file);
    HistoryCheck check = HistoryCheck.of(h, budget);
    Summary sum = new Summary();
    sum.add(h, check);
    out.println(line(0, h, check, check.checkNanos() / 1e9));
    if (check.violated()) {
      out.print(check.describeViolations());
    }
    out.println(sum.line(h.store()));
    return sum;
  }

  private static String line(int h, RecordedHistory r, HistoryCheck c, double seconds) {
    return String.format(
        "history %d: seed %d, %d calls (%d indeterminate), %d kills, %d searches; documents %d"
            + " linearizable, %d illegal, %d unknown; %d lost, %d dirty reads, %d stale, %d"
            + " phantom; %.1f s (check %.2f s)",
        h,
        r.seed(),
        r.ops().size(),
        r.count(Op.Outcome.INDETERMINATE),
        r.kills().size(),
        r.searches().size(),
        c.count(Verdict.Result.OK),
        c.count(Verdict.Result.ILLEGAL),
        c.count(Verdict.Result.UNKNOWN),
        c.anomalies().lost().size(),
        c.anomalies().dirtyReads().size(),
        c.refresh().stale().size(),
        c.refresh().phantom().size(),
        seconds,
        c.checkNanos() / 1e9);
  }

  /** Deletes a passed history's data directory, server log and GC logs. */
  private void deleteRun(String name) throws IOException {
    try (Stream<Path> files = Files.list(settings.workDir())) {
      for (Path p : files.toList()) {
        String f = p.getFileName().toString();
        if (f.equals(name) || f.startsWith(name + "-server")) {
          deleteTree(p);
        }
      }
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(p)) {
      for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(q);
      }
    }
  }
}
