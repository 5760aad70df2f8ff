package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;
import org.searchlab.testing.disk.CrashImage;
import org.searchlab.testing.disk.DiskModel;
import org.searchlab.testing.disk.ForgetfulFileSystem;
import org.searchlab.testing.disk.PowerCut;

/**
 * The segmented store on a disk that forgets (issue 70, design note step 8): Lucene's directory
 * works on a file system other than the default one, so the store opens, writes, commits and
 * recovers there, and a power cut after a commit keeps the commit and every acknowledged write the
 * log holds after it.
 */
class SegmentedPowerLossTest {
  private static final int DIM = 8;

  @TempDir Path tmp;

  @Test
  void luceneMemoryMapsOnlyOnTheDefaultFileSystem() throws IOException {
    try (FSDirectory onDisk = SegmentedOpener.luceneDirectory(tmp.resolve("real"))) {
      assertInstanceOf(MMapDirectory.class, onDisk, "production keeps FSDirectory.open");
    }
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    try (FSDirectory forgetful = SegmentedOpener.luceneDirectory(fs.resolve("index"))) {
      assertInstanceOf(NIOFSDirectory.class, forgetful);
    }
  }

  @Test
  void opensCommitsAndRecoversOnAForgetfulDisk() throws IOException {
    long seed = TestSeeds.seed("SegmentedPowerLossTest.opensCommitsAndRecoversOnAForgetfulDisk");
    SyntheticCorpus corpus = new SyntheticCorpus(seed, DIM);
    List<Document> docs = corpus.documents(60);
    Schema schema = new Schema(DIM);
    SegmentedConfig config = explicitCommitsOnly();
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    CrashImage image;
    LuceneSegmentedIndex index = LuceneSegmentedIndex.open(fs.resolve("store"), schema, config);
    Document updated;
    long lastAcknowledged;
    try {
      for (Document d : docs.subList(0, 40)) {
        index.put(d);
      }
      index.refresh(); // reads the new segment back through the forgetful file system
      assertEquals(40, index.search(SearchRequest.builder().hits(0).build()).total().value());
      index.flush(); // a Lucene commit and a log trim
      for (Document d : docs.subList(40, 60)) {
        index.put(d);
      }
      updated = PartialUpdate.of(docs.get(0).id()).withPrice(4242).applyTo(docs.get(0));
      index.update(PartialUpdate.of(docs.get(0).id()).withPrice(4242));
      lastAcknowledged = index.delete(docs.get(1).id()).serial();
      image = fs.powerCut(PowerCut.dropUnforced(), new SplittableRandom(seed));
    } finally {
      closeAfterTheCut(index);
    }
    assertTrue(
        image.fileNames().stream().anyMatch(n -> n.startsWith("store/index/segments_")),
        "the commit is not in the image: " + image);

    // Reopened on a forgetful disk again: recovery replays the log and commits through it.
    Path real = tmp.resolve("image");
    image.writeTo(real);
    ForgetfulFileSystem again = ForgetfulFileSystem.over(real, DiskModel.Options.DEFAULT);
    try (LuceneSegmentedIndex reopened =
        LuceneSegmentedIndex.open(again.resolve("store"), schema, config)) {
      assertEquals(updated, reopened.get(docs.get(0).id()).orElseThrow(), "acknowledged update");
      assertFalse(reopened.get(docs.get(1).id()).isPresent(), "acknowledged delete");
      for (Document d : docs.subList(2, 60)) {
        assertEquals(d, reopened.get(d.id()).orElseThrow(), "acknowledged " + d.id());
      }
      reopened.refresh();
      assertEquals(59, reopened.search(SearchRequest.builder().hits(0).build()).total().value());
      assertTrue(
          reopened.stats().flushedSerial() >= lastAcknowledged,
          "recovery committed what it replayed: " + reopened.stats().flushedSerial());
    }
  }

  /**
   * "fsync fails, then the power is lost" on the commit path (issue 70, step 9): while every force
   * of a file in Lucene's {@code index/} fails with EIO, a flush must fail before the log is
   * trimmed; after a cut that drops everything unforced, the reopened store has every write that
   * was acknowledged, before and after the failed commit.
   */
  @Test
  void aCommitWhoseFileForceFailsKeepsTheLogAcrossACut() throws IOException {
    long seed = TestSeeds.seed("SegmentedPowerLossTest.aCommitWhoseFileForceFailsKeepsTheLog");
    List<Document> docs = new SyntheticCorpus(seed, DIM).documents(40);
    Schema schema = new Schema(DIM);
    SegmentedConfig config = explicitCommitsOnly();
    ForgetfulFileSystem fs =
        ForgetfulFileSystem.over(tmp.resolve("disk"), DiskModel.Options.DEFAULT);
    List<Document> acked = new ArrayList<>();
    CrashImage image;
    LuceneSegmentedIndex index = LuceneSegmentedIndex.open(fs.resolve("store"), schema, config);
    try {
      for (Document d : docs.subList(0, 20)) {
        index.put(d);
        acked.add(d);
      }
      fs.failForces(
          p -> p.getParent() != null && p.getParent().getFileName().toString().equals("index"));
      assertThrows(IOException.class, index::flush, "a commit whose fsync failed succeeded");
      fs.failForces(p -> false);
      for (Document d : docs.subList(20, 40)) {
        try {
          index.put(d);
          acked.add(d);
        } catch (IOException refused) {
          // a store that stops after a failed commit acknowledges nothing more: fine
        }
      }
      image = fs.powerCut(PowerCut.dropUnforced(), new SplittableRandom(seed));
    } finally {
      closeAfterTheCut(index);
    }
    Path real = tmp.resolve("image");
    image.writeTo(real);
    try (LuceneSegmentedIndex reopened =
        LuceneSegmentedIndex.open(real.resolve("store"), schema, config)) {
      for (Document d : acked) {
        Document got = reopened.get(d.id()).orElseThrow(() -> new AssertionError("lost " + d.id()));
        assertEquals(d, got, "acknowledged " + d.id());
      }
    }
  }

  /** No background commit or refresh: the only commits are a test's explicit flushes. */
  private static SegmentedConfig explicitCommitsOnly() {
    return SegmentedConfig.builder()
        .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
        .flushIdleMs(SegmentedConfig.IDLE_FLUSH_DISABLED)
        .build();
  }

  /** Closes a store whose disk died: every file operation throws, closing only releases. */
  private static void closeAfterTheCut(LuceneSegmentedIndex index) {
    try {
      index.close();
    } catch (IOException | RuntimeException expected) {
      // The disk is gone; what matters is the image.
    }
  }
}
