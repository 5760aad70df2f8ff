package org.searchlab.bench.data;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Finds apt's package lists and English translations for the Debian source, fetching them once with
 * {@code apt-get -o Acquire::Languages=en update} when they are missing, and keeping a copy in the
 * dataset cache: a later plain {@code apt-get update} deletes the translations from apt's
 * directory. Not thread-safe (it copies files).
 */
final class DebianLists {
  static final Path APT_LISTS = Path.of("/var/lib/apt/lists");

  /** The files to read. */
  record Lists(List<Path> packages, List<Path> translations) {}

  private DebianLists() {}

  /**
   * The lists to read: the cached copies in {@code cacheDir/debian-lists} if there are both kinds,
   * else apt's (fetched if the translations are missing), copied into the cache first.
   */
  static Lists locate(Path cacheDir, PrintStream log) throws IOException {
    Path copies = cacheDir.resolve("debian-lists");
    Lists cached = scan(copies);
    if (!cached.packages().isEmpty() && !cached.translations().isEmpty()) {
      log.println("debian: using the cached lists in " + copies);
      return cached;
    }
    Lists apt = scan(APT_LISTS);
    if (apt.packages().isEmpty() || apt.translations().isEmpty()) {
      log.println(
          "debian: no English translations in "
              + APT_LISTS
              + "; running apt-get -o Acquire::Languages=en update");
      runAptUpdate(log);
      apt = scan(APT_LISTS);
      if (apt.packages().isEmpty() || apt.translations().isEmpty()) {
        throw new IOException(
            "no Packages and Translation-en lists in "
                + APT_LISTS
                + " even after apt-get update; pass --packages and --translations");
      }
    }
    Files.createDirectories(copies);
    List<Path> packages = new ArrayList<>();
    List<Path> translations = new ArrayList<>();
    for (Path p : apt.packages()) {
      packages.add(copy(p, copies));
    }
    for (Path t : apt.translations()) {
      translations.add(copy(t, copies));
    }
    log.println(
        "debian: copied " + (packages.size() + translations.size()) + " lists to " + copies);
    return new Lists(packages, translations);
  }

  private static Path copy(Path file, Path dir) throws IOException {
    Path target = dir.resolve(file.getFileName());
    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
    return target;
  }

  static Lists scan(Path dir) throws IOException {
    List<Path> packages = new ArrayList<>();
    List<Path> translations = new ArrayList<>();
    if (Files.isDirectory(dir)) {
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.sorted().toList()) {
          String name = f.getFileName().toString();
          if (!Files.isRegularFile(f)) {
            continue;
          }
          if (name.contains("_binary-") && name.contains("_Packages")) {
            packages.add(f);
          } else if (name.contains("_i18n_Translation-en")) {
            translations.add(f);
          }
        }
      }
    }
    return new Lists(packages, translations);
  }

  private static void runAptUpdate(PrintStream log) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder("apt-get", "-o", "Acquire::Languages=en", "update")
            .redirectErrorStream(true);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new IOException("cannot run apt-get (" + e.getMessage() + "); pass --packages", e);
    }
    try (var in = p.getInputStream()) {
      in.transferTo(log);
      if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IOException(
            "apt-get update failed (needs root and network); pass --packages and --translations");
      }
    } catch (InterruptedException e) {
      p.destroy();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running apt-get update", e);
    }
  }
}
