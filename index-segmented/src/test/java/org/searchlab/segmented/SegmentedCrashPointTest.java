package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.crash.CrashChecks;
import org.searchlab.testing.crash.CrashExplorer;
import org.searchlab.testing.crash.CrashPoints;
import org.searchlab.testing.crash.CrashWorkload;
import org.searchlab.testing.disk.CrashStates;
import org.searchlab.testing.disk.FsOp;
import org.searchlab.testing.disk.FsTrace;

/**
 * Crash points of the segmented store (issue 70, design note §4), the counterpart of the mutable
 * store's {@code MutableCrashPointTest}: a seeded {@link CrashWorkload} with bulks and refreshes
 * besides the puts, partial updates, deletes and flushes is recorded on a forgetful disk from the
 * store's creation to its close. The trace so holds Lucene's own writes (the segments of each
 * refresh and of the size-threshold and explicit commits, merges of the small segments), its {@code
 * pending_segments_N} to {@code segments_N} renames and directory forces, and the log's appends,
 * rolls and trims. Its crash states are then recovered with the real store and checked by {@link
 * CrashChecks}: the store opens, equals the reference after some j positions between the
 * acknowledged and the invoked ones, and every tenth recovered image still takes a put that
 * survives a close and a cut.
 *
 * <p>The store runs with no timer (no periodic refresh, no idle commit) and one merge thread, so
 * the workload's thread decides the trace but for the merges, which run beside it as they do in
 * production. So two runs of one seed may record different traces; a failing run saves its trace
 * under {@code target/crashpoints/} for a replay.
 *
 * <p>A segmented trace has far more states than a mutable one: at every fsync of the log, every
 * page of every segment file a refresh wrote and no commit forced yet is a state of its own (tens
 * of thousands a commit). CI lists the states of a 40-step trace (about 150,000 in 5,000 distinct
 * images) and recovers a sample of their images under the {@code ORDERED} metadata model: at least
 * 150, and more until the states of the recovered images, each checked, number 5,000 ({@code
 * -Dcrashpoints.images=N}, {@code -Dcrashpoints.states=S}); and 30 under {@code POSIX}. {@code
 * qa/power/crashpoints.sh --store segmented --steps N} recovers every state of an N-step trace
 * ({@code -Dcrashpoints.steps=N -Dcrashpoints.all=true}).
 */
class SegmentedCrashPointTest {
  private static final int DIM = 8;
  private static final Schema SCHEMA = new Schema(DIM);
  private static final String STORE = "store";

  /** A commit at least every this many steps, so that every seed's trace holds several. */
  private static final int FLUSH_EVERY = 12;

  /**
   * A refresh right after every this-many puts, so that every seed's trace holds segments a refresh
   * wrote (the drawn refreshes alone left none for 1 seed in 14: -Dtests.seed=-6399718212775104127
   * failed "no refresh wrote a segment of its own").
   */
  private static final int REFRESH_EVERY_PUTS = 8;

  @TempDir Path tmp;

  /**
   * No timer, one merge thread and the smallest log threshold, so the workload's own steps and the
   * size threshold put the commits into the trace; three segments a tier, so the refreshes' small
   * segments are merged inside it too.
   */
  static SegmentedConfig config() {
    return SegmentedConfig.builder()
        .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
        .flushIdleMs(SegmentedConfig.IDLE_FLUSH_DISABLED)
        .flushThresholdBytes(64 << 10)
        .segmentsPerTier(3)
        .maxMergeAtOnce(3)
        .searchThreads(0)
        .mergeThreads(1)
        .hnswM(8)
        .hnswBeamWidth(16)
        .build();
  }

  private static LuceneSegmentedIndex open(Path dir) throws IOException {
    return LuceneSegmentedIndex.open(dir, SCHEMA, config());
  }

  private CrashPoints crashPoints() {
    return new CrashPoints("segmented", STORE, SegmentedCrashPointTest::open, DIM, tmp);
  }

  /** How many of the trace's renames move a Lucene {@code pending_segments_N} into place. */
  private static long commits(FsTrace trace) {
    return trace.ops().stream()
        .filter(op -> op instanceof FsOp.Rename r && r.from().startsWith("pending_segments_"))
        .count();
  }

