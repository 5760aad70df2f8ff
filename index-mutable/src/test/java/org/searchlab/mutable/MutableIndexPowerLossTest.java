package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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

  @Test
  void acknowledgedWritesSurviveACutBeforeTheFirstSnapshot() throws IOException {
    long seed =
        TestSeeds.seed(
            "MutableIndexPowerLossTest.acknowledgedWritesSurviveACutBeforeTheFirstSnapshot");
    SyntheticCorpus corpus =
        new SyntheticCorpus(seed, DIM, SyntheticCorpus.Params.builder().build());
    List<Document> docs = corpus.documents(20);
    Schema schema = new Schema(DIM);
    // No snapshot timer: the only directory forces are the open's and the log's own.
    MutableConfig config =
        MutableConfig.builder()
            .hnsw(HnswConfig.builder().efConstruction(16).build())
            .snapshotInterval(Duration.ZERO)
            .build();
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
}
