package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;
import org.searchlab.testing.disk.CrashImage;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.ForgetfulFileSystem;
import org.searchlab.testing.disk.PowerCut;

/**
 * The mutable store on a disk that loses power right after its first writes, before any snapshot
 * (issue 70, finding R1): the store's directory and its {@code wal/} are created durably, so every
 * acknowledged write is in the image.
 */
class MutableIndexPowerLossTest {
  private static final int DIM = 8;

  @TempDir Path tmp;

  /** No snapshot timer: the only directory forces are the open's, the log's and flush's own. */
  private static MutableConfig config() {
    return MutableConfig.builder()
        .hnsw(HnswConfig.builder().efConstruction(16).build())
        .snapshotInterval(Duration.ZERO)
        .build();
  }

  @Test
  void acknowledgedWritesSurviveACutBeforeTheFirstSnapshot() throws IOException {
    long seed =
        TestSeeds.seed(
            "MutableIndexPowerLossTest.acknowledgedWritesSurviveACutBeforeTheFirstSnapshot");
    SyntheticCorpus corpus =
        new SyntheticCorpus(seed, DIM, SyntheticCorpus.Params.builder().build());
    List<Document> docs = corpus.documents(20);
    Schema schema = new Schema(DIM);
    MutableConfig config = config();
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    CrashImage image;
    try (MutableIndex index = MutableIndex.open(fs.resolve("data", "store"), schema, config)) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : docs) {
        ops.add(Operation.put(d));
      }
      assertTrue(index.bulk(ops).stream().noneMatch(r -> r.failed()));
      // Cut while open: closing takes a snapshot, whose directory force would hide the finding.
      image = fs.crashImage(PowerCut.dropUnforced(), new SplittableRandom(seed));
    }
    assertTrue(
        image.directories().contains("data/store/wal"),
        "the store's log directory was lost: " + image.directories());
    Path real = tmp.resolve("image");
    image.writeTo(real);
    try (MutableIndex reopened = MutableIndex.open(real.resolve("data/store"), schema, config)) {
      for (Document d : docs) {
        assertEquals(d, reopened.get(d.id()).orElseThrow(), "acknowledged " + d.id());
      }
    }
  }

  /**
   * "fsync fails, then the power is lost" on the snapshot path (issue 70, step 9): the store's
   * directory force fails with EIO, so the snapshot's rename is not durable, and the snapshot must
   * then fail instead of letting the log be trimmed. Before {@code Durable.forceDirectory} reported
   * the failure, two snapshots trimmed the log (the second's roll made the first trim durable)
   * while no snapshot name was durable, and the cut lost the first writes.
   */
  @Test
  void aSnapshotWhoseDirectoryForceFailsKeepsTheLogAcrossACut() throws IOException {
    snapshotsFailThenCut(
        p -> p.getFileName() != null && p.getFileName().toString().equals("store"),
        "aSnapshotWhoseDirectoryForceFailsKeepsTheLogAcrossACut");
  }

  /** The same with the snapshot file's own force failing (the log was never trimmed then). */
  @Test
  void aSnapshotWhoseFileForceFailsKeepsTheLogAcrossACut() throws IOException {
    snapshotsFailThenCut(
        p -> p.getFileName() != null && p.getFileName().toString().endsWith(".tmp"),
        "aSnapshotWhoseFileForceFailsKeepsTheLogAcrossACut");
  }

  /**
   * Writes three batches with a snapshot attempt after each of the first two, while forces of the
   * paths {@code failing} accepts fail; cuts the power with every unforced change dropped, and
   * checks that the reopened store has every acknowledged write.
   */
  private void snapshotsFailThenCut(Predicate<Path> failing, String name) throws IOException {
    long seed = TestSeeds.seed("MutableIndexPowerLossTest." + name);
    SyntheticCorpus corpus =
        new SyntheticCorpus(seed, DIM, SyntheticCorpus.Params.builder().build());
    List<Document> docs = corpus.documents(30);
    Schema schema = new Schema(DIM);
    MutableConfig config = config();
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    CrashImage image;
    int failedSnapshots = 0;
    try (MutableIndex index = MutableIndex.open(fs.resolve("data", "store"), schema, config)) {
      for (int batch = 0; batch < 3; batch++) {
        List<Operation> ops = new ArrayList<>();
        for (Document d : docs.subList(10 * batch, 10 * batch + 10)) {
          ops.add(Operation.put(d));
        }
        assertTrue(index.bulk(ops).stream().noneMatch(r -> r.failed()), "batch " + batch);
        if (batch < 2) {
          fs.failForces(failing);
          try {
            index.flush();
          } catch (IOException expected) {
            failedSnapshots++;
          }
          fs.failForces(p -> false);
        }
      }
      image = fs.crashImage(PowerCut.dropUnforced(), new SplittableRandom(seed));
    }
    Path real = tmp.resolve("image");
    image.writeTo(real);
    try (MutableIndex reopened = MutableIndex.open(real.resolve("data/store"), schema, config)) {
      for (Document d : docs) {
        Document got = reopened.get(d.id()).orElseThrow(() -> new AssertionError("lost " + d.id()));
        assertEquals(d, got, "acknowledged " + d.id());
      }
    }
    assertEquals(2, failedSnapshots, "a snapshot whose force failed reported success");
  }
}