  /** How many Lucene segments the trace creates (one {@code .si} file each). */
  private static long segments(FsTrace trace) {
    return trace.ops().stream()
        .filter(op -> op instanceof FsOp.Create c && c.name().endsWith(".si"))
        .count();
  }

  @Test
  void crashStatesOfASeededTraceRecoverToAReferenceState() throws IOException {
    long seed = TestSeeds.seed("SegmentedCrashPointTest.crashStatesOfASeededTrace");
    int steps = Integer.getInteger("crashpoints.steps", 40);
    boolean all = Boolean.getBoolean("crashpoints.all");
    int images = all ? Integer.MAX_VALUE : Integer.getInteger("crashpoints.images", 150);
    long states = Long.getLong("crashpoints.states", 5_000);
    int posixImages = all ? Integer.MAX_VALUE : 30;
    CrashWorkload workload =
        CrashWorkload.generate(seed, steps, DIM, CrashWorkload.Mix.WITH_BULKS_AND_REFRESHES)
            .withRefreshEveryPuts(REFRESH_EVERY_PUTS)
            .withFlushEvery(FLUSH_EVERY);
    FsTrace trace = crashPoints().record(workload, "seeded");
    // The trace must hold what the test is about: Lucene's commits (a pending segments file
    // renamed into place) and its segment files, besides the log's writes.
    assertTrue(commits(trace) > 1, "fewer than two Lucene commits in the trace");
    assertTrue(segments(trace) > commits(trace), "no refresh wrote a segment of its own");
    CrashPoints points = crashPoints();
    points.explore(
        "SegmentedCrashPointTest",
        workload,
        trace,
        CrashStates.Coverage.ORDERED,
        s -> true,
        images,
        states,
        seed);
    points.explore(
        "SegmentedCrashPointTest",
        workload,
        trace,
        CrashStates.Coverage.POSIX,
        s -> true,
        posixImages,
        seed);
  }

  /**
   * Finding R4 of issue 70: after a commit, Lucene deletes the old commit's {@code segments_N} and
   * then the files only that commit named (segments files first, so that a crash between the two
   * does not leave an old commit naming missing files), with no directory force between. A disk
   * that persists entry changes in any order ({@code POSIX}) can keep the files' unlinks and lose
   * the {@code segments_N} one; opening reads every commit in the directory, the old one names a
   * segment whose {@code .si} is gone, and the store does not open. A segment whose only document a
   * put replaced is dropped at the next commit, so two puts of one id with a commit after each
   * leave exactly that. Every {@code POSIX} state of that trace must open. Failed before the fix
   * with {@code CorruptSegmentInfoException: segment info file: _0.si cannot be read - it may be
   * missing or corrupt (resource=...segments_1)}.
   */
  @Test
  void anOldCommitNeverOutlivesTheSegmentsItNames() throws IOException {
    SplittableRandom r = new SplittableRandom(70);
    List<CrashWorkload.Step> steps =
        List.of(
            new CrashWorkload.Write(Operation.put(CrashWorkload.version("doc-0", 1, DIM, r))),
            new CrashWorkload.Flush(),
            new CrashWorkload.Write(Operation.put(CrashWorkload.version("doc-0", 3, DIM, r))),
            new CrashWorkload.Flush());
    CrashWorkload workload = CrashWorkload.of(List.of("doc-0"), steps);
    FsTrace trace = crashPoints().record(workload, "r4");
    assertTrue(
        trace.ops().stream()
            .anyMatch(op -> op instanceof FsOp.Unlink u && u.name().endsWith(".si")),
        "the second commit dropped no segment: nothing for the old commit to name");
    CrashExplorer.Report report =
        crashPoints()
            .explore(
                "SegmentedCrashPointTest-R4",
                workload,
                trace,
                CrashStates.Coverage.POSIX,
                s -> true,
                Integer.MAX_VALUE,
                70);
    assertTrue(report.states() > 0, "no POSIX state: no entry change was left pending");
  }
}
