package org.searchlab.testing.disk;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.searchlab.core.Document;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.testing.PossibleDocuments;

/**
 * Power-loss cycles against one store (issue 70, design note §4.4). Each cycle opens the store on a
 * fresh {@link ForgetfulFileSystem} over the previous cut's image, checks every id against its
 * {@link PossibleDocuments}, then lets {@link PowerLossFeed writers} put, partially update and
 * delete the ids through the store's API while a flusher thread takes snapshots or Lucene commits,
 * and cuts the power at a random moment. The last cycle only checks.
 *
 * <p>The moment of a cut is one of three, chosen by the seed: after a random number of acknowledged
 * operations; a random fraction of a flush's duration after a flush starts, so that snapshots and
 * commits are inside the cut; or right after a write that leaves a random number of bytes unforced,
 * so that tears and skipped pages act on pending data. The kind of cut: {@code DROP_UNFORCED} 50 %,
 * {@code TEAR_LAST} 30 % (at 512 or 4,096 bytes, zero-filled or short), {@code SKIP_ONE_DATA} 20 %.
 *
 * <p>The checks, on each reopen: every id holds one of its possible documents (0 lost, 0
 * resurrected, 0 torn), and a match-all search after a refresh counts the ids that {@code get}
 * finds. A cut whose check fails leaves a copy of its image under {@code power.failures} (default
 * {@code target/power-failures}) for a directed test. {@value #CUTS_PROPERTY} sets the number of
 * cuts of the tests that use {@link #cuts}, and {@value #REPORT_PROPERTY} names a file each run
 * appends its summary line to ({@code qa/power/run-cycles.sh} sums them).
 *
 * <p>The seed fixes every choice the harness makes; the threads' interleaving, and so the exact
 * moment of a cut, is the scheduler's. Not thread-safe: one {@link #run()} per instance.
 */
public final class PowerLossCycles {
  /** Opens (or creates) the store under test in {@code dir}, a path of a forgetful file system. */
  @FunctionalInterface
  public interface Opener {
    SearchIndex open(Path dir) throws IOException;
  }

  /**
   * What to run.
   *
   * @param store the store's name, for messages
   * @param cuts power cuts, 1 or more; each is followed by a reopen and a check
   * @param writers writer threads, each owning the ids {@code ≡ t (mod writers)}
   * @param ids documents written, at least {@code writers}
   * @param dimension the embedding's dimension
   * @param seed every random choice of the harness derives from it
   * @param workDir an empty directory of the default file system for the disks' images
   * @param opener opens the store
   */
  public record Settings(
      String store,
      int cuts,
      int writers,
      int ids,
      int dimension,
      long seed,
      Path workDir,
      Opener opener) {
    public Settings {
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(workDir, "workDir");
      Objects.requireNonNull(opener, "opener");
      if (cuts < 1 || writers < 1 || ids < writers || dimension < 2) {
        throw new IllegalArgumentException(
            "need cuts ≥ 1, writers ≥ 1, ids ≥ writers, dimension ≥ 2: " + this);
      }
    }
  }

  /**
   * What the cycles found.
   *
   * @param acknowledged operations the store acknowledged, over all cycles
   * @param checked id checks after reopens
   * @param lost ids that lost an acknowledged write
   * @param resurrected ids whose deleted document came back
   * @param torn ids holding a document no operation wrote whole
   * @param searchMismatches reopens whose match-all count differed from the ids {@code get} found
   * @param flushesCut flushes (snapshots, commits) the cut interrupted
   * @param flushes flushes that completed
   * @param kinds cuts by kind
   */
  public record Summary(
      String store,
      int cuts,
      long acknowledged,
      long checked,
      long lost,
      long resurrected,
      long torn,
      long searchMismatches,
      int flushesCut,
      long flushes,
      TreeMap<String, Integer> kinds) {
    /** Every kind of violation together. */
    public long violations() {
      return lost + resurrected + torn + searchMismatches;
    }

    /** One line with every figure, for logs and the acceptance command. */
    @Override
    public String toString() {
      return String.format(
          "store=%s cuts=%d acknowledged=%d checked=%d lost=%d resurrected=%d torn=%d"
              + " search_mismatches=%d flushes=%d flushes_cut=%d kinds=%s",
          store,
          cuts,
          acknowledged,
          checked,
          lost,
          resurrected,
          torn,
          searchMismatches,
          flushes,
          flushesCut,
          kinds);
    }
  }

  /** The system property that sets the number of cuts of a test ({@link #cuts}). */
  public static final String CUTS_PROPERTY = "power.cuts";

