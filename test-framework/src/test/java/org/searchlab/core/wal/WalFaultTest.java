package org.searchlab.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.FaultyFiles;
import org.searchlab.testing.TestSeeds;

/**
 * Storage faults injected into the log's file channel: a write that fails part-way, a failing
 * fsync, a full disk. The log must stop (refuse every later write and sync), and reopening must
 * give back every acknowledged record and nothing after the failure.
 */
class WalFaultTest {
  @TempDir Path tmp;

  private static byte[] payload(SplittableRandom r, long n) {
    byte[] b = new byte[1 + r.nextInt(300)];
    r.nextBytes(b);
    b[0] = (byte) n;
    return b;
  }

  private static TreeMap<Long, byte[]> replayAll(Path dir) throws IOException {
    TreeMap<Long, byte[]> out = new TreeMap<>();
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      wal.replay(0, out::put);
    }
    return out;
  }

  /** Appends single records and batches until a write fails; returns the acknowledged ones. */
  private static TreeMap<Long, byte[]> appendUntilFailure(
      WriteAheadLog wal, SplittableRandom r, List<byte[]> failedBatch) {
    TreeMap<Long, byte[]> acked = new TreeMap<>();
    for (long n = 0; ; n++) {
      List<byte[]> batch = new ArrayList<>();
      int size = 1 + r.nextInt(5);
      for (int i = 0; i < size; i++) {
        batch.add(payload(r, n));
      }
      try {
        long last = wal.writeAll(batch);
        wal.sync(last);
        for (int i = 0; i < size; i++) {
          acked.put(last - size + 1 + i, batch.get(i));
        }
      } catch (IOException e) {
        assertTrue(e instanceof WalFailedException, "fails as the log's own failure: " + e);
        failedBatch.addAll(batch);
        return acked;
      }
    }
  }

  private static void assertStopped(WriteAheadLog wal) {
    assertTrue(wal.failure().isPresent(), "the log reports its failure");
    WalFailedException e = assertThrows(WalFailedException.class, () -> wal.append(new byte[] {1}));
    assertTrue(e.getMessage().contains("restarted"), e.getMessage());
    assertThrows(WalFailedException.class, wal::syncAll);
    assertThrows(WalFailedException.class, () -> wal.trimUpTo(1));
  }

  private static void assertSame(TreeMap<Long, byte[]> expected, TreeMap<Long, byte[]> actual) {
    assertEquals(expected.keySet(), actual.keySet(), "the replayed serials");
    for (var e : expected.entrySet()) {
      assertArrayEquals(e.getValue(), actual.get(e.getKey()), "record " + e.getKey());
    }
  }

  @Tag("restart")
  @Test
  void aWriteThatFailsPartWayStopsTheLogAndRecoveryKeepsEveryAcknowledgedRecord(TestInfo info)
      throws IOException {
    SplittableRandom r = new SplittableRandom(TestSeeds.seed("WalFaultTest.partialWrite"));
    for (boolean truncateWorks : new boolean[] {true, false}) {
      Path dir = tmp.resolve("wal-" + truncateWorks);
      FaultyFiles faults = new FaultyFiles();
      faults.writeBudget.set(2_000 + r.nextInt(20_000));
      TreeMap<Long, byte[]> acked;
      List<byte[]> failed = new ArrayList<>();
      try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT, faults)) {
        faults.failTruncate.set(!truncateWorks);
        acked = appendUntilFailure(wal, r, failed);
        assertStopped(wal);
        // The disk has room again: the log stays stopped all the same.
        faults.writeBudget.set(Long.MAX_VALUE);
        assertStopped(wal);
      }
      TreeMap<Long, byte[]> replayed = replayAll(dir);
      if (truncateWorks) {
        assertSame(acked, replayed);
      } else {
        // The torn record is cut on open; whole records of the failed batch before it may stay
        // (their outcome was reported as a failure, not as lost), nothing else.
        TreeMap<Long, byte[]> head = new TreeMap<>(replayed.headMap(acked.lastKey(), true));
        assertSame(acked, head);
        long next = acked.lastKey() + 1;
        for (var e : replayed.tailMap(acked.lastKey(), false).entrySet()) {
          assertEquals(next, e.getKey());
          assertArrayEquals(failed.get((int) (next - acked.lastKey() - 1)), e.getValue());
          next++;
        }
        assertTrue(next - acked.lastKey() - 1 < failed.size(), "the torn record is gone");
      }
      try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
        long s = wal.append(new byte[] {42});
        assertEquals(replayed.lastKey() + 1, s, "a reopened log continues after what it kept");
      }
    }
  }

  @Test
  void aFailedFsyncIsNeverFollowedByOneThatAcknowledges() throws IOException {
    Path dir = tmp.resolve("wal");
    FaultyFiles faults = new FaultyFiles();
    TreeMap<Long, byte[]> acked = new TreeMap<>();
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT, faults)) {
      for (int i = 0; i < 10; i++) {
        byte[] p = {(byte) i};
        acked.put(wal.append(p), p);
      }
      faults.failForce.set(true);
      assertThrows(WalFailedException.class, () -> wal.append(new byte[] {99}));
      assertEquals(10, wal.syncedSerial(), "nothing after the failed fsync counts as durable");
      // The device recovers and a later fsync would succeed: PostgreSQL's fsyncgate. The log must
      // not acknowledge anything, since the kernel may have dropped the pages it failed to write.
      faults.failForce.set(false);
      assertStopped(wal);
      assertEquals(10, wal.syncedSerial());
    }
    TreeMap<Long, byte[]> replayed = replayAll(dir);
    assertSame(acked, new TreeMap<>(replayed.headMap(10L, true)));
    assertTrue(replayed.size() <= 11, "at most the unacknowledged record: " + replayed.keySet());
  }

  @Test
  void aFullDiskRefusesWritesAndLosesNothing() throws IOException {
    Path dir = tmp.resolve("wal");
    FaultyFiles faults = new FaultyFiles();
    TreeMap<Long, byte[]> acked = new TreeMap<>();
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT, faults)) {
      for (int i = 0; i < 100; i++) {
        byte[] p = {(byte) i, 7};
        acked.put(wal.append(p), p);
      }
      faults.writeBudget.set(0);
      assertThrows(WalFailedException.class, () -> wal.append(new byte[] {1}));
      assertStopped(wal);
    }
    assertSame(acked, replayAll(dir));
  }

  @Test
  void damageFollowedByAValidRecordIsRefusedNotCutOff() throws IOException {
    Path dir = tmp.resolve("wal");
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      for (int i = 0; i < 3; i++) {
        wal.append(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
      }
    }
    // Flip a payload byte of the middle record: records 1 and 3 are whole, 3 was acknowledged.
    Path file = WriteAheadLog.listFiles(dir).get(0);
    long recordBytes = 4 + 8 + 8 + 4;
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) 0xEE}), recordBytes + 12 + 3);
    }
    CorruptWalException e =
        assertThrows(CorruptWalException.class, () -> WriteAheadLog.open(dir, WalConfig.DEFAULT));
    assertTrue(e.getMessage().contains("not a torn tail"), e.getMessage());
  }

  /**
   * Writes 100 records of 100 bytes (116 on disk each, so records 36 and 71 straddle the page
   * boundaries 4096 and 8192) and overwrites the page [4096, 8192) with {@code fill}.
   */
  private static Path logWithPageOverwritten(Path dir, byte fill) throws IOException {
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      for (int i = 0; i < 100; i++) {
        byte[] p = new byte[100];
        Arrays.fill(p, (byte) (i + 1));
        wal.append(p);
      }
    }
    Path file = WriteAheadLog.listFiles(dir).get(0);
    byte[] page = new byte[4096];
    Arrays.fill(page, fill);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(page), 4096);
    }
    return file;
  }

  @Test
  void aZeroFilledPageFollowedOnlyByValidRecordsIsCutAsATornTail() throws IOException {
    // What a power cut leaves when writeback persisted a later page of never-forced writes and
    // lost an earlier one (R2 of issue 70's design note): the records after the hole were never
    // acknowledged, so the log opens and ends before the hole.
    Path dir = tmp.resolve("wal");
    Path file = logWithPageOverwritten(dir, (byte) 0);
    TreeMap<Long, byte[]> replayed = replayAll(dir);
    assertEquals(35, replayed.size(), "the 35 records that end before the hole");
    assertEquals(35L, replayed.lastKey().longValue());
    assertEquals(35L * 116, Files.size(file), "cut at the damaged record");
  }

  @Test
  void aPageOfOtherBytesOrAZeroPageBeforeMoreDamageIsStillRefused() throws IOException {
    Path rotten = tmp.resolve("rotten");
    logWithPageOverwritten(rotten, (byte) 0xEE);
    CorruptWalException e =
        assertThrows(
            CorruptWalException.class, () -> WriteAheadLog.open(rotten, WalConfig.DEFAULT));
    assertTrue(e.getMessage().contains("not a torn tail"), e.getMessage());

    Path twice = tmp.resolve("twice");
    Path file = logWithPageOverwritten(twice, (byte) 0);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) 0xEE}), 90 * 116 + 20); // record 91's payload
    }
    assertThrows(CorruptWalException.class, () -> WriteAheadLog.open(twice, WalConfig.DEFAULT));
  }
}
