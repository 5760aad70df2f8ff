package org.searchlab.bench.data;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.searchlab.server.embed.MiniLmEmbedder;

/**
 * The data the {@code standard} experiment profile uses when no {@code --dataset} is named:
 * Debian's catalogue, built once into {@code <home>/data/debian} (embedding cache and list copies
 * in {@code <home>/data/cache}) and reused by later runs; and, for the profiles that need more
 * documents than Debian has ({@code full}, {@code scale}), Debian grown by {@link TangentSteps} to
 * the size needed, built once into {@code <home>/data/debian-<size>} (issue 68). Stateless.
 */
public final class StandardData {
  private StandardData() {}

  /**
   * What was found.
   *
   * @param dataset the dataset directory, or {@code null} when the caller should use synthetic data
   * @param reason one sentence for the log and the report: where the data came from, or why the
   *     Debian corpus is not used
   */
  public record Choice(Path dataset, String reason) {}

  /** Queries of a grown corpus come from its first this many documents, shared by every size. */
  public static final int GROWN_QUERY_POOL = 100_000;

  /** The directory the standard profile's Debian corpus lives in. */
  public static Path debianDirectory(Path home) {
    return home.resolve("data").resolve("debian");
  }

  /**
   * The Debian corpus under {@code home}: the cached copy when one is there, else a fresh build
   * (about 20 minutes on 2 cores: apt's lists, then all-MiniLM-L6-v2 on every core). A build that
   * cannot run (no lists and no way to fetch them, no model) gives a {@code null} dataset and the
   * reason; it never throws.
   */
  public static Choice debian(Path home, PrintStream log) {
    Path dir = debianDirectory(home);
    Path cache = home.resolve("data").resolve("cache");
    if (Files.exists(dir.resolve(Dataset.INFO_FILE))) {
      try (Dataset ds = Dataset.open(dir)) {
        if ("debian".equals(ds.info().source())) {
          return new Choice(dir, "the Debian corpus cached in " + dir);
        }
        log.printf("experiment: %s holds a %s dataset; rebuilding it%n", dir, ds.info().source());
      } catch (IOException | RuntimeException e) {
        log.printf("experiment: cannot read %s (%s); rebuilding it%n", dir, e.getMessage());
      }
    }
    log.printf(
        "experiment: building the Debian corpus into %s, once (about 20 minutes on 2 cores)%n",
        dir);
    int cores = Runtime.getRuntime().availableProcessors();
    DatasetBuilds.Common common =
        new DatasetBuilds.Common(
            dir,
            cache,
            10_000,
            42,
            cores,
            () -> MiniLmEmbedder.create(cores),
            MiniLmEmbedder.MODEL,
            MiniLmEmbedder.DIMENSION,
            log);
    try {
      DatasetBuilds.debian(common, List.of(), List.of(), 0);
      return new Choice(dir, "the Debian corpus, built by this run into " + dir);
    } catch (IOException | RuntimeException | LinkageError e) {
      String why = e.getMessage() != null ? e.getMessage() : e.toString();
      log.printf("experiment: the Debian corpus cannot be built: %s%n", why);
      return new Choice(null, "synthetic data: the Debian corpus could not be built (" + why + ")");
    }
  }

  /**
   * Data for a run that needs {@code n} documents: the Debian corpus ({@link #debian}) when it
   * holds them, else Debian grown to {@code n} ({@link #grown}); a {@code null} dataset and the
   * reason when either cannot be built.
   */
  public static Choice forSize(Path home, int n, PrintStream log) {
    Choice debian = debian(home, log);
    if (debian.dataset() == null) {
      return debian;
    }
    try (Dataset ds = Dataset.open(debian.dataset())) {
      if (ds.size() >= n) {
        return debian;
      }
    } catch (IOException | RuntimeException e) {
      return new Choice(null, "synthetic data: " + debian.dataset() + " is unreadable (" + e + ")");
    }
    Path dir = home.resolve("data").resolve(grownName(n));
    int cores = Runtime.getRuntime().availableProcessors();
    return grown(debian.dataset(), dir, home.resolve("data").resolve("cache"), n, cores, log);
  }

  /**
   * The default setting, with {@code K} cut to the base's other documents when the base is smaller
   * than {@code K + 1} (only small test corpora are).
   */
  static TangentSteps.Params settingFor(int baseSize) {
    TangentSteps.Params d = TangentSteps.Params.DEFAULT;
    int k = Math.max(1, Math.min(d.neighbours(), baseSize - 1));
    return k == d.neighbours()
        ? d
        : new TangentSteps.Params(
            k, d.scale(), d.growth(), d.jitter(), Math.min(k, d.textParents()));
  }

  /** {@code debian-1m} for a million documents, else {@code debian-<n>}. */
  static String grownName(int n) {
    return n == 1_000_000 ? "debian-1m" : "debian-" + n;
  }

