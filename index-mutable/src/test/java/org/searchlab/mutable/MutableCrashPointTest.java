package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.crash.CrashChecks;
import org.searchlab.testing.crash.CrashExplorer;
import org.searchlab.testing.crash.CrashPoints;
import org.searchlab.testing.crash.CrashWorkload;
import org.searchlab.testing.disk.CrashStates;
import org.searchlab.testing.disk.FsOp;
import org.searchlab.testing.disk.FsTrace;

/**
 * Crash points of the mutable store (issue 70, design note §4): a seeded {@link CrashWorkload}
 * (puts, partial updates, deletes and flushes, so snapshots with their graph files and log trims
 * are inside the trace) recorded on a forgetful disk from the store's creation to its close; then
 * its crash states recovered and checked by {@link CrashChecks}: the store opens, equals the
 * reference after some j steps between the acknowledged and the invoked ones, and every tenth
 * recovered image still takes a put that survives a close and a cut.
 *
 * <p>CI recovers every distinct image of a 400-step trace under the {@code ORDERED} metadata model
 * (5,000 to 6,000 states, each checked, in some 1,900 images; issue 70 asks for at least 5,000
 * recovered states per store in CI, and 350 steps gave 4,774 on one seed), and a sample of 30 under
 * {@code POSIX}. {@code -Dcrashpoints.images=N} samples N images instead. The longer run recovers
 * every state of a 2,000-step trace: {@code qa/power/crashpoints.sh}, i.e. {@code
 * -Dcrashpoints.steps=2000 -Dcrashpoints.all=true} on this test.
 */
class MutableCrashPointTest {
  private static final int DIM = 16;
  private static final Schema SCHEMA = new Schema(DIM);
  private static final String STORE = "store";

  @TempDir Path tmp;

  /** No snapshot timer and one build thread: the workload's thread alone decides the trace. */
  private static MutableConfig config() {
    return MutableConfig.builder()
        .hnsw(HnswConfig.builder().m(8).efConstruction(16).buildThreads(1).build())
        .snapshotInterval(Duration.ZERO)
        .build();
  }

  private static MutableIndex open(Path dir) throws IOException {
    return MutableIndex.open(dir, SCHEMA, config());
  }

  private CrashPoints crashPoints() {
    return new CrashPoints("mutable", STORE, MutableCrashPointTest::open, DIM, tmp);
  }

  @Test
  void crashStatesOfASeededTraceRecoverToAReferenceState() throws IOException {
    long seed = TestSeeds.seed("MutableCrashPointTest.crashStatesOfASeededTrace");
    int steps = Integer.getInteger("crashpoints.steps", 400);
    boolean all = Boolean.getBoolean("crashpoints.all");
    int images =
        all ? Integer.MAX_VALUE : Integer.getInteger("crashpoints.images", Integer.MAX_VALUE);
    int posixImages = all ? Integer.MAX_VALUE : 30;
    CrashWorkload workload = CrashWorkload.generate(seed, steps, DIM);
    FsTrace trace = crashPoints().record(workload, "seeded");
    crashPoints()
        .explore(
            "MutableCrashPointTest",
            workload,
            trace,
            CrashStates.Coverage.ORDERED,
            s -> true,
            images,
            seed);
    crashPoints()
        .explore(
            "MutableCrashPointTest",
            workload,
            trace,
            CrashStates.Coverage.POSIX,
            s -> true,
            posixImages,
            seed);
  }

  /**
   * Finding R3 of issue 70: a snapshot's graph file is renamed into place, then the snapshot file
   * that needs it, with one directory force after both. A disk that persists entry changes in any
   * order ({@code POSIX}) can keep the snapshot's rename and lose the graph's, and the store then
   * refuses to open. Every {@code POSIX} state just before a directory force, in a trace of two
   * snapshots with vectors, must open. Failed before the fix with "snapshot 2 needs its graph file
   * .../graph-00000000000000000002.bin, which is missing" (4 states of 20).
   */
  @Test
  void aSnapshotNeverNamesAGraphFileThatACrashCanLose() throws IOException {
    SplittableRandom r = new SplittableRandom(70);
    List<String> ids = List.of("doc-0", "doc-1", "doc-2");
    List<CrashWorkload.Step> steps =
        List.of(
            new CrashWorkload.Write(Operation.put(CrashWorkload.version("doc-0", 1, DIM, r))),
            new CrashWorkload.Write(Operation.put(CrashWorkload.version("doc-1", 2, DIM, r))),
            new CrashWorkload.Flush(),
            new CrashWorkload.Write(Operation.put(CrashWorkload.version("doc-2", 4, DIM, r))),
            new CrashWorkload.Flush());
    CrashWorkload workload = CrashWorkload.of(ids, steps);
    FsTrace trace = crashPoints().record(workload, "r3");
    List<FsOp> ops = trace.ops();
    CrashExplorer.Report report =
        crashPoints()
            .explore(
                "MutableCrashPointTest-R3",
                workload,
                trace,
                CrashStates.Coverage.POSIX,
                s -> s.prefix() < ops.size() && ops.get(s.prefix()) instanceof FsOp.DirForce,
                Integer.MAX_VALUE,
                70);
    assertFalse(report.states() == 0, "no POSIX state: the snapshots left no entry change pending");
  }
}
