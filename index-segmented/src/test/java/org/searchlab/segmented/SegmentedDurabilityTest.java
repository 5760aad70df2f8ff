package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The segmented store's durability limits: a schema Lucene cannot index is refused before anything
 * is written, the log stays bounded without explicit flushes, and a clean close leaves nothing to
 * replay.
 */
class SegmentedDurabilityTest {
  @TempDir Path tmp;

  @Tag("restart")
  @Test
  void aDimensionAboveLucenesLimitIsRefusedAtOpenAndTheDirectoryStaysUsable() throws IOException {
    Path dir = tmp.resolve("idx");
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class,
            () -> LuceneSegmentedIndex.open(dir, new Schema(1536), SegmentedConfig.DEFAULT));
    assertTrue(e.getMessage().contains("1536") && e.getMessage().contains("1024"), e.getMessage());
    assertFalse(Files.exists(dir.resolve("wal")), "nothing was created");
    SyntheticCorpus corpus = new SyntheticCorpus(TestSeeds.seed("SegmentedDurability.dims"), 1024);
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(dir, new Schema(1024), SegmentedConfig.DEFAULT)) {
      index.put(corpus.document(0));
    }
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(dir, new Schema(1024), SegmentedConfig.DEFAULT)) {
      assertEquals(corpus.document(0), index.get("doc-0").orElseThrow());
    }
  }

  @Tag("restart")
  @Test
  void theLogStaysUnderTheFlushThresholdWithoutFlushesAndACloseLeavesNothingToReplay()
      throws IOException {
    Path dir = tmp.resolve("idx");
    long threshold = 1 << 20;
    SegmentedConfig config =
        SegmentedConfig.builder()
            .flushThresholdBytes(threshold)
            .wal(WalConfig.builder().fileBytes(1 << 20).build())
            .build();
    SyntheticCorpus corpus = new SyntheticCorpus(TestSeeds.seed("SegmentedDurability.size"), 64);
    long maxWal = 0;
    int docs = 12_000;
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, new Schema(64), config)) {
      for (int from = 0; from < docs; from += 200) {
        List<Operation> ops = new ArrayList<>();
        for (int i = from; i < from + 200; i++) {
          ops.add(Operation.put(corpus.document(i)));
        }
        index.bulk(ops);
        maxWal = Math.max(maxWal, index.stats().walBytes());
      }
      IndexStats s = index.stats();
      assertTrue(s.counter("size_flushes") >= 2, "commits by size: " + s.counters());
      // The log since the last commit, plus the file holding the commit point, plus one bulk.
      assertTrue(maxWal < threshold + (1 << 20) + 200 * 1024, "WAL peaked at " + maxWal);
    }
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, new Schema(64), config)) {
      IndexStats s = index.stats();
      assertEquals(0, s.counter("replayed_operations"), "the close committed everything");
      assertEquals(docs, s.docCount());
      assertEquals(s.lastSerial(), s.flushedSerial());
      Document d = corpus.document(docs - 1);
      assertEquals(d, index.get(d.id()).orElseThrow());
    }
  }

  /**
   * A crash before the size threshold: the restart replays, then commits, so the next one does not.
   */
  @Tag("restart")
  @Test
  void aRestartThatReplayedCommitsSoTheNextCrashReplaysNothingAgain() throws IOException {
    SyntheticCorpus corpus = new SyntheticCorpus(TestSeeds.seed("SegmentedDurability.replay"), 16);
    Path dir = tmp.resolve("idx");
    Path crash1 = tmp.resolve("crash1");
    Path crash2 = tmp.resolve("crash2");
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, new Schema(16))) {
      for (int i = 0; i < 300; i++) {
        index.put(corpus.document(i));
      }
      copyTree(dir, crash1); // the directory as a SIGKILL leaves it: nothing committed
    }
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(crash1, new Schema(16))) {
      IndexStats s = index.stats();
      assertEquals(300, s.counter("replayed_operations"));
      assertEquals(s.lastSerial(), s.flushedSerial(), "committed after the replay");
      copyTree(crash1, crash2); // killed again at once
      // Merges are held for a moment after a replay, then released by the refresh thread.
      assertEquals(0, awaitCounter(index, "merges_held", v -> v == 0), "released after the replay");
    }
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(crash2, new Schema(16))) {
      assertEquals(0, index.stats().counter("replayed_operations"));
      assertEquals(0, index.stats().counter("merges_held"), "nothing replayed, nothing held");
      assertEquals(300, index.stats().docCount());
    }
  }

  /**
   * A store that was fed and then went quiet commits by itself (Elasticsearch's flush of an
   * inactive shard), so a crash after that replays nothing, as after an explicit flush; while
   * nothing new is written it does not commit again.
   */
  @Tag("restart")
  @Test
  void aStoreThatGoesIdleCommitsSoACrashAfterThatReplaysNothing() throws IOException {
    SyntheticCorpus corpus = new SyntheticCorpus(TestSeeds.seed("SegmentedDurability.idle"), 16);
    Path dir = tmp.resolve("idx");
    Path crashed = tmp.resolve("crashed");
    SegmentedConfig config = SegmentedConfig.builder().flushIdleMs(200).build();
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, new Schema(16), config)) {
      List<Operation> ops = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        ops.add(Operation.put(corpus.document(i)));
      }
      index.bulk(ops);
      index.delete("doc-7");
      IndexStats fed = index.stats();
      assertTrue(fed.walBytes() > 0 && fed.flushedSerial() < fed.lastSerial(), fed.toString());
      awaitCounter(index, "idle_flushes", v -> v > 0); // 200-250 ms after the last write
      IndexStats idle = index.stats();
      assertEquals(1, idle.counter("idle_flushes"), idle.counters().toString());
      assertEquals(idle.lastSerial(), idle.flushedSerial(), "the commit covers every write");
      LockSupport.parkNanos(500_000_000L); // two idle times more, nothing written
      assertEquals(1, index.stats().counter("idle_flushes"), "nothing new, no second commit");
      copyTree(dir, crashed); // the directory as a SIGKILL leaves it
    }
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(crashed, new Schema(16))) {
      assertEquals(0, index.stats().counter("replayed_operations"));
      assertEquals(299, index.stats().docCount());
      assertEquals(corpus.document(8), index.get("doc-8").orElseThrow());
      assertFalse(index.get("doc-7").isPresent());
    }
  }

  /**
   * A flush reads the log's last serial S, then commits while writes go on, so the commit may hold
   * a create logged after S. The restart replays that create over a commit that already has its
   * document: it must apply it once more (the log keeps it as a plain put), not refuse it as a
   * conflict and fail to open.
   */
  @Tag("restart")
  @Test
  void aLoggedCreateThatTheCommitAlreadyHoldsIsReplayedAndTheStoreOpens() throws IOException {
    SyntheticCorpus corpus = new SyntheticCorpus(TestSeeds.seed("SegmentedDurability.create"), 16);
    Path dir = tmp.resolve("idx");
    Path crashed = tmp.resolve("crashed");
    Document doc = corpus.document(0);
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, new Schema(16))) {
      index.create(doc);
      copyTree(dir, crashed); // logged as serial 1, nothing committed
    }
    // The commit the race leaves: the create's document, under a serial that does not cover it.
    try (IndexWriter w =
        new IndexWriter(
            FSDirectory.open(crashed.resolve("index")),
            new IndexWriterConfig(TextAnalysis.analyzer())
                .setOpenMode(IndexWriterConfig.OpenMode.CREATE))) {
      w.addDocument(LuceneMapping.toLucene(doc));
      w.setLiveCommitData(SegmentedOpener.commitData(0));
      w.commit();
    }
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(crashed, new Schema(16))) {
      assertEquals(1, index.stats().counter("replayed_operations"));
      assertEquals(1, index.stats().docCount(), "replaced, not added twice");
      assertEquals(doc, index.get(doc.id()).orElseThrow());
    }
  }

  /**
   * Polls a stats counter until {@code done} holds, for at most a minute (a liveness bound, not a
   * timing claim); returns its last value.
   */
  private static long awaitCounter(
      LuceneSegmentedIndex index, String counter, java.util.function.LongPredicate done)
      throws IOException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    long v = index.stats().counter(counter);
    while (!done.test(v) && System.nanoTime() < deadline) {
      LockSupport.parkNanos(10_000_000L);
      v = index.stats().counter(counter);
    }
    return v;
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (var paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        Files.copy(p, to.resolve(from.relativize(p).toString()));
      }
    }
  }
}