  /**
   * {@code base} grown to {@code n} documents by {@link TangentSteps.Params#DEFAULT} ({@link
   * #settingFor}) into {@code dir}, queries drawn from the first {@value #GROWN_QUERY_POOL}
   * documents: the copy there when it was built from the same generator setting with at least
   * {@code n} documents, else a fresh build (timed in the log; the base's neighbours are cached in
   * {@code cache}). A build that fails gives a {@code null} dataset and the reason; it never
   * throws.
   */
  static Choice grown(Path base, Path dir, Path cache, int n, int threads, PrintStream log) {
    TangentSteps.Params params;
    try (Dataset b = Dataset.open(base)) {
      params = settingFor(b.size());
    } catch (IOException | RuntimeException e) {
      String why = e.getMessage() != null ? e.getMessage() : e.toString();
      log.printf("experiment: the grown corpus cannot be built: %s%n", why);
      return new Choice(null, "synthetic data: Debian could not be grown (" + why + ")");
    }
    String model = "+" + params;
    if (Files.exists(dir.resolve(Dataset.INFO_FILE))) {
      try (Dataset ds = Dataset.open(dir)) {
        if ("debian-mixes".equals(ds.info().source())
            && ds.info().model().endsWith(model)
            && ds.size() >= n) {
          realism(base, dir, threads, log);
          return new Choice(dir, "Debian grown to " + ds.size() + " documents, cached in " + dir);
        }
        log.printf(
            "experiment: %s holds %s (%s, %,d documents); rebuilding it%n",
            dir, ds.info().source(), ds.info().model(), ds.size());
      } catch (IOException | RuntimeException e) {
        log.printf("experiment: cannot read %s (%s); rebuilding it%n", dir, e.getMessage());
      }
    }
    log.printf(
        "experiment: growing %s to %,d documents into %s, once (%s)%n", base, n, dir, params);
    long start = System.nanoTime();
    try (Dataset b = Dataset.open(base)) {
      // The realism table of a corpus this build replaces is not this corpus's.
      Files.deleteIfExists(dir.resolve(RealismReport.MARKDOWN));
      Files.deleteIfExists(dir.resolve(RealismReport.JSON));
      DatasetBuilds.Common common =
          new DatasetBuilds.Common(
              dir,
              cache,
              10_000,
              42,
              threads,
              () -> {
                throw new IllegalStateException("growing a corpus embeds nothing");
              },
              b.info().model(),
              b.info().dimension(),
              log);
      DatasetBuilds.mixes(common, n, base, params, GROWN_QUERY_POOL);
      log.printf(
          "experiment: grown corpus built in %.1f s (corpus build, outside the run's timings)%n",
          (System.nanoTime() - start) / 1e9);
      realism(base, dir, threads, log);
      return new Choice(dir, "Debian grown to " + n + " documents, built by this run into " + dir);
    } catch (IOException | RuntimeException e) {
      String why = e.getMessage() != null ? e.getMessage() : e.toString();
      log.printf("experiment: the grown corpus cannot be built: %s%n", why);
      return new Choice(null, "synthetic data: Debian could not be grown (" + why + ")");
    }
  }

  /** Each corpus's first this many benchmark queries are sampled for the realism table. */
  static final int REALISM_QUERIES = 1_000;

  /**
   * Writes the realism table of {@code base} and the corpus grown from it into {@code dir} ({@link
   * RealismReport}: neighbour distances of each corpus's first {@value #REALISM_QUERIES} queries,
   * posting-list lengths) unless it is there already: once per corpus, timed in the log as part of
   * the corpus build. The experiment copies it into the run's report. A failure is logged and
   * leaves the corpus usable; that run's report then has no realism section.
   */
  static void realism(Path base, Path dir, int threads, PrintStream log) {
    if (Files.exists(dir.resolve(RealismReport.MARKDOWN))) {
      return;
    }
    long start = System.nanoTime();
    try (Dataset b = Dataset.open(base);
        Dataset g = Dataset.open(dir)) {
      List<RealismReport.Corpus> corpora =
          List.of(
              RealismReport.of(
                  b, "real (" + base.getFileName() + ")", REALISM_QUERIES, threads, log),
              RealismReport.of(
                  g, "grown (" + dir.getFileName() + ")", REALISM_QUERIES, threads, log));
      RealismReport.write(
          dir,
          corpora,
          String.format(
              java.util.Locale.ROOT,
              "The real corpus (%,d documents) beside the corpus grown from it (%,d documents, %s);"
                  + " each corpus's own first %,d benchmark queries, which are documents of that"
                  + " corpus.",
              b.size(),
              g.size(),
              g.info().model(),
              REALISM_QUERIES));
      log.printf(
          "experiment: realism table of %s written in %.1f s (corpus build)%n",
          dir, (System.nanoTime() - start) / 1e9);
    } catch (IOException | RuntimeException e) {
      log.printf("experiment: no realism table for %s: %s%n", dir, e);
    }
  }
}
