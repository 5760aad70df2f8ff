package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.IndexStats;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The store's merge, refresh and flush accounting ({@link CountingMergeScheduler}, {@link
 * WrittenSegments}, {@link SegmentedStats}) against merges whose inputs and output are known
 * exactly, and its invariants under background merges.
 */
class MergeStatsTest {
  private static final Schema SCHEMA = new Schema(32);

  /** The counters that only grow over the store's life. */
  private static final List<String> CUMULATIVE =
      List.of(
          "refreshes",
          "refresh_time_ms",
          "flushes",
          "flush_time_ms",
          "flush_time_excluding_lock_ms",
          "merges_done",
          "merges_time_ms",
          "merges_docs",
          "merges_input_bytes",
          "merges_input_segments",
          "merges_stopped_ms",
          "merges_throttled_ms",
          "merges_cpu_ms",
          "merges_written_segments",
          "merges_written_bytes",
          "flushed_segments",
          "flushed_segment_bytes",
          "wal_written_bytes",
          "index_written_bytes",
          "index_written_page_bytes",
          "index_written_files",
          "index_written_merge_bytes",
          "index_written_merge_page_bytes",
          "index_written_temp_bytes");

  @TempDir Path tmp;

  private static SyntheticCorpus corpus(String test) {
    return new SyntheticCorpus(TestSeeds.seed("MergeStatsTest." + test), 32);
  }

  /** Asserts that no cumulative counter went down from {@code before} to {@code after}. */
  private static void assertMonotone(IndexStats before, IndexStats after) {
    for (String c : CUMULATIVE) {
      if (c.equals("merges_cpu_ms") && !CountingMergeScheduler.measuresCpu()) {
        continue;
      }
      assertTrue(after.counters().containsKey(c), "the store reports " + c);
      assertTrue(
          after.counter(c) >= before.counter(c),
          c + " went from " + before.counter(c) + " to " + after.counter(c));
    }
  }

