package org.searchlab.testing.crash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.searchlab.core.SearchIndex;
import org.searchlab.testing.disk.CrashState;
import org.searchlab.testing.disk.CrashStates;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.ForgetfulFileSystem;
import org.searchlab.testing.disk.FsTrace;

/**
 * What a store's crash-point test does (design note of issue 70, §4), shared by {@code
 * MutableCrashPointTest} and {@code SegmentedCrashPointTest}: records a {@link CrashWorkload}'s
 * trace on a forgetful disk from the store's creation to its close, explores the trace's crash
 * states with {@link CrashExplorer} and {@link CrashChecks}, prints the summary line with the
 * machine's load, and fails on any violation.
 *
 * <p>Thread-safe: immutable; each call works in its own directories under the test's one.
 */
public final class CrashPoints {
  private final String store;
  private final String storeDir;
  private final CrashChecks.StoreOpener opener;
  private final int dimension;
  private final Path tmp;

  /**
   * Crash points of the store {@code store} (a name for the output) that {@code opener} opens in
   * {@code storeDir} below a disk's root, with vectors of {@code dimension} components; disks,
   * images and scratch go below {@code tmp} (the test's temporary directory).
   */
  public CrashPoints(
      String store, String storeDir, CrashChecks.StoreOpener opener, int dimension, Path tmp) {
    this.store = Objects.requireNonNull(store, "store");
    this.storeDir = Objects.requireNonNull(storeDir, "storeDir");
    this.opener = Objects.requireNonNull(opener, "opener");
    this.dimension = dimension;
    this.tmp = Objects.requireNonNull(tmp, "tmp");
  }

  /** Runs {@code workload} on a fresh store on a forgetful disk and returns the trace. */
  public FsTrace record(CrashWorkload workload, String name) throws IOException {
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk-" + name), DiskModel.Options.DEFAULT);
    FsTrace trace = new FsTrace();
    fs.record(trace);
    try (SearchIndex index = opener.open(fs.resolve(storeDir))) {
      workload.run(index, fs);
    }
    return trace;
  }

  /**
   * Explores the states of {@code trace} under {@code coverage} that {@code which} keeps,
   * recovering at most {@code maxImages} distinct images (a sample drawn from {@code seed} when
   * there are more), prints the summary and asserts that no state violated anything and that every
   * chosen image was recovered.
   */
  public CrashExplorer.Report explore(
      String name,
      CrashWorkload workload,
      FsTrace trace,
      CrashStates.Coverage coverage,
      Predicate<CrashState> which,
      int maxImages,
      long seed)
      throws IOException {
    return explore(name, workload, trace, coverage, which, maxImages, 0, seed);
  }

  /**
   * {@link #explore(String, CrashWorkload, FsTrace, CrashStates.Coverage, Predicate, int, long)}
   * with a sample that goes on drawing images past {@code minImages} until they hold {@code
   * minStates} states ({@link CrashExplorer#explore(String, FsTrace, DiskModel.Options, List, int,
   * long, SplittableRandom, Path, Path, CrashExplorer.Recovery, CrashExplorer.Check)}).
   */
  public CrashExplorer.Report explore(
      String name,
      CrashWorkload workload,
      FsTrace trace,
      CrashStates.Coverage coverage,
      Predicate<CrashState> which,
      int minImages,
      long minStates,
      long seed)
      throws IOException {
    List<CrashState> states =
        CrashStates.all(trace, DiskModel.Options.DEFAULT, coverage).stream().filter(which).toList();
    CrashChecks checks = new CrashChecks(workload, trace, storeDir, opener, dimension);
    CrashExplorer.Report report =
        CrashExplorer.explore(
            name + "-" + coverage + "-" + seed,
            trace,
            DiskModel.Options.DEFAULT,
            states,
            minImages,
            minStates,
            new SplittableRandom(seed),
            tmp.resolve("scratch"),
            Path.of("target", "crashpoints"),
            checks.recovery(),
            checks.check());
    System.out.println(
        report.summary(
                store
                    + " "
                    + coverage
                    + ", "
                    + workload.steps().size()
                    + " steps, "
                    + trace.size()
                    + " operations")
            + String.format(
                ", load %.2f",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
    assertEquals(
        0,
        report.violations(),
        coverage + ": " + report.firstViolations() + "; trace saved to " + report.savedTrace());
    if (report.recoveredImages() < report.distinctImages()) {
      // A sample: it drew as many images as it had to, and recovered every one it drew.
      assertTrue(
          report.recoveredImages() >= minImages && report.checkedStates() >= minStates,
          report.recoveredImages() + " images and " + report.checkedStates() + " states");
    }
    return report;
  }
}
