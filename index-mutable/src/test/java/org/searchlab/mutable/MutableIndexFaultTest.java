package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.StoreHealth;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.core.wal.WriteAheadLog;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.testing.FaultyFiles;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Storage faults under the mutable store, injected into its write-ahead log, and a writer thread
 * that dies: the store stops taking writes (fails them at once, never hangs), says so in its
 * health, and a restart gives back every acknowledged write.
 */
class MutableIndexFaultTest {
  private static final int DIM = 16;
  private final Schema schema = new Schema(DIM);
  @TempDir Path tmp;
  private SyntheticCorpus corpus;

  @BeforeEach
  void seed(TestInfo info) {
    long seed = TestSeeds.seed(getClass().getSimpleName() + "." + info.getDisplayName());
    corpus = new SyntheticCorpus(seed, DIM, SyntheticCorpus.Params.builder().build());
  }

  private static MutableConfig config() {
    return MutableConfig.builder()
        .hnsw(HnswConfig.builder().efConstruction(32).build())
        .snapshotInterval(Duration.ZERO)
        .build();
  }

  private static void feed(MutableIndex index, List<Document> docs) throws IOException {
    List<Operation> ops = new ArrayList<>();
    for (Document d : docs) {
      ops.add(Operation.put(d));
    }
    assertTrue(index.bulk(ops).stream().noneMatch(r -> r.failed()));
  }

  private void assertStopsAndRecovers(FaultKind kind) throws IOException {
    Path dir = tmp.resolve(kind.name());
    FaultyFiles faults = new FaultyFiles();
    List<Document> docs = corpus.documents(400);
    try (MutableIndex index = MutableIndex.open(dir, schema, config(), faults)) {
      feed(index, docs.subList(0, 300));
      assertTrue(index.health().writable());
      switch (kind) {
        case FSYNC -> faults.failForce.set(true);
        case PARTIAL_WRITE -> faults.writeBudget.set(100);
        case FULL_DISK -> faults.writeBudget.set(0);
      }
      assertThrows(IOException.class, () -> feed(index, docs.subList(300, 350)));
      // The device is fine again: the store stays stopped until it is reopened.
      faults.failForce.set(false);
      faults.writeBudget.set(Long.MAX_VALUE);
      IOException refused =
          assertThrows(IOException.class, () -> index.put(docs.get(360)), "refused after");
      assertTrue(refused.getMessage().contains("reopened"), refused.getMessage());
      StoreHealth h = index.health();
      assertFalse(h.writable(), "health reports the stop: " + h);
      assertTrue(h.wal().isPresent() && h.writer().isPresent(), h.toString());
      // Reads go on from what was acknowledged.
      assertEquals(300, index.stats().docCount());
      assertEquals(docs.get(7), index.get(docs.get(7).id()).orElseThrow());
    }
    try (MutableIndex reopened = MutableIndex.open(dir, schema, config())) {
      assertTrue(reopened.health().writable());
      for (Document d : docs.subList(0, 300)) {
        assertEquals(d, reopened.get(d.id()).orElseThrow(), "acknowledged " + d.id());
      }
      // The failed batch was never acknowledged: all of it or none may have reached the disk.
      long failedKept = docs.subList(300, 350).stream().filter(d -> has(reopened, d)).count();
      assertTrue(failedKept == 0 || failedKept == 50 || kind != FaultKind.FSYNC, "" + failedKept);
      assertFalse(has(reopened, docs.get(360)), "a write refused after the stop is not there");
      reopened.put(docs.get(399));
      assertEquals(300 + failedKept + 1, reopened.stats().docCount());
    }
  }

  private static boolean has(MutableIndex index, Document d) {
    return index.get(d.id()).isPresent();
  }

  private enum FaultKind {
    FSYNC,
    PARTIAL_WRITE,
    FULL_DISK
  }

  @Tag("restart")
  @Test
  void aFailedFsyncStopsWritesAndARestartKeepsEveryAcknowledgedOne() throws IOException {
    assertStopsAndRecovers(FaultKind.FSYNC);
  }

  @Tag("restart")
  @Test
  void aWriteFailingPartWayStopsWritesAndARestartKeepsEveryAcknowledgedOne() throws IOException {
    assertStopsAndRecovers(FaultKind.PARTIAL_WRITE);
  }

  @Tag("restart")
  @Test
  void aFullDiskStopsWritesAndARestartKeepsEveryAcknowledgedOne() throws IOException {
    assertStopsAndRecovers(FaultKind.FULL_DISK);
  }

  /** The timeout only detects a hang (the defect: writes waited forever on a dead writer). */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aDeadWriterThreadFailsWritesInsteadOfHanging() throws Exception {
    IndexParts parts = new IndexParts(VectorPart.create(DIM, HnswConfig.builder().build()));
    int[] batches = {0};
    try (WriteAheadLog wal = WriteAheadLog.open(tmp.resolve("wal"), WalConfig.DEFAULT)) {
      IndexWriter writer =
          new IndexWriter(
              parts,
              wal,
              16,
              0.0,
              () -> {
                if (++batches[0] == 2) {
                  throw new OutOfMemoryError("injected: the writer thread dies");
                }
              });
      writer.start();
      List<Document> docs = corpus.documents(3);
      writer.submit(List.of(Operation.put(docs.get(0))));
      writer.submit(List.of(Operation.put(docs.get(1)))); // acknowledged; then the thread dies
      IOException e =
          assertThrows(IOException.class, () -> writer.submit(List.of(Operation.put(docs.get(2)))));
      assertTrue(e.getMessage().contains("stopped"), e.getMessage());
      assertTrue(writer.failure().orElseThrow() instanceof OutOfMemoryError);
      writer.close();
    }
  }

  /**
   * A replay that throws while opening (here on a record that passes its checksum but is no
   * operation) fails the open and leaves nothing running: the log's files are closed, its syncer
   * thread is gone and the directory is released, so the next open reports the same damage.
   */
  @Tag("restart")
  @Test
  void aReplayThatFailsClosesWhatTheOpenOpened() throws IOException {
    Path dir = tmp.resolve("poisoned");
    MutableConfig async =
        config().toBuilder()
            .wal(WalConfig.builder().syncPolicy(org.searchlab.core.wal.SyncPolicy.ASYNC).build())
            .build();
    try (MutableIndex index = MutableIndex.open(dir, schema, async)) {
      feed(index, corpus.documents(10));
    }
    try (WriteAheadLog wal = WriteAheadLog.open(dir.resolve("wal"), WalConfig.DEFAULT)) {
      wal.write(new byte[] {(byte) 0x7f, 1, 2, 3});
    }
    java.util.Set<Thread> syncersBefore = syncers();
    for (int attempt = 0; attempt < 2; attempt++) {
      FaultyFiles files = new FaultyFiles();
      IOException e =
          assertThrows(IOException.class, () -> MutableIndex.open(dir, schema, async, files));
      assertTrue(e.getMessage().contains("format version"), e.getMessage());
      assertEquals(0, files.openChannels.get(), "log files left open");
      java.util.Set<Thread> left = syncers();
      left.removeAll(syncersBefore);
      assertTrue(left.isEmpty(), "the log's syncer thread outlived the failed open: " + left);
    }
  }

  private static java.util.Set<Thread> syncers() {
    java.util.Set<Thread> out = new java.util.HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("wal-async-sync") && t.isAlive()) {
        out.add(t);
      }
    }
    return out;
  }
}
