package org.searchlab.core.wal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.crash.CrashExplorer;
import org.searchlab.testing.crash.CrashExplorer.Violation;
import org.searchlab.testing.disk.CrashState;
import org.searchlab.testing.disk.CrashStates;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.ForgetfulFileSystem;
import org.searchlab.testing.disk.FsTrace;

/**
 * Every crash state of one seeded trace of the write-ahead log alone (issue 70, design note §4):
 * appends and group-committed batches of records of 1 B to 1.5 KiB, trims (each with a roll) and
 * reopenings, recorded on a forgetful disk; then every state of {@link CrashStates} recovered from
 * the trace and checked. The log must open, hold every acknowledged record that no trim removed,
 * unchanged, and nothing that was never written; past the trims its serials have no gap.
 */
class WalCrashPointTest {
  /**
   * The trace's length in file operations: states run at about 2.8 an operation, so this gives
   * about 5,300 states (5,000 are asserted).
   */
  private static final int OPERATIONS = 1_900;

  @TempDir Path tmp;

  /** Record {@code k}'s payload (its serial is {@code k}): 1 to 1,500 seeded bytes. */
  private static byte[] payload(long seed, long k) {
    SplittableRandom r = new SplittableRandom(seed ^ (k * 0x9E3779B97F4A7C15L));
    byte[] b = new byte[1 + r.nextInt(1500)];
    r.nextBytes(b);
    return b;
  }

  /**
   * Runs the workload on {@code fs}: markers {@code "invoke k"} and {@code "ack k"} count records
   * (a batch of m moves both by m), {@code "trim s"} precedes {@code trimUpTo(s)}.
   */
  private static void workload(ForgetfulFileSystem fs, FsTrace trace, long seed)
      throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    Path dir = fs.resolve("wal");
    WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT);
    long k = 0;
    while (trace.size() < OPERATIONS) {
      double p = r.nextDouble();
      if (p < 0.6) {
        fs.marker("invoke " + (k + 1));
        assertEquals(k + 1, wal.append(payload(seed, k + 1)));
        k++;
        fs.marker("ack " + k);
      } else if (p < 0.85) {
        // A group commit: one write of several records, possibly pages long, then one force.
        int m = 2 + r.nextInt(11);
        List<byte[]> batch = new ArrayList<>();
        for (int i = 1; i <= m; i++) {
          batch.add(payload(seed, k + i));
        }
        fs.marker("invoke " + (k + m));
        long last = wal.writeAll(batch);
        wal.sync(last);
        assertEquals(k + m, last);
        k = last;
        fs.marker("ack " + k);
      } else if (p < 0.95) {
        long s = r.nextBoolean() ? k : r.nextLong(k + 1);
        fs.marker("trim " + s);
        wal.trimUpTo(s);
      } else {
        wal.close();
        wal = WriteAheadLog.open(dir, WalConfig.DEFAULT);
      }
    }
    wal.close();
  }

  @Test
  void everyCrashStateOfATraceRecoversEveryAcknowledgedRecord() throws IOException {
    long seed = TestSeeds.seed("WalCrashPointTest.everyCrashStateOfATraceRecovers");
    FsTrace trace = new FsTrace();
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    fs.record(trace);
    workload(fs, trace, seed);

    long[] invoked = trace.markerValues("invoke");
    long[] acked = trace.markerValues("ack");
    long[] trimmed = trace.markerValues("trim");
    for (int p = 1; p < trimmed.length; p++) {
      trimmed[p] = Math.max(trimmed[p], trimmed[p - 1]); // a later trim may ask for less
    }
    CrashExplorer.Check<TreeMap<Long, byte[]>> check =
        (s, records) ->
            check(seed, records, acked[s.prefix()], invoked[s.prefix()], trimmed[s.prefix()]);
    CrashExplorer.Recovery<TreeMap<Long, byte[]>> recovery =
        (dir, ordinal) -> {
          TreeMap<Long, byte[]> out = new TreeMap<>();
          try (WriteAheadLog wal = WriteAheadLog.open(dir.resolve("wal"), WalConfig.DEFAULT)) {
            wal.replay(0, out::put);
          }
          return out;
        };

    for (CrashStates.Coverage coverage : CrashStates.Coverage.values()) {
      List<CrashState> states = CrashStates.all(trace, DiskModel.Options.DEFAULT, coverage);
      CrashExplorer.Report report =
          CrashExplorer.explore(
              "WalCrashPointTest-" + coverage + "-" + seed,
              trace,
              DiskModel.Options.DEFAULT,
              states,
              Integer.MAX_VALUE,
              new SplittableRandom(seed),
              tmp.resolve("scratch"),
              Path.of("target", "crashpoints"),
              recovery,
              check);
      System.out.println(report.summary("WAL " + coverage + ", " + trace.size() + " operations"));
      assertEquals(
          0,
          report.violations(),
          coverage + ": " + report.firstViolations() + "; trace saved to " + report.savedTrace());
      assertEquals(states.size(), report.checkedStates(), "every state is checked");
      if (coverage == CrashStates.Coverage.ORDERED) {
        assertTrue(states.size() >= 5_000, "only " + states.size() + " states");
      }
    }
  }

  /**
   * The recovered {@code records} against a crash after {@code acked} records were acknowledged,
   * {@code invoked} were written or being written, and trims asked for up to {@code trimmed}.
   */
  private static Violation check(
      long seed, TreeMap<Long, byte[]> records, long acked, long invoked, long trimmed) {
    for (long k = trimmed + 1; k <= acked; k++) {
      if (!records.containsKey(k)) {
        return new Violation("lost", "acknowledged record " + k + " is missing");
      }
    }
    // Above the trims the serials run on without a gap; below, a trim's deletes may persist in
    // any order under POSIX, so any of those files may come back.
    long expect = trimmed + 1;
    for (long k : records.tailMap(trimmed, false).keySet()) {
      if (k != expect++) {
        return new Violation("gap", "record " + (expect - 1) + " is missing before " + k);
      }
    }
    for (Map.Entry<Long, byte[]> e : records.entrySet()) {
      long k = e.getKey();
      if (k > invoked) {
        return new Violation("never written", "record " + k + " of " + invoked + " invoked");
      }
      if (!Arrays.equals(payload(seed, k), e.getValue())) {
        return new Violation("torn", "record " + k + " differs from what was written");
      }
    }
    return null;
  }
}
