package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/** Segment counts follow the experimenter's controls: one per batch, and exact force merges. */
class SegmentCountTest {
  private static final Schema SCHEMA = new Schema(32);

  /** Segment per batch, no natural merges, no scheduled refresh: only batches make segments. */
  static final SegmentedConfig ONE_PER_BATCH =
      SegmentedConfig.builder()
          .segmentPerBatch(true)
          .mergePolicy(MergePolicyType.NONE)
          .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
          .build();

  @TempDir Path tmp;

  /** Feeds {@code batches} bulks of {@code perBatch} new documents. */
  static void feedBatches(
      LuceneSegmentedIndex index, SyntheticCorpus corpus, int batches, int perBatch)
      throws IOException {
    for (int b = 0; b < batches; b++) {
      List<Operation> ops = new ArrayList<>();
      for (int i = 0; i < perBatch; i++) {
        ops.add(Operation.put(corpus.document(b * perBatch + i)));
      }
      for (BulkItemResult r : index.bulk(ops)) {
        assertFalse(r.failed(), () -> String.valueOf(r.error()));
      }
    }
  }

  private SyntheticCorpus corpus(String test) {
    return new SyntheticCorpus(TestSeeds.seed(getClass().getSimpleName() + "." + test), 32);
  }

  @Test
  void bBatchesMakeBSegmentsAndForceMergeOneMakesOne() throws IOException {
    SyntheticCorpus corpus = corpus("bBatches");
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(tmp.resolve("idx"), SCHEMA, ONE_PER_BATCH)) {
      int batches = 13;
      feedBatches(index, corpus, batches, 40);
      IndexStats stats = index.stats();
      assertEquals(batches, stats.segmentCount(), "one segment per batch: " + stats.segments());
      for (IndexStats.SegmentStats s : stats.segments()) {
        assertEquals(40, s.docs(), "segment " + s.name());
        assertEquals(0, s.deletedDocs());
        assertTrue(s.bytes() > 0, "segment size of " + s.name());
      }
      assertEquals(batches * 40, stats.docCount());
      assertTrue(stats.counter("refreshes") >= batches, "refreshes " + stats.counters());
      assertTrue(stats.counter("last_refresh_epoch_ms") > 0);
      assertEquals(0, stats.counter("merges_done"), "merge policy none never merges on its own");

      index.forceMerge(1);
      stats = index.stats();
      assertEquals(1, stats.segmentCount());
      assertEquals(batches * 40, stats.segments().get(0).docs());
      assertTrue(stats.counter("merges_done") >= 1);
      assertEquals(0, stats.counter("merges_running"), "force-merge returned: " + stats.counters());
      assertEquals(0, stats.counter("merges_pending"), "force-merge returned: " + stats.counters());
      assertEquals(
          batches * 40,
          index.search(SearchRequest.builder().hits(0).build()).total().value(),
          "every document is still searchable after the merge");
    }
  }

  @Test
  void forceMergeFiveFromTwentyLeavesFive() throws IOException {
    SyntheticCorpus corpus = corpus("forceMergeFive");
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(tmp.resolve("idx"), SCHEMA, ONE_PER_BATCH)) {
      feedBatches(index, corpus, 20, 30);
      assertEquals(20, index.stats().segmentCount());
      index.forceMerge(5);
      IndexStats stats = index.stats();
      assertEquals(5, stats.segmentCount(), "segments " + stats.segments());
      assertEquals(600, stats.docCount());
      // Asking for more segments than there are is a no-op ("at most n").
      index.forceMerge(8);
      assertEquals(5, index.stats().segmentCount());
      assertThrows(InvalidRequestException.class, () -> index.forceMerge(0));
    }
  }

  @Test
  void deletesShowPerSegmentAndSurviveAsDeletedDocs() throws IOException {
    SyntheticCorpus corpus = corpus("deletes");
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(tmp.resolve("idx"), SCHEMA, ONE_PER_BATCH)) {
      feedBatches(index, corpus, 3, 20);
      List<Operation> deletes = new ArrayList<>();
      for (int i = 0; i < 20; i += 2) {
        deletes.add(Operation.delete(corpus.document(i).id()));
      }
      index.bulk(deletes);
      IndexStats stats = index.stats();
      assertEquals(3, stats.segmentCount(), "a batch of deletes makes no segment");
      assertEquals(50, stats.docCount());
      assertEquals(10, stats.deletedDocs());
      assertEquals(10, stats.segments().get(0).deletedDocs());
    }
  }

  @Test
  void tieredPolicyForceMergesExactlyToo() throws IOException {
    // With natural merges on, segments are merged away as batches come; force-merge still lands
    // exactly on the requested count when there are more.
    SyntheticCorpus corpus = corpus("tiered");
    SegmentedConfig c =
        SegmentedConfig.builder()
            .segmentPerBatch(true)
            .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
            .segmentsPerTier(50)
            .maxMergeAtOnce(50)
            .build();
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(tmp.resolve("idx"), SCHEMA, c)) {
      feedBatches(index, corpus, 12, 10);
      int before = index.stats().segmentCount();
      assertTrue(before > 3, "segments before " + before);
      index.forceMerge(3);
      assertEquals(3, index.stats().segmentCount());
    }
  }

  @Test
  void documentValidationLuceneWouldRefuse() throws IOException {
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(tmp.resolve("idx"), SCHEMA, ONE_PER_BATCH)) {
      Document ok = corpus("validation").document(0);
      String huge = "x".repeat(40_000);
      Document bad = new Document("big", "", "", huge, 0, 0, ok.embedding());
      InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> index.put(bad));
      assertTrue(e.getMessage().contains("32766"), e.getMessage());
      assertTrue(index.get("big").isEmpty());
      assertEquals(0, index.stats().lastSerial(), "nothing was logged");
    }
  }
}
