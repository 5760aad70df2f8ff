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
 * in {@code <home>/data/cache}) and reused by later runs. Stateless.
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
}
