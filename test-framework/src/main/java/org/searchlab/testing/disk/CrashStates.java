package org.searchlab.testing.disk;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.searchlab.testing.disk.CrashState.Metadata;
import org.searchlab.testing.disk.PowerCut.TearFill;

/**
 * The crash states of a recorded trace worth recovering, as ALICE and CrashMonkey place them
 * (design note of issue 70, §4.2). Listed in the order of their prefixes, for one forward walk of a
 * {@link TraceReplayer}.
 *
 * <p>{@link Coverage#ORDERED}, the default model:
 *
 * <ol>
 *   <li>every prefix {@code p = 0..N} with {@code KEEP_ALL}: what a kernel crash with perfect
 *       writeback (or a SIGKILL) leaves; it catches recovery bugs that are not about durability;
 *   <li>at each persistence point, i.e. just before and just after each {@code Force} and {@code
 *       DirForce}:
 *       <ul>
 *         <li>{@code DROP_UNFORCED} with no unforced entry change; and, at the first point where a
 *             list of pending entry changes stands, with the first {@code m} of them in issue order
 *             for each {@code m} from 1 to all of them (a journal commits them in order);
 *         <li>{@code TEAR_LAST} × {512, 4096} × {ZEROS, SHORT} for each file with pending writes,
 *             torn at the last boundary strictly inside its last write ({@link
 *             DiskModel#lastTearPoint}), every entry change kept;
 *         <li>{@code SKIP_ONE_DATA} for each page a pending write touches, every entry change kept.
 *       </ul>
 * </ol>
 *
 * <p>{@link Coverage#POSIX}, a separate run whose findings are listed apart: at the first
 * persistence point where a list of pending entry changes stands, the durable data with every one
 * of them but one, for each one (and, as always, every later change to the same entry or inode lost
 * with it).
 *
 * <p>Thread-safe: stateless.
 */
public final class CrashStates {
  /** Which metadata model the states assume. */
  public enum Coverage {
    /** Unforced entry changes persist as a prefix in issue order (ext4, XFS). */
    ORDERED,
    /** Any unforced entry change may be lost while later ones persist. */
    POSIX
  }

  private static final int[] TEAR_BYTES = {512, 4096};

  private CrashStates() {}

  /**
   * Every crash state of {@code trace} under {@code coverage}, sorted by prefix. Walks the trace
   * once; builds no image.
   */
  public static List<CrashState> all(FsTrace trace, DiskModel.Options options, Coverage coverage) {
    List<FsOp> ops = trace.ops();
    int n = ops.size();
    boolean[] point = new boolean[n + 1];
    for (int p = 0; p < n; p++) {
      if (ops.get(p) instanceof FsOp.Force || ops.get(p) instanceof FsOp.DirForce) {
        point[p] = true; // just before it
        point[p + 1] = true; // just after it
      }
    }
    TraceReplayer replayer = new TraceReplayer(trace, options);
    List<CrashState> out = new ArrayList<>();
    long[] lastMeta = new long[0];
    for (int p = 0; p <= n; p++) {
      if (coverage == Coverage.ORDERED) {
        out.add(CrashState.keepAll(p));
      }
      if (!point[p]) {
        continue;
      }
      replayer.advanceTo(p);
      DiskModel m = replayer.model();
      long[] pendingMeta = m.pendingMetadataSeqs();
      // Entry changes stay pending across many points (a trim's deletes until the next directory
      // force): their subsets are listed where that list of pending changes first stands.
      int meta = Arrays.equals(pendingMeta, lastMeta) ? 0 : pendingMeta.length;
      lastMeta = pendingMeta;
      if (coverage == Coverage.POSIX) {
        for (int k = 0; k < meta; k++) {
          out.add(new CrashState(p, PowerCut.dropUnforced(), -1, -1, Metadata.ALL_BUT_ONE, k));
        }
        continue;
      }
      out.add(CrashState.dropUnforced(p));
      for (int k = 1; k <= meta; k++) {
        out.add(new CrashState(p, PowerCut.dropUnforced(), -1, -1, Metadata.PREFIX, k));
      }
      List<Long> pending = m.inodesWithPendingWrites();
      for (long inode : pending) {
        long[] w = m.lastPendingWrite(inode);
        for (int t : TEAR_BYTES) {
          long at = DiskModel.lastTearPoint(w[0], w[1], t);
          for (TearFill fill : TearFill.values()) {
            out.add(new CrashState(p, PowerCut.tearLast(t, fill), inode, at, Metadata.ALL, -1));
          }
        }
      }
      for (long inode : pending) {
        for (long page : m.pendingPages(inode)) {
          out.add(new CrashState(p, PowerCut.skipOneData(), inode, page, Metadata.ALL, -1));
        }
      }
    }
    return out;
  }

  /**
   * {@code n} of {@code states} drawn without replacement by {@code random}, sorted by prefix (all
   * of them when there are no more than {@code n}).
   */
  public static List<CrashState> sample(List<CrashState> states, int n, SplittableRandom random) {
    List<CrashState> pool = new ArrayList<>(states);
    int k = Math.min(n, pool.size());
    for (int i = 0; i < k; i++) {
      int j = i + random.nextInt(pool.size() - i);
      CrashState x = pool.get(i);
      pool.set(i, pool.get(j));
      pool.set(j, x);
    }
    List<CrashState> out = new ArrayList<>(pool.subList(0, k));
    out.sort(Comparator.comparingInt(CrashState::prefix));
    return out;
  }
}
