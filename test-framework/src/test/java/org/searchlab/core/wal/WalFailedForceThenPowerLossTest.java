package org.searchlab.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.FaultyFiles;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.ForgetfulFileSystem;
import org.searchlab.testing.disk.PowerCut;

/**
 * "fsync fails, then the power is lost" for the write-ahead log (issue 70, step 9): a force that
 * fails leaves what it covered unforced on a {@link ForgetfulFileSystem}, the log must stop before
 * it acknowledges anything that force covered, and a later power cut, of any kind, must leave every
 * acknowledged record and nothing the log refused.
 */
class WalFailedForceThenPowerLossTest {
  @TempDir Path tmp;

  private static TreeMap<Long, byte[]> replay(Path realWalDir) throws IOException {
    TreeMap<Long, byte[]> out = new TreeMap<>();
    try (WriteAheadLog wal = WriteAheadLog.open(realWalDir, WalConfig.DEFAULT)) {
      wal.replay(0, out::put);
    }
    return out;
  }

  /** Paths whose last name is {@code name}. */
  private static Predicate<Path> named(String name) {
    return p -> p.getFileName() != null && p.getFileName().toString().equals(name);
  }

  private static void assertKept(
      TreeMap<Long, byte[]> acked, TreeMap<Long, byte[]> replayed, String what) {
    for (var e : acked.entrySet()) {
      byte[] got = replayed.get(e.getKey());
      assertNotNull(got, what + ": acknowledged serial " + e.getKey() + " lost");
      assertArrayEquals(e.getValue(), got, what + ": acknowledged serial " + e.getKey());
    }
  }

  /**
   * {@link FaultyFiles} over the forgetful disk: the log's file force fails, the device recovers,
   * and every kind of cut then keeps the acknowledged records, at most the one record whose force
   * failed (an error was reported for it, so its outcome is unknown, not acknowledged), and nothing
   * after it. With the unforced data dropped the failed record must be gone: a log that forced
   * again after the failure (when the device came back, or on close) would have made durable a
   * record that a real kernel, having failed to write its pages, may have dropped already.
   */
  @Test
  void aRecordWhoseForceFailedIsNeverAcknowledgedEvenAcrossACut() throws IOException {
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    FaultyFiles faults = new FaultyFiles();
    TreeMap<Long, byte[]> acked = new TreeMap<>();
    try (WriteAheadLog wal = WriteAheadLog.open(fs.resolve("wal"), WalConfig.DEFAULT, faults)) {
      for (int i = 0; i < 10; i++) {
        byte[] p = {(byte) i, 1};
        acked.put(wal.append(p), p);
      }
      faults.failForce.set(true);
      assertThrows(WalFailedException.class, () -> wal.append(new byte[] {99, 1}));
      faults.failForce.set(false);
      assertThrows(WalFailedException.class, () -> wal.append(new byte[] {100, 1}));
      assertEquals(10, wal.syncedSerial(), "nothing after the failed fsync counts as durable");
    }
    int round = 0;
    for (PowerCut cut : PowerCut.all()) {
      Path image = tmp.resolve("image-" + round++);
      fs.crashImage(cut, new SplittableRandom(round)).writeTo(image);
      TreeMap<Long, byte[]> replayed = replay(image.resolve("wal"));
      assertKept(acked, replayed, cut.toString());
      assertTrue(
          replayed.size() <= 11, cut + ": at most the failed record more: " + replayed.keySet());
      if (replayed.size() == 11) {
        assertArrayEquals(new byte[] {99, 1}, replayed.get(11L), cut + ": serial 11");
      }
      if (cut.kind() == PowerCut.Kind.DROP_UNFORCED) {
        assertEquals(acked.keySet(), replayed.keySet(), cut + ": the failed record was forced");
      }
    }
  }

  /**
   * The log's directory force fails with EIO when the log rolls to a new file: the new file's name
   * is then not durable, so the log must stop rather than acknowledge records in that file, which a
   * cut would take away with the name. Before the fix {@code Durable.forceDirectory} swallowed the
   * error, the log acknowledged on, and the cut lost them.
   */
  @Test
  void aFailedDirectoryForceStopsTheLogBeforeARecordInTheNewFileIsAcknowledged()
      throws IOException {
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    Path dir = fs.resolve("wal");
    // The smallest file the log allows (1 MiB): it rolls at the 11th record of 100 KB.
    WalConfig small = WalConfig.builder().fileBytes(1 << 20).build();
    TreeMap<Long, byte[]> acked = new TreeMap<>();
    try (WriteAheadLog wal = WriteAheadLog.open(dir, small)) {
      byte[] first = new byte[100_000];
      acked.put(wal.append(first), first);
      fs.failForces(named("wal"));
      try {
        for (int i = 1; i < 20; i++) {
          byte[] p = new byte[100_000];
          p[0] = (byte) i;
          acked.put(wal.append(p), p);
        }
      } catch (WalFailedException expected) {
        // the roll's directory force failed: stopped
      }
      fs.failForces(p -> false);
    } catch (IOException closing) {
      // a stopped log may report its failure again on close
    }
    Path image = tmp.resolve("image");
    fs.powerCut(PowerCut.dropUnforced(), new SplittableRandom(0)).writeTo(image);
    assertKept(acked, replay(image.resolve("wal")), "after the cut");
    assertTrue(acked.size() < 20, "the log acknowledged every record with its directory failing");
  }
}
