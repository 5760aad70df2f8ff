package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.searchlab.core.IndexStats;
import org.searchlab.core.Schema;
import org.searchlab.segmented.LuceneSegmentedIndex;
import org.searchlab.segmented.MergePolicyType;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The merge, refresh, flush and segment figures over HTTP: {@code _stats} sections and {@code
 * _segments} in Elasticsearch 8's field names, their values equal to the store's own counters
 * ({@code /_admin/stats}) and to merges known exactly (policy none, three bulks of one segment
 * each, one forced merge); the mutable store still answers both.
 */
class MergeStatsApiTest {
  /** Elasticsearch 8's {@code MergeStats} fields, in its order. */
  static final List<String> MERGES =
      List.of(
          "current",
          "current_docs",
          "current_size_in_bytes",
          "total",
          "total_time_in_millis",
          "total_docs",
          "total_size_in_bytes",
          "total_stopped_time_in_millis",
          "total_throttled_time_in_millis",
          "total_auto_throttle_in_bytes");

  static final List<String> REFRESH =
      List.of(
          "total",
          "total_time_in_millis",
          "external_total",
          "external_total_time_in_millis",
          "listeners");

  static final List<String> FLUSH =
      List.of(
          "total",
          "periodic",
          "total_time_in_millis",
          "total_time_excluding_waiting_on_lock_in_millis");

  /** The fields of a segment in {@code _segments} (Elasticsearch 8, without merge_id and sort). */
  static final Set<String> SEGMENT =
      Set.of(
          "generation",
          "num_docs",
          "deleted_docs",
          "size_in_bytes",
          "committed",
          "search",
          "version",
          "compound",
          "attributes");

  private static JsonNode ok(ServerFixture.Response r) {
    assertEquals(200, r.status(), r.body());
    return r.json();
  }

  private static List<String> keys(JsonNode o) {
    List<String> k = new ArrayList<>();
    o.fieldNames().forEachRemaining(k::add);
    return k;
  }

  private static JsonNode shard(JsonNode segments) {
    return segments.path("indices").path("product").path("shards").path("0").path(0);
  }

  private static JsonNode primaries(ServerFixture f) throws Exception {
    return ok(f.send("GET", "/product/_stats", (String) null))
        .path("indices")
        .path("product")
        .path("primaries");
  }

  private static JsonNode counters(ServerFixture f) throws Exception {
    return ok(f.send("GET", "/_admin/stats", (String) null)).path("counters");
  }

  /**
   * Checks one shard of {@code _segments} against Elasticsearch's fields and against the store's
   * own segment list; returns the segments' summed documents (live and deleted) and bytes.
   */
  private static long[] checkSegments(JsonNode shard, IndexStats st, String node) {
    assertEquals(
        List.of("routing", "num_committed_segments", "num_search_segments", "segments"),
        keys(shard),
        shard.toString());
    assertEquals("STARTED", shard.path("routing").path("state").asText());
    assertTrue(shard.path("routing").path("primary").asBoolean());
    assertEquals(node, shard.path("routing").path("node").asText());
    assertEquals(st.segmentCount(), shard.path("num_search_segments").asInt());
    assertEquals(
        st.counter("committed_segments"), shard.path("num_committed_segments").asLong(), "" + st);
    JsonNode segs = shard.path("segments");
    assertEquals(st.segmentCount(), segs.size());
    long docs = 0;
    long bytes = 0;
    long lastGeneration = -1;
    for (Iterator<Map.Entry<String, JsonNode>> it = segs.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode seg = e.getValue();
      assertTrue(e.getKey().matches("_[0-9a-z]+"), e.getKey());
      assertTrue(SEGMENT.containsAll(keys(seg)), e.getKey() + ": " + seg);
      assertTrue(keys(seg).containsAll(List.of("version", "compound")), "a Lucene segment");
      long generation = Long.parseLong(e.getKey().substring(1), Character.MAX_RADIX);
      assertEquals(generation, seg.path("generation").asLong());
      assertTrue(generation > lastGeneration, "sorted by generation: " + segs);
      lastGeneration = generation;
      IndexStats.SegmentStats own =
          st.segments().stream().filter(s -> s.name().equals(e.getKey())).findFirst().orElseThrow();
      assertEquals(own.docs() - own.deletedDocs(), seg.path("num_docs").asInt(), "live docs");
      assertEquals(own.deletedDocs(), seg.path("deleted_docs").asInt());
      assertEquals(own.bytes(), seg.path("size_in_bytes").asLong());
      assertEquals(own.committed(), seg.path("committed").asBoolean());
      assertTrue(seg.path("search").asBoolean());
      assertEquals(own.version(), seg.path("version").asText());
      assertEquals(own.compound(), seg.path("compound").asBoolean());
      docs += own.docs();
      bytes += own.bytes();
    }
    return new long[] {docs, bytes};
  }