  /** One bulk of the new documents {@code from} to {@code from + n - 1}: one segment. */
  private static void bulk(LuceneSegmentedIndex index, SyntheticCorpus corpus, int from, int n)
      throws IOException {
    List<Operation> ops = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      ops.add(Operation.put(corpus.document(i)));
    }
    for (BulkItemResult r : index.bulk(ops)) {
      assertFalse(r.failed(), () -> String.valueOf(r.error()));
    }
  }

  private static long sum(List<IndexStats.SegmentStats> segments, boolean bytes) {
    long n = 0;
    for (IndexStats.SegmentStats s : segments) {
      n += bytes ? s.bytes() : s.docs();
    }
    return n;
  }

  @Test
  void oneForcedMergeOfKnownSegmentsIsCountedExactly() throws IOException {
    SyntheticCorpus corpus = corpus("exact");
    int batches = 5;
    int perBatch = 150;
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(tmp.resolve("idx"), SCHEMA, SegmentCountTest.ONE_PER_BATCH)) {
      IndexStats previous = index.stats();
      assertEquals(0, previous.counter("flushed_segments"));
      assertEquals(0, previous.counter("committed_segments"), "a new index has no commit");
      for (int b = 0; b < batches; b++) {
        // One bulk of a known batch: one refresh, one flushed segment.
        bulk(index, corpus, b * perBatch, perBatch);
        IndexStats now = index.stats();
        assertMonotone(previous, now);
        assertEquals(b + 1, now.counter("flushed_segments"), now.counters().toString());
        assertEquals(b + 1, now.segmentCount());
        assertEquals(
            sum(now.segments(), true),
            now.counter("flushed_segment_bytes"),
            "every flushed segment is searchable, undeleted: " + now.segments());
        assertEquals(
            0,
            now.counter("index_written_merge_bytes"),
            "no merge yet; a flush's temporary files are not a merge's: " + now.counters());
        // Nothing trimmed the log yet: what it appended is what it holds.
        assertEquals(now.walBytes(), now.counter("wal_written_bytes"));
        // A flush writes its segment's files, and, for a compound segment, the parts it packs.
        assertTrue(
            now.counter("index_written_bytes") >= now.counter("flushed_segment_bytes"),
            now.counters().toString());
        assertTrue(
            now.counter("index_written_page_bytes") >= now.counter("index_written_bytes")
                && now.counter("index_written_page_bytes")
                    < now.counter("index_written_bytes")
                        + now.counter("index_written_files") * CountingDirectory.PAGE,
            "each file rounded up to whole pages: " + now.counters());
        previous = now;
      }
      assertTrue(previous.counter("refresh_time_ms") > 0, previous.counters().toString());
      assertEquals(0, previous.counter("merges_done"), "policy none merges nothing by itself");
      for (IndexStats.SegmentStats s : previous.segments()) {
        assertFalse(s.committed(), s.name() + " before any commit");
        assertFalse(s.version().isEmpty(), s.name() + " has Lucene's version");
      }

      index.flush();
      IndexStats committed = index.stats();
      assertMonotone(previous, committed);
      assertEquals(1, committed.counter("flushes"));
      assertTrue(committed.counter("flush_time_ms") > 0, "a commit syncs files");
      assertTrue(
          committed.counter("flush_time_ms") >= committed.counter("flush_time_excluding_lock_ms"));
      assertEquals(batches, committed.counter("committed_segments"));
      assertTrue(committed.segments().stream().allMatch(IndexStats.SegmentStats::committed));

      // The inputs, read before the merge, as _segments reports them.
      long inputDocs = sum(committed.segments(), false);
      long inputBytes = sum(committed.segments(), true);
      long flushedBytes = committed.counter("flushed_segment_bytes");
      index.forceMerge(1);
      IndexStats merged = index.stats();
      assertMonotone(committed, merged);
      Map<String, Long> c = merged.counters();
      assertEquals(1, merged.segmentCount());
      IndexStats.SegmentStats out = merged.segments().get(0);
      assertEquals(1, c.get("merges_done"), "one merge of five small segments: " + c);
      assertEquals(batches * perBatch, inputDocs);
      assertEquals(inputDocs, c.get("merges_docs"), "total_docs: the inputs' documents");
      assertEquals(inputBytes, c.get("merges_input_bytes"), "total_size_in_bytes: the inputs'");
      assertEquals(batches, c.get("merges_input_segments"));
      assertEquals(1, c.get("merges_written_segments"));
      assertEquals(out.bytes(), c.get("merges_written_bytes"), "the merged segment as written");
      // The merge wrote the merged segment's files (and any temporary ones), and nothing else
      // wrote.
      assertTrue(c.get("index_written_merge_bytes") >= c.get("merges_written_bytes"), c.toString());
      assertEquals(
          c.get("index_written_bytes") - committed.counter("index_written_bytes"),
          c.get("index_written_merge_bytes"),
          "nothing but the merge wrote: " + c);
      assertEquals(flushedBytes, c.get("flushed_segment_bytes"), "a merge flushes nothing");
      assertEquals(batches, c.get("flushed_segments"));
      assertTrue(c.get("merges_time_ms") > 0, c.toString());
      if (CountingMergeScheduler.measuresCpu()) {
        assertTrue(c.get("merges_cpu_ms") > 0, c.toString());
      }
      assertEquals(0, c.get("merges_running"));
      assertEquals(0, c.get("merges_running_docs"));
      assertEquals(0, c.get("merges_running_bytes"));
      assertEquals(0, c.get("merges_throttled_ms"), "auto-throttle is off: nothing throttles");
      assertEquals(Long.MAX_VALUE, c.get("merges_auto_throttle_bytes_per_sec"));
      assertFalse(out.committed(), "the merged segment is not in the last commit yet");
      assertEquals(batches, c.get("committed_segments"), "the last commit still holds the inputs");

      index.flush();
      IndexStats after = index.stats();
      assertMonotone(merged, after);
      assertEquals(1, after.counter("committed_segments"));
      assertTrue(after.segments().get(0).committed());
    }
  }

  @Test
  void backgroundMergesKeepTheInvariants() throws Exception {
    SyntheticCorpus corpus = corpus("tiered");
    SegmentedConfig tiered =
        SegmentedConfig.builder()
            .segmentPerBatch(true)
            .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
            .segmentsPerTier(2)
            .maxMergeAtOnce(2)
            .mergeThreads(2)
            .build();
    int batches = 24;
    int perBatch = 20;
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(tmp.resolve("idx"), SCHEMA, tiered)) {
      IndexStats previous = index.stats();
      for (int b = 0; b < batches; b++) {
        bulk(index, corpus, b * perBatch, perBatch);
        IndexStats now = index.stats();
        assertMonotone(previous, now);
        assertTrue(now.counter("merges_running") >= 0 && now.counter("merges_running_docs") >= 0);
        previous = now;
      }
      IndexStats s = settle(index, previous);
      Map<String, Long> c = s.counters();
      assertTrue(c.get("merges_done") > 0, "tiered with two segments a tier merges: " + c);
      assertEquals(0, c.get("merges_running"), "current returns to 0");
      assertEquals(0, c.get("merges_running_docs"));
      assertEquals(0, c.get("merges_running_bytes"));
      assertEquals(batches, c.get("flushed_segments"));
      assertEquals(c.get("merges_done"), c.get("merges_written_segments"), "each merge wrote one");
      // Nothing was deleted, so no segment was dropped: every segment written and not merged away
      // is searchable.
      assertEquals(
          c.get("flushed_segments") + c.get("merges_written_segments"),
          s.segmentCount() + c.get("merges_input_segments"),
          "segments written = segments searchable + segments merged away: " + c);
      assertEquals(batches * perBatch, sum(s.segments(), false));
      assertTrue(c.get("merges_docs") >= c.get("merges_input_segments"));
      assertTrue(c.get("merges_input_bytes") > 0 && c.get("merges_written_bytes") > 0);
    }
  }

  /**
   * The stats once the merges the feed started are done and a refresh shows their segments: read
   * again until no merge ended between the settled read and the refreshed one (a merge can leave
   * the pending list a moment before it counts as running). The bound is on waiting, not a timing
   * assertion.
   */
  private static IndexStats settle(LuceneSegmentedIndex index, IndexStats previous)
      throws Exception {
    for (int i = 0; i < 6000; i++) {
      IndexStats before = index.stats();
      assertMonotone(previous, before);
      previous = before;
      if (!isSettled(before)) {
        Thread.sleep(10);
        continue;
      }
      index.refresh(); // see the merged segments
      IndexStats after = index.stats();
      assertMonotone(before, after);
      if (isSettled(after) && after.counter("merges_done") == before.counter("merges_done")) {
        return after;
      }
      previous = after;
    }
    throw new AssertionError("merges still running: " + previous.counters());
  }

  private static boolean isSettled(IndexStats s) {
    return s.counter("merges_running") == 0 && s.counter("merges_pending") == 0;
  }
}