  /** The system property naming a file each run appends its summary line to. */
  public static final String REPORT_PROPERTY = "power.report";

  /** How long a thread may take to notice a dead disk before the run calls it hung. */
  private static final long HANG_SECONDS = 60;

  private final Settings settings;
  private final PrintStream out;
  private final PossibleDocuments possible;
  private long acknowledged;
  private long checked;
  private final long[] verdicts = new long[PossibleDocuments.Verdict.values().length];
  private long searchMismatches;
  private int flushesCut;
  private long flushes;
  private final TreeMap<String, Integer> kinds = new TreeMap<>();
  // The last cut and its image: named in a violation's message, kept when its check fails.
  private PowerCut lastCut;
  private CrashImage lastImage;

  public PowerLossCycles(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
    this.possible = new PossibleDocuments(settings.ids());
  }

  /** Runs every cycle; prints a line per cut and returns the figures. */
  public Summary run() throws Exception {
    SplittableRandom random = new SplittableRandom(settings.seed());
    Path live = Files.createDirectories(settings.workDir().resolve("disk-0"));
    for (int cycle = 0; ; cycle++) {
      ForgetfulFileSystem fs = ForgetfulFileSystem.over(live, DiskModel.Options.DEFAULT);
      SearchIndex store = open(fs, cycle);
      try {
        check(store, cycle);
      } catch (IOException | RuntimeException | Error e) {
        closeQuietly(store);
        throw e;
      }
      if (cycle == settings.cuts()) {
        store.close();
        break;
      }
      PowerCut cut = chooseCut(random);
      Moment moment = Moment.values()[random.nextInt(Moment.values().length)];
      PowerLossFeed feed =
          new PowerLossFeed(store, fs, possible, settings.writers(), settings.dimension());
      CrashImage image;
      try {
        image = feed.runUntilCut(cut, moment, random.split());
      } finally {
        abandon(store);
      }
      acknowledged += feed.acknowledged();
      flushes += feed.flushes();
      flushesCut += feed.flushCut() ? 1 : 0;
      kinds.merge(cut.kind().name(), 1, Integer::sum);
      out.printf(
          "[power] %s cut %d/%d %s at %s: %d acknowledged, %d flushes%s%n",
          settings.store(),
          cycle + 1,
          settings.cuts(),
          cut,
          moment,
          feed.acknowledged(),
          feed.flushes(),
          feed.flushCut() ? ", one interrupted by the cut" : "");
      Path next = settings.workDir().resolve("disk-" + (cycle + 1));
      image.writeTo(next);
      deleteTree(live);
      live = next;
      lastImage = image;
      lastCut = cut;
    }
    Summary s =
        new Summary(
            settings.store(),
            settings.cuts(),
            acknowledged,
            checked,
            verdicts[PossibleDocuments.Verdict.LOST.ordinal()],
            verdicts[PossibleDocuments.Verdict.RESURRECTED.ordinal()],
            verdicts[PossibleDocuments.Verdict.TORN.ordinal()],
            searchMismatches,
            flushesCut,
            flushes,
            kinds);
    String line = "[power-cycles] seed=" + settings.seed() + " " + s;
    out.println(line);
    String report = System.getProperty(REPORT_PROPERTY);
    if (report != null) {
      Files.writeString(
          Path.of(report),
          line + System.lineSeparator(),
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
    return s;
  }

  /**
   * The number of cuts a test runs: {@value #CUTS_PROPERTY} if set (the acceptance command sets
   * 20), else {@code ciDefault}.
   */
  public static int cuts(int ciDefault) {
    return Integer.getInteger(CUTS_PROPERTY, ciDefault);
  }

  /** Where a cut lands. */
  enum Moment {
    /** After a random number of acknowledged operations, at a random instant. */
    AFTER_ACKS,
    /** A random fraction of a flush's duration after a flush starts. */
    IN_FLUSH,
    /** Right after a write that leaves a random number of bytes unforced. */
    UNFORCED
  }

  /**
   * A cut of the kinds power-loss cycles use: DROP_UNFORCED 50 %, TEAR_LAST 30 % (512 or 4,096 B,
   * zeros or short), SKIP_ONE_DATA 20 %.
   */
  public static PowerCut chooseCut(SplittableRandom random) {
    int p = random.nextInt(10);
    if (p < 5) {
      return PowerCut.dropUnforced();
    }
    if (p < 8) {
      return PowerCut.tearLast(
          random.nextBoolean() ? 512 : 4096,
          random.nextBoolean() ? PowerCut.TearFill.ZEROS : PowerCut.TearFill.SHORT);
    }
    return PowerCut.skipOneData();
  }

  private long violations() {
    long n = searchMismatches;
    for (PossibleDocuments.Verdict v : PossibleDocuments.Verdict.values()) {
      if (v != PossibleDocuments.Verdict.OK) {
        n += verdicts[v.ordinal()];
      }
    }
    return n;
  }

  /** Opens the store on {@code fs}; one that does not open after a cut keeps the cut's image. */
  private SearchIndex open(ForgetfulFileSystem fs, int cycle) throws IOException {
    try {
      return settings.opener().open(fs.resolve("store"));
    } catch (IOException | RuntimeException e) {
      if (lastImage == null) {
        throw e;
      }
      throw new AssertionError(
          settings.store()
              + " does not open after cut "
              + cycle
              + " ("
              + lastCut
              + "); its image is kept in "
              + keep(cycle),
          e);
    }
  }

  /** Writes the last cut's image where a directed test can open it; returns the directory. */
  private Path keep(int cycle) throws IOException {
    Path keep =
        Path.of(System.getProperty("power.failures", "target/power-failures"))
            .resolve(settings.store() + "-seed" + settings.seed() + "-cut" + cycle)
            .toAbsolutePath();
    deleteTree(keep);
    lastImage.writeTo(keep);
    return keep;
  }

  /** Reads every id back, judges it, resolves it; then compares the match-all count. */
  private void check(SearchIndex store, int cycle) throws IOException {
    long before = violations();
    long present = 0;
    for (int id = 0; id < settings.ids(); id++) {
      Document actual = store.get(PowerLossFeed.name(id)).orElse(null);
      PossibleDocuments.Verdict v = possible.verdict(id, actual);
      verdicts[v.ordinal()]++;
      if (v != PossibleDocuments.Verdict.OK && violations() - before <= 20) {
        out.printf(
            "VIOLATION %s: %s after cut %d (%s) is %s; possible %s%n",
            v,
            PowerLossFeed.name(id),
            cycle,
            lastCut,
            PossibleDocuments.describe(actual),
            possible.describe(id));
      }
      possible.resolve(id, actual);
      present += actual == null ? 0 : 1;
      checked++;
    }
    store.refresh();
    long searchable = store.search(SearchRequest.builder().hits(0).build()).total().value();
    if (searchable != present) {
      searchMismatches++;
      out.printf(
          "VIOLATION a match-all search after cut %d counts %d documents, get finds %d%n",
          cycle, searchable, present);
    }
    if (violations() > before && lastImage != null) {
      out.println("the image of that cut is kept in " + keep(cycle));
    }
  }

  /**
   * Closes a store whose disk died, on another thread: closing only releases files and threads, and
   * must end; a store that cannot close after a power cut is a hang.
   */
  private static void abandon(SearchIndex store) throws InterruptedException {
    Thread closer = new Thread(() -> closeQuietly(store), "power-loss-close");
    closer.setDaemon(true);
    closer.start();
    closer.join(TimeUnit.SECONDS.toMillis(HANG_SECONDS));
    if (closer.isAlive()) {
      throw new AssertionError(
          "closing the store after a power cut hung for " + HANG_SECONDS + " s");
    }
  }

  private static void closeQuietly(SearchIndex store) {
    try {
      store.close();
    } catch (IOException | RuntimeException | AssertionError expected) {
      // The disk is gone: closing only releases. (Lucene asserts that a directory's fsync does not
      // fail on Linux, and it fails after a cut.)
    }
  }

  /** Parks the thread for about {@code nanos}. */
  static void pause(long nanos) {
    if (nanos > 0) {
      LockSupport.parkNanos(nanos);
    }
  }

  /** Waits until {@code done} or {@code seconds} passed; whether {@code done} holds. */
  static boolean await(BooleanSupplier done, long seconds) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      LockSupport.parkNanos(100_000);
    }
    return true;
  }

  /** The image an armed cut leaves, or a cut now if nothing fired it within a second. */
  static CrashImage armedOrNow(
      CompletableFuture<CrashImage> armed,
      ForgetfulFileSystem fs,
      PowerCut cut,
      SplittableRandom random)
      throws Exception {
    try {
      return armed.get(1, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      try {
        return fs.powerCut(cut, random);
      } catch (IOException cutMeanwhile) {
        return armed.get();
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    List<Path> all;
    try (Stream<Path> walk = Files.walk(dir)) {
      all = new ArrayList<>(walk.toList());
    }
    all.sort(Comparator.reverseOrder());
    for (Path p : all) {
      Files.delete(p);
    }
  }
}
