package org.searchlab.testing.crash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.searchlab.testing.disk.CrashState;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.FsTrace;
import org.searchlab.testing.disk.TraceReplayer;

/**
 * Recovers the crash states of a recorded trace and checks each one (design note of issue 70, §4.2
 * and §4.3). States whose images are equal (same {@link TraceReplayer#fingerprint}) are recovered
 * once: consecutive prefixes that differ only in markers, or in files nothing reads, leave the same
 * image. Every state of a recovered image is then checked on its own, since states of one image can
 * differ in what was acknowledged.
 *
 * <p>Two walks of the trace: the first images every state and groups them by digest; the second
 * rebuilds one image per chosen digest (all, or a seeded sample), writes it into a scratch
 * directory ({@code /dev/shm} when there is one) and hands it to the recovery.
 *
 * <p>Thread-safe: stateless; each call is independent.
 */
public final class CrashExplorer {
  private CrashExplorer() {}

  /**
   * Opens what a crash left and reads it back: the store, the log. An exception is the violation
   * "does not open".
   *
   * @param <R> what was read back, small enough to keep for one image
   */
  @FunctionalInterface
  public interface Recovery<R> {
    /**
     * Recovers the image written at {@code dir} (a directory of the default file system, which the
     * recovery may change); {@code ordinal} counts recovered images from 0, for checks that run on
     * every k-th image only.
     */
    R recover(Path dir, int ordinal) throws Exception;
  }

  /** Judges one state against what its image recovered to. */
  @FunctionalInterface
  public interface Check<R> {
    /** The violation, or null when the state is fine. */
    Violation check(CrashState state, R recovered);
  }

  /** One violated property: its kind ("opens", "state", ...) and what was seen. */
  public record Violation(String kind, String message) {}

  /**
   * What an exploration did.
   *
   * @param states the states listed
   * @param distinctImages how many different images they leave
   * @param recoveredImages how many of those were recovered (all, or the sample)
   * @param checkedStates the states of the recovered images, each checked
   * @param violationsByKind how many checked states violated each property
   * @param firstViolations the first violations, with their states, for the failure message
   * @param imagingNanos the first walk (every state's image and digest)
   * @param recoveryNanos the second walk (images rebuilt, written, recovered and checked)
   * @param savedTrace where the trace was saved for a replay when something failed, else null
   * @param imagingCpuNanos the CPU time the whole process spent in the first walk (every thread),
   *     -1 where the JVM does not tell; unlike wall time it barely depends on what else the machine
   *     runs
   * @param recoveryCpuNanos the same for the second walk, the stores' own threads included
   */
  public record Report(
      int states,
      int distinctImages,
      int recoveredImages,
      long checkedStates,
      Map<String, Long> violationsByKind,
      List<String> firstViolations,
      long imagingNanos,
      long recoveryNanos,
      Path savedTrace,
      long imagingCpuNanos,
      long recoveryCpuNanos) {
    /** How many checked states violated something. */
    public long violations() {
      return violationsByKind.values().stream().mapToLong(Long::longValue).sum();
    }

    /** One line with every figure, for the test's output. */
    public String summary(String name) {
      double ms = (imagingNanos + recoveryNanos) / 1e6;
      return String.format(
          "[crashpoints] %s: %d states, %d distinct images (%.1f states an image), %d recovered,"
              + " %d states checked, %d violations %s; imaging %.0f ms, recovery %.0f ms"
              + " (%.0f checked states/s, %.0f images/s overall); process CPU: imaging %.0f ms,"
              + " recovery %.0f ms (%.1f ms an image)",
          name,
          states,
          distinctImages,
          distinctImages == 0 ? 0.0 : (double) states / distinctImages,
          recoveredImages,
          checkedStates,
          violations(),
          violationsByKind,
          imagingNanos / 1e6,
          recoveryNanos / 1e6,
          checkedStates / (ms / 1e3),
          recoveredImages / (ms / 1e3),
          imagingCpuNanos / 1e6,
          recoveryCpuNanos / 1e6,
          recoveredImages == 0 ? 0.0 : recoveryCpuNanos / 1e6 / recoveredImages);
    }
  }

  /**
   * Explores {@code states} of {@code trace}: groups them by image, recovers {@code maxImages}
   * distinct images at most (drawn by {@code random} when there are more; every one when {@code
   * maxImages} is {@link Integer#MAX_VALUE}) and checks every state of each. When a state fails,
   * the trace is saved to {@code failures/<name>.trace} for a replay.
   *
   * @param scratchFallback where images go when {@code /dev/shm} is not there (a test's temporary
   *     directory)
   */
  public static <R> Report explore(
      String name,
      FsTrace trace,
      DiskModel.Options options,
      List<CrashState> states,
      int maxImages,
      SplittableRandom random,
      Path scratchFallback,
      Path failures,
      Recovery<R> recovery,
      Check<R> check)
      throws IOException {
    return explore(
        name,
        trace,
        options,
        states,
        maxImages,
        0,
        random,
        scratchFallback,
        failures,
        recovery,
        check);
  }