  @Test
  void segmentedStoreReportsMergesAsElasticsearchDoes() throws Exception {
    Path dir = Files.createTempDirectory("merge-stats");
    SegmentedConfig config =
        SegmentedConfig.builder()
            .segmentPerBatch(true)
            .mergePolicy(MergePolicyType.NONE)
            .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
            .build();
    LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(dir, new Schema(ServerFixture.DIMS), config);
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("MergeStatsApiTest"), ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.serve(dir, index)) {
      String node =
          ok(f.send("GET", "/_cluster/state/master_node", (String) null))
              .path("master_node")
              .asText();
      f.load(corpus, 300, 100); // three bulks: three segments, none committed
      JsonNode segs = ok(f.send("GET", "/product/_segments", (String) null));
      assertEquals(List.of("_shards", "indices"), keys(segs));
      assertEquals(1, segs.path("_shards").path("successful").asInt());
      checkSegments(shard(segs), index.stats(), node);
      assertEquals(3, shard(segs).path("num_search_segments").asInt());
      assertEquals(0, shard(segs).path("num_committed_segments").asInt());

      ok(f.send("POST", "/product/_flush", (String) null));
      segs = ok(f.send("GET", "/product/_segments", (String) null));
      long[] inputs = checkSegments(shard(segs), index.stats(), node);
      assertEquals(3, shard(segs).path("num_committed_segments").asInt(), segs.toString());
      assertEquals(300, inputs[0]);

      JsonNode p = primaries(f);
      assertEquals(MERGES, keys(p.path("merges")), p.toString());
      assertEquals(REFRESH, keys(p.path("refresh")));
      assertEquals(FLUSH, keys(p.path("flush")));
      assertEquals(
          List.of("count", "index_writer_memory_in_bytes", "version_map_memory_in_bytes"),
          keys(p.path("segments")));
      JsonNode c = counters(f);
      assertEquals(0, p.path("merges").path("total").asLong(), "policy none: no merge yet");
      assertEquals(1, p.path("flush").path("total").asLong());
      assertEquals(c.path("flushes").asLong(), p.path("flush").path("total").asLong());
      assertEquals(
          c.path("flush_time_ms").asLong(), p.path("flush").path("total_time_in_millis").asLong());
      assertEquals(c.path("refreshes").asLong(), p.path("refresh").path("total").asLong());
      assertTrue(p.path("refresh").path("total").asLong() >= 3, "a refresh per bulk at least");
      assertEquals(
          c.path("refresh_time_ms").asLong(),
          p.path("refresh").path("total_time_in_millis").asLong());
      assertEquals(p.path("refresh").path("total"), p.path("refresh").path("external_total"));
      assertEquals(0, p.path("refresh").path("listeners").asInt());
      assertEquals(3, c.path("flushed_segments").asLong());
      assertEquals(inputs[1], c.path("flushed_segment_bytes").asLong(), "the three as flushed");

      ok(f.send("POST", "/product/_forcemerge?max_num_segments=1", (String) null));
      p = primaries(f);
      c = counters(f);
      JsonNode m = p.path("merges");
      assertEquals(1, m.path("total").asLong(), m.toString());
      assertEquals(c.path("merges_done").asLong(), m.path("total").asLong());
      assertEquals(inputs[0], m.path("total_docs").asLong(), "the inputs' documents");
      assertEquals(inputs[1], m.path("total_size_in_bytes").asLong(), "the inputs' bytes");
      assertEquals(c.path("merges_time_ms").asLong(), m.path("total_time_in_millis").asLong());
      assertEquals(
          c.path("merges_stopped_ms").asLong(), m.path("total_stopped_time_in_millis").asLong());
      assertEquals(
          c.path("merges_throttled_ms").asLong(),
          m.path("total_throttled_time_in_millis").asLong());
      assertEquals(Long.MAX_VALUE, m.path("total_auto_throttle_in_bytes").asLong(), "no limit");
      for (String current : List.of("current", "current_docs", "current_size_in_bytes")) {
        assertEquals(0, m.path(current).asLong(), current + " after the merge returned");
      }
      segs = ok(f.send("GET", "/product/_segments", (String) null));
      long[] merged = checkSegments(shard(segs), index.stats(), node);
      assertEquals(1, shard(segs).path("num_search_segments").asInt());
      assertEquals(
          1,
          shard(segs).path("num_committed_segments").asInt(),
          "flush=true, the default, committed the merged segment");
      assertEquals(merged[1], c.path("merges_written_bytes").asLong(), "the merged segment");
      assertEquals(1, c.path("merges_written_segments").asLong());
      assertEquals(3, c.path("merges_input_segments").asLong());
      assertTrue(c.has("merges_cpu_ms") && c.has("merges_running_docs"), c.toString());
      assertEquals(1, p.path("segments").path("count").asInt());

      // Every index; an unknown one is Elasticsearch's 404.
      assertEquals(
          1,
          shard(ok(f.send("GET", "/_segments", (String) null)))
              .path("num_search_segments")
              .asInt());
      ServerFixture.Response missing = f.send("GET", "/nosuch/_segments", (String) null);
      assertEquals(404, missing.status(), missing.body());
      assertEquals("index_not_found_exception", missing.json().path("error").path("type").asText());
      assertTrue(missing.json().path("error").path("reason").asText().contains("nosuch"));
      assertEquals(405, f.send("POST", "/product/_segments", (String) null).status());
      ServerFixture.Response bogus = f.send("GET", "/product/_segments?colour=blue", (String) null);
      assertEquals(400, bogus.status(), bogus.body());
      assertTrue(bogus.body().contains("colour"), bogus.body());
      assertEquals(400, f.send("GET", "/product/_segments/x", (String) null).status());
    }
  }

  @Test
  void mutableStoreAnswersWithOneWholeSegment() throws Exception {
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("MergeStatsApiTest.mutable"), ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.start(TestStore.MUTABLE)) {
      f.load(corpus, 50, 50);
      JsonNode shard = shard(ok(f.send("GET", "/product/_segments", (String) null)));
      assertEquals(1, shard.path("num_search_segments").asInt(), shard.toString());
      JsonNode seg = shard.path("segments").path("_0");
      assertEquals(
          new TreeSet<>(
              List.of(
                  "generation",
                  "num_docs",
                  "deleted_docs",
                  "size_in_bytes",
                  "committed",
                  "search")),
          new TreeSet<>(keys(seg)),
          "no Lucene facts for a store without Lucene: " + seg);
      assertEquals(0, seg.path("generation").asInt());
      assertEquals(50, seg.path("num_docs").asInt());
      assertTrue(seg.path("search").asBoolean());

      JsonNode p = primaries(f);
      assertEquals(REFRESH, keys(p.path("refresh")), "a refresh section, as before");
      assertFalse(p.has("merges"), "the mutable store does not merge");
      assertFalse(p.has("flush"), "nor count commits");
      assertEquals(List.of("count"), keys(p.path("segments")));
      assertEquals(1, p.path("segments").path("count").asInt());
    }
  }
}
