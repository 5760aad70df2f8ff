package org.searchlab.core.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.ForkedJvm;
import org.searchlab.testing.TestSeeds;

class WriteAheadLogTest {
  @TempDir Path tmp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static TreeMap<Long, byte[]> replayAll(Path dir) throws IOException {
    TreeMap<Long, byte[]> out = new TreeMap<>();
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      wal.replay(0, out::put);
    }
    return out;
  }

  @Test
  void appendReplayAndReopenContinuesSerials() throws IOException {
    Path dir = tmp.resolve("wal");
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      assertEquals(1, wal.append(bytes("a")));
      assertEquals(2, wal.append(bytes("b")));
      assertEquals(4, wal.writeAll(List.of(bytes("c"), bytes("d"))));
    }
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      assertEquals(4, wal.lastSerial());
      List<String> seen = new ArrayList<>();
      wal.replay(2, (s, p) -> seen.add(s + "=" + new String(p, StandardCharsets.UTF_8)));
      assertEquals(List.of("3=c", "4=d"), seen);
      assertEquals(5, wal.append(bytes("e")));
    }
  }

  @Tag("restart")
  @Tag("sigkill")
  @Test
  void survivesSigkill() throws Exception {
    long seed = TestSeeds.seed("WriteAheadLogTest.survivesSigkill");
    SplittableRandom random = new SplittableRandom(seed);
    Path dir = tmp.resolve("wal");
    long totalAcked = 0;
    for (int round = 0; round < 10; round++) {
      long lastAcked;
      try (ForkedJvm child = ForkedJvm.start(WalCrashChild.class, dir.toString(), "" + seed)) {
        String ready = child.readLine();
        assertTrue(ready != null && ready.startsWith("ready "), "child said " + ready);
        lastAcked = Long.parseLong(ready.substring(6));
        // Kill at a random moment: after a random number of acknowledgements (each is an fsync,
        // so this spans a random stretch of time with writes in flight in every thread).
        int killAfter = 20 + random.nextInt(400);
        for (int i = 0; i < killAfter; i++) {
          String line = child.readLine();
          assertTrue(line != null && line.startsWith("ack "), "child said " + line);
          lastAcked = Math.max(lastAcked, Long.parseLong(line.substring(4)));
        }
        child.kill();
      }
      TreeMap<Long, byte[]> replayed = replayAll(dir);
      assertTrue(
          replayed.isEmpty() ? lastAcked == 0 : replayed.lastKey() >= lastAcked,
          "round "
              + round
              + ": acknowledged "
              + lastAcked
              + " but replay ends at "
              + replayed.lastKey());
      long expect = 1;
      for (var e : replayed.entrySet()) {
        assertEquals(expect++, e.getKey(), "serials are consecutive");
        assertArrayEquals(
            WalCrashChild.payloadFor(e.getKey(), seed), e.getValue(), "record " + e.getKey());
      }
      totalAcked = lastAcked;
    }
    System.out.println(
        "[wal] 10 SIGKILL rounds, " + totalAcked + " records acknowledged, all replayed");
  }

  @Test
  void tornTailIsCut() throws IOException {
    Path dir = tmp.resolve("wal");
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      for (int i = 1; i <= 10; i++) {
        wal.append(bytes("record-" + i));
      }
    }
    Path file = WriteAheadLog.listFiles(dir).get(0);
    long size = Files.size(file);
    // A crash mid-write: half of an 11th record.
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ch.write(ByteBuffer.wrap(new byte[] {40, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 'x'}));
    }
    TreeMap<Long, byte[]> replayed = replayAll(dir);
    assertEquals(10, replayed.size());
    assertEquals(size, Files.size(file), "the torn tail was cut off the file");
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      assertEquals(11, wal.append(bytes("after")));
    }
    assertEquals("after", new String(replayAll(dir).get(11L), StandardCharsets.UTF_8));
  }

  @Test
  void corruptTailRecordIsCutNotReplayed() throws IOException {
    Path dir = tmp.resolve("wal");
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      for (int i = 1; i <= 5; i++) {
        wal.append(bytes("record-" + i));
      }
    }
    Path file = WriteAheadLog.listFiles(dir).get(0);
    long size = Files.size(file);
    // Flip a payload byte of the last record: its CRC no longer matches.
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, size - 6);
      b.put(0, (byte) (b.get(0) ^ 0x55)).rewind();
      ch.write(b, size - 6);
    }
    TreeMap<Long, byte[]> replayed = replayAll(dir);
    assertEquals(List.of(1L, 2L, 3L, 4L), List.copyOf(replayed.keySet()));
    assertEquals("record-4", new String(replayed.get(4L), StandardCharsets.UTF_8));
  }

  @Test
  void damageBeforeTheNewestFileIsRefused() throws IOException {
    Path dir = tmp.resolve("wal");
    try (WriteAheadLog wal =
        WriteAheadLog.open(dir, WalConfig.builder().fileBytes(1 << 20).build())) {
      byte[] big = new byte[100_000];
      for (int i = 0; i < 25; i++) {
        wal.append(big);
      }
    }
    List<Path> files = WriteAheadLog.listFiles(dir);
    assertTrue(files.size() >= 2, "rolled into " + files.size() + " files");
    try (FileChannel ch = FileChannel.open(files.get(0), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 5000);
    }
    CorruptWalException e =
        assertThrows(CorruptWalException.class, () -> WriteAheadLog.open(dir, WalConfig.DEFAULT));
    assertTrue(e.getMessage().contains(files.get(0).getFileName().toString()), e.getMessage());
  }

  @Test
  void groupCommitSharesFsyncs() throws Exception {
    int threads = 8;
    int perThread = 100;
    try (WriteAheadLog wal = WriteAheadLog.open(tmp.resolve("wal"), WalConfig.DEFAULT)) {
      long before = wal.fsyncCount();
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        fs.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < perThread; i++) {
                    long s = wal.append(new byte[64]);
                    assertTrue(wal.syncedSerial() >= s, "acknowledged only once durable");
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : fs) {
        f.get();
      }
      pool.shutdown();
      long fsyncs = wal.fsyncCount() - before;
      int appends = threads * perThread;
      System.out.printf(
          "[wal] group commit: %d appends from %d threads took %d fsyncs (%.2f appends per fsync)%n",
          appends, threads, fsyncs, appends / (double) fsyncs);
      assertEquals(appends, wal.syncedSerial());
      assertTrue(fsyncs < appends, "every append paid its own fsync: " + fsyncs);
    }
  }

  @Test
  void writersQueuedBehindOneFsyncShareIt() throws Exception {
    // Deterministic group commit: ten threads write their records, then all ask for durability at
    // once. The first leader's fsync covers all ten; the other nine find their serial synced.
    try (WriteAheadLog wal = WriteAheadLog.open(tmp.resolve("wal"), WalConfig.DEFAULT)) {
      long before = wal.fsyncCount();
      int threads = 10;
      long[] serials = new long[threads];
      for (int t = 0; t < threads; t++) {
        serials[t] = wal.write(new byte[32]);
      }
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> fs = new ArrayList<>();
      for (long s : serials) {
        fs.add(
            pool.submit(
                () -> {
                  go.await();
                  wal.sync(s);
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : fs) {
        f.get();
      }
      pool.shutdown();
      assertEquals(1, wal.fsyncCount() - before, "ten acknowledgements, one fsync");
      assertEquals(threads, wal.syncedSerial());
    }
  }

  @Test
  void singleWriterFsyncsEveryAppendUnderRequest() throws IOException {
    try (WriteAheadLog wal = WriteAheadLog.open(tmp.resolve("wal"), WalConfig.DEFAULT)) {
      long before = wal.fsyncCount();
      for (int i = 0; i < 20; i++) {
        wal.append(new byte[8]);
      }
      assertEquals(20, wal.fsyncCount() - before, "nothing to share with: one fsync per append");
    }
  }

  @Test
  void asyncPolicySyncsInTheBackground() throws Exception {
    WalConfig async =
        WalConfig.builder()
            .syncPolicy(SyncPolicy.ASYNC)
            .asyncInterval(Duration.ofMillis(20))
            .build();
    try (WriteAheadLog wal = WriteAheadLog.open(tmp.resolve("wal"), async)) {
      long before = wal.fsyncCount();
      for (int i = 0; i < 200; i++) {
        wal.append(new byte[8]);
      }
      assertTrue(wal.fsyncCount() - before < 200, "async does not fsync per append");
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (wal.syncedSerial() < 200 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertEquals(200, wal.syncedSerial(), "the background fsync caught up");
    }
  }

  @Test
  void closeReturnsOnlyOnceTheSyncerThreadEnded() throws Exception {
    // Syncs every millisecond, so a close usually meets the syncer running or about to run.
    WalConfig async =
        WalConfig.builder()
            .syncPolicy(SyncPolicy.ASYNC)
            .asyncInterval(Duration.ofMillis(1))
            .build();
    for (int round = 0; round < 50; round++) {
      String name = "wal-async-sync syncer-" + round;
      try (WriteAheadLog wal = WriteAheadLog.open(tmp.resolve("syncer-" + round), async)) {
        for (int i = 0; i < 20; i++) {
          wal.append(new byte[64]);
        }
      }
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        assertFalse(t.getName().equals(name) && t.isAlive(), "round " + round + ": " + t);
      }
    }
  }

  @Test
  void trimDeletesCoveredFilesAndKeepsTheNextSerial() throws IOException {
    Path dir = tmp.resolve("wal");
    byte[] big = new byte[100_000];
    try (WriteAheadLog wal =
        WriteAheadLog.open(dir, WalConfig.builder().fileBytes(1 << 20).build())) {
      for (int i = 0; i < 50; i++) {
        wal.append(big);
      }
      int before = WriteAheadLog.listFiles(dir).size();
      assertEquals(wal.sizeBytes(), wal.writtenBytes(), "nothing trimmed yet: all it wrote");
      long written = wal.writtenBytes();
      wal.trimUpTo(25);
      List<Path> after = WriteAheadLog.listFiles(dir);
      assertTrue(after.size() < before, before + " files, then " + after.size());
      assertEquals(written, wal.writtenBytes(), "a trim writes nothing and forgets nothing");
      assertTrue(wal.sizeBytes() < written);
      assertTrue(WriteAheadLog.firstSerialOf(after.get(0)) <= 26, "serial 26 must survive");
      wal.trimUpTo(50);
    }
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      assertEquals(50, wal.lastSerial(), "an emptied log still knows its next serial");
      List<Long> seen = new ArrayList<>();
      wal.replay(0, (s, p) -> seen.add(s));
      assertEquals(List.of(), seen);
      assertEquals(51, wal.append(bytes("x")));
    }
  }

  @Test
  void advanceToSkipsSerials() throws IOException {
    Path dir = tmp.resolve("wal");
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      wal.append(bytes("a"));
      wal.advanceTo(100);
      assertEquals(100, wal.append(bytes("b")));
    }
    assertEquals(List.of(1L, 100L), List.copyOf(replayAll(dir).keySet()));
  }

  @Test
  void operationCodecRoundTrips() throws IOException {
    var doc =
        new org.searchlab.core.Document(
            "id-é", "Title", "Déscription", null, 42, 4.5f, new float[] {0.6f, 0.8f});
    var ops =
        List.of(
            org.searchlab.core.Operation.put(doc),
            org.searchlab.core.Operation.update(
                org.searchlab.core.PartialUpdate.of("x").withPrice(7).withCategory("c")),
            org.searchlab.core.Operation.delete("gone"));
    for (var op : ops) {
      assertEquals(op, OperationCodec.decode(OperationCodec.encode(op)));
    }
  }

  @Test
  void attributeAssignsAreCompactRecordsThatRoundTrip() throws IOException {
    var assigns =
        List.of(
            org.searchlab.core.PartialUpdate.of("doc-000042").withPrice(99_999),
            org.searchlab.core.PartialUpdate.of("doc-000042").withPrice(-5),
            org.searchlab.core.PartialUpdate.of("id-é").withCategory("catégorie").withPrice(0),
            org.searchlab.core.PartialUpdate.of("x")
                .withAverageRating(4.25f)
                .withPrice(Integer.MIN_VALUE),
            org.searchlab.core.PartialUpdate.of("y").withCategory("c").withAverageRating(-0.0f));
    for (var u : assigns) {
      var op = org.searchlab.core.Operation.update(u);
      byte[] b = OperationCodec.encode(op);
      assertEquals(op, OperationCodec.decode(b), u.toString());
    }
    // Version, type, id length, 10 id bytes, the doc: object tag, one entry, the key "price" with
    // its length, a number tag and a 3-byte price.
    assertEquals(
        25, OperationCodec.encode(org.searchlab.core.Operation.update(assigns.get(0))).length);
    // A truncated or overlong record is refused, not misread.
    byte[] b = OperationCodec.encode(org.searchlab.core.Operation.update(assigns.get(3)));
    assertThrows(IOException.class, () -> OperationCodec.decode(Arrays.copyOf(b, b.length - 1)));
    assertThrows(IOException.class, () -> OperationCodec.decode(Arrays.copyOf(b, b.length + 1)));
  }

  @Test
  void attributeUpdatesInTheOlderUpdateFormatStillReplay() throws IOException {
    var bytes = new java.io.ByteArrayOutputStream();
    try (var out = new java.io.DataOutputStream(bytes)) {
      out.writeByte(1); // version
      out.writeByte(2); // UPDATE
      byte[] id = "old-doc".getBytes(java.nio.charset.StandardCharsets.UTF_8);
      out.writeInt(id.length);
      out.write(id);
      out.writeByte(8); // price only
      out.writeInt(1234);
    }
    assertEquals(
        org.searchlab.core.Operation.update(
            org.searchlab.core.PartialUpdate.of("old-doc").withPrice(1234)),
        OperationCodec.decode(bytes.toByteArray()));
  }
}