  /**
   * {@link #explore(String, FsTrace, DiskModel.Options, List, int, SplittableRandom, Path, Path,
   * Recovery, Check)}, with a sample that goes on drawing images past {@code maxImages} until their
   * states number {@code minStates} (or every image is drawn). States per image vary a lot between
   * traces (a segmented trace's images hold 10 to 30 states on average, depending on the seed), so
   * a sample of a fixed number of images checks a number of states that varies as much; this one
   * checks at least {@code minStates}. The first {@code maxImages} draws are those the fixed sample
   * makes.
   */
  public static <R> Report explore(
      String name,
      FsTrace trace,
      DiskModel.Options options,
      List<CrashState> states,
      int maxImages,
      long minStates,
      SplittableRandom random,
      Path scratchFallback,
      Path failures,
      Recovery<R> recovery,
      Check<R> check)
      throws IOException {
    long cpu0 = processCpuNanos();
    long t0 = System.nanoTime();
    // Walk 1: every state's digest, states grouped by image in order of their first state.
    Map<String, List<CrashState>> byImage = new LinkedHashMap<>();
    TraceReplayer replayer = new TraceReplayer(trace, options);
    for (CrashState s : sorted(states)) {
      byImage.computeIfAbsent(replayer.fingerprint(s), k -> new ArrayList<>()).add(s);
    }
    List<List<CrashState>> groups = new ArrayList<>(byImage.values());
    if (groups.size() > maxImages) {
      groups = chosen(groups, maxImages, minStates, random);
    }
    long t1 = System.nanoTime();
    long cpu1 = processCpuNanos();
    // Walk 2: one image per chosen group, recovered once, every state of the group checked.
    Map<String, Long> byKind = new TreeMap<>();
    List<String> first = new ArrayList<>();
    long checked = 0;
    Path scratch = scratch(scratchFallback);
    try {
      replayer = new TraceReplayer(trace, options);
      int ordinal = 0;
      for (List<CrashState> group : groups) {
        Path dir = scratch.resolve("image-" + ordinal);
        replayer.image(group.get(0)).writeTo(dir);
        R recovered = null;
        Violation failed = null;
        try {
          recovered = recovery.recover(dir, ordinal);
        } catch (Exception | AssertionError e) {
          failed = new Violation("opens", "recovery failed: " + e);
        }
        ordinal++;
        for (CrashState s : group) {
          Violation v = failed != null ? failed : check.check(s, recovered);
          checked++;
          if (v != null) {
            byKind.merge(v.kind(), 1L, Long::sum);
            if (first.size() < 10) {
              first.add(s + ": " + v.kind() + ": " + v.message());
            }
          }
        }
        deleteTree(dir);
      }
    } finally {
      deleteTree(scratch);
    }
    long t2 = System.nanoTime();
    Path saved = null;
    if (!byKind.isEmpty()) {
      saved = failures.resolve(name + ".trace");
      trace.save(saved);
    }
    return new Report(
        states.size(),
        byImage.size(),
        groups.size(),
        checked,
        byKind,
        first,
        t1 - t0,
        t2 - t1,
        saved,
        cpu0 < 0 ? -1 : cpu1 - cpu0,
        cpu0 < 0 ? -1 : processCpuNanos() - cpu1);
  }

  /** The CPU time of this process so far, or -1 where the JVM does not tell. */
  private static long processCpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : -1;
  }

  private static List<CrashState> sorted(List<CrashState> states) {
    List<CrashState> out = new ArrayList<>(states);
    out.sort(Comparator.comparingInt(CrashState::prefix)); // stable: listing order within one
    return out;
  }

  /**
   * At least {@code n} groups drawn without replacement, and more until they hold {@code minStates}
   * states or none is left, in the order of their first state's prefix.
   */
  private static List<List<CrashState>> chosen(
      List<List<CrashState>> groups, int n, long minStates, SplittableRandom random) {
    List<List<CrashState>> pool = new ArrayList<>(groups);
    long covered = 0;
    int i = 0;
    for (; i < pool.size() && (i < n || covered < minStates); i++) {
      int j = i + random.nextInt(pool.size() - i);
      List<CrashState> x = pool.get(i);
      pool.set(i, pool.get(j));
      pool.set(j, x);
      covered += pool.get(i).size();
    }
    List<List<CrashState>> out = new ArrayList<>(pool.subList(0, i));
    out.sort(Comparator.comparingInt(g -> g.get(0).prefix()));
    return out;
  }

  /** A fresh directory for images: in memory under {@code /dev/shm} if possible. */
  private static Path scratch(Path fallback) throws IOException {
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      return Files.createTempDirectory(shm, "searchlab-crashpoints-");
    }
    Files.createDirectories(fallback);
    return Files.createTempDirectory(fallback, "crashpoints-");
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    List<Path> all;
    try (Stream<Path> walk = Files.walk(root)) {
      all = walk.sorted(Comparator.reverseOrder()).toList();
    }
    for (Path p : all) {
      Files.deleteIfExists(p);
    }
  }
}
