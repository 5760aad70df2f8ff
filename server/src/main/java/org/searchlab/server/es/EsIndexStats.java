package org.searchlab.server.es;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.searchlab.core.IndexStats;
import org.searchlab.core.StoreHealth;
import org.searchlab.server.Json;
import org.searchlab.server.service.IndicesView;

/**
 * The index statistics of {@code GET [/{index}]/_stats[/{metric}]} and of the {@code indices}
 * section of {@code GET /_nodes/stats}, in Elasticsearch's shapes, from what each index's store and
 * the server count ({@link IndicesView}):
 *
 * <ul>
 *   <li>{@code docs}: {@code count}, {@code deleted} ({@link IndexStats#docCount()}, {@link
 *       IndexStats#deletedDocs()});
 *   <li>{@code store}: {@code size_in_bytes} and {@code total_data_set_size_in_bytes}, the index's
 *       files on disk without its write-ahead log (left out when the view does not know them);
 *   <li>{@code indexing}: {@code index_total}, {@code index_failed}, {@code delete_total}, {@code
 *       noop_update_total} (the server's feed counters);
 *   <li>{@code search}: {@code query_total} (successful searches and counts);
 *   <li>{@code merges} (Elasticsearch's {@code MergeStats}), only where the store merges: {@code
 *       current}, {@code current_docs}, {@code current_size_in_bytes}, {@code total}, {@code
 *       total_time_in_millis}, {@code total_docs}, {@code total_size_in_bytes}, {@code
 *       total_stopped_time_in_millis}, {@code total_throttled_time_in_millis}, {@code
 *       total_auto_throttle_in_bytes}, from the store's counters {@code merges_running}, {@code
 *       merges_running_docs}, {@code merges_running_bytes}, {@code merges_done}, {@code
 *       merges_time_ms}, {@code merges_docs}, {@code merges_input_bytes}, {@code
 *       merges_stopped_ms}, {@code merges_throttled_ms}, {@code
 *       merges_auto_throttle_bytes_per_sec};
 *   <li>{@code refresh}: {@code total}, {@code total_time_in_millis} ({@code refreshes}, {@code
 *       refresh_time_ms}), the same again as {@code external_total} and {@code
 *       external_total_time_in_millis} (a store has one reader, the one searches see: every refresh
 *       is external), {@code listeners} 0 (no request waits for a refresh);
 *   <li>{@code flush}, only where the store commits: {@code total}, {@code periodic} (commits the
 *       log's size triggered), {@code total_time_in_millis}, {@code
 *       total_time_excluding_waiting_on_lock_in_millis} ({@code flushes}, {@code size_flushes},
 *       {@code flush_time_ms}, {@code flush_time_excluding_lock_ms});
 *   <li>{@code segments}: {@code count}, and where the store reports them {@code
 *       index_writer_memory_in_bytes} and {@code version_map_memory_in_bytes} (its memory parts
 *       {@code indexing_buffer} and {@code version_map}); {@code translog}: {@code size_in_bytes}
 *       (the write-ahead log) and {@code uncommitted_operations} (logged after the last commit).
 * </ul>
 *
 * A counter a store does not keep is reported as 0 inside a section the store has. No indexing or
 * search timing is reported ({@code index_time_in_millis}, {@code query_time_in_millis}, ...): the
 * stores do not measure them per operation, and a request's wall time is not what Elasticsearch
 * means by them. The other metrics Elasticsearch knows are accepted and have no section. Stateless
 * and thread-safe.
 */
final class EsIndexStats {
  /** Every index-stats metric Elasticsearch 8 knows; the ones reported are listed above. */
  static final Set<String> METRICS =
      Set.of(
          "docs",
          "store",
          "indexing",
          "get",
          "search",
          "merge",
          "refresh",
          "flush",
          "warmer",
          "query_cache",
          "fielddata",
          "completion",
          "segments",
          "translog",
          "request_cache",
          "recovery",
          "bulk",
          "shard_stats",
          "mappings",
          "dense_vector",
          "sparse_vector");

  private EsIndexStats() {}

  /** One index read at one moment. */
  record Snapshot(
      String name,
      IndicesView.IndexSettings settings,
      StoreHealth health,
      IndexStats stats,
      OptionalLong storeBytes,
      IndicesView.Operations ops) {

    static Snapshot read(IndicesView view, String name) throws IOException {
      return new Snapshot(
          name,
          view.settings(name),
          view.health(name),
          view.stats(name),
          view.storeBytes(name),
          view.operations(name));
    }

    ClusterHealth.IndexHealth indexHealth() {
      return ClusterHealth.IndexHealth.of(name, settings, health);
    }
  }

  static List<Snapshot> read(IndicesView view, List<String> names) throws IOException {
    List<Snapshot> out = new ArrayList<>(names.size());
    for (String n : names) {
      out.add(Snapshot.read(view, n));
    }
    return out;
  }

  /**
   * The stats sections for {@code metrics}, summed over {@code snaps} (one shard each: what its
   * primary reports).
   */
  static ObjectNode sections(List<Snapshot> snaps, Set<String> metrics) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    if (metrics.contains("docs")) {
      o.putObject("docs")
          .put("count", sum(snaps, s -> s.stats().docCount()))
          .put("deleted", sum(snaps, s -> s.stats().deletedDocs()));
    }
    if (metrics.contains("shard_stats")) {
      o.putObject("shard_stats").put("total_count", sum(snaps, s -> s.settings().numberOfShards()));
    }
    if (metrics.contains("store") && snaps.stream().allMatch(s -> s.storeBytes().isPresent())) {
      long bytes = sum(snaps, s -> s.storeBytes().getAsLong());
      o.putObject("store").put("size_in_bytes", bytes).put("total_data_set_size_in_bytes", bytes);
    }
    if (metrics.contains("indexing")) {
      o.putObject("indexing")
          .put("index_total", sum(snaps, s -> s.ops().indexTotal()))
          .put("index_failed", sum(snaps, s -> s.ops().indexFailed()))
          .put("delete_total", sum(snaps, s -> s.ops().deleteTotal()))
          .put("noop_update_total", sum(snaps, s -> s.ops().noopUpdateTotal()));
    }
    if (metrics.contains("search")) {
      o.putObject("search").put("query_total", sum(snaps, s -> s.ops().queryTotal()));
    }
    if (metrics.contains("merge") && all(snaps, "merges_running", "merges_done")) {
      ObjectNode m = o.putObject("merges");
      m.put("current", counter(snaps, "merges_running"))
          .put("current_docs", counter(snaps, "merges_running_docs"))
          .put("current_size_in_bytes", counter(snaps, "merges_running_bytes"))
          .put("total", counter(snaps, "merges_done"))
          .put("total_time_in_millis", counter(snaps, "merges_time_ms"))
          .put("total_docs", counter(snaps, "merges_docs"))
          .put("total_size_in_bytes", counter(snaps, "merges_input_bytes"))
          .put("total_stopped_time_in_millis", counter(snaps, "merges_stopped_ms"))
          .put("total_throttled_time_in_millis", counter(snaps, "merges_throttled_ms"));
      if (all(snaps, "merges_auto_throttle_bytes_per_sec")) {
        // Summed as Elasticsearch sums it: an unlimited rate (Long.MAX_VALUE) stays unlimited.
        long limit = 0;
        for (Snapshot s : snaps) {
          long one = s.stats().counter("merges_auto_throttle_bytes_per_sec");
          limit = limit == Long.MAX_VALUE || one == Long.MAX_VALUE ? Long.MAX_VALUE : limit + one;
        }
        m.put("total_auto_throttle_in_bytes", limit);
      }
    }
    if (metrics.contains("refresh") && all(snaps, "refreshes")) {
      long total = counter(snaps, "refreshes");
      long millis = counter(snaps, "refresh_time_ms");
      o.putObject("refresh")
          .put("total", total)
          .put("total_time_in_millis", millis)
          .put("external_total", total)
          .put("external_total_time_in_millis", millis)
          .put("listeners", 0);
    }
    if (metrics.contains("flush") && all(snaps, "flushes")) {
      o.putObject("flush")
          .put("total", counter(snaps, "flushes"))
          .put("periodic", counter(snaps, "size_flushes"))
          .put("total_time_in_millis", counter(snaps, "flush_time_ms"))
          .put(
              "total_time_excluding_waiting_on_lock_in_millis",
              counter(snaps, "flush_time_excluding_lock_ms"));
    }
    if (metrics.contains("segments")) {
      ObjectNode seg = o.putObject("segments");
      seg.put("count", sum(snaps, s -> s.stats().segmentCount()));
      if (snaps.stream().allMatch(s -> s.stats().memoryBytes().containsKey("indexing_buffer"))) {
        seg.put("index_writer_memory_in_bytes", memory(snaps, "indexing_buffer"));
      }
      if (snaps.stream().allMatch(s -> s.stats().memoryBytes().containsKey("version_map"))) {
        seg.put("version_map_memory_in_bytes", memory(snaps, "version_map"));
      }
    }
    if (metrics.contains("translog")) {
      o.putObject("translog")
          .put("size_in_bytes", sum(snaps, s -> s.stats().walBytes()))
          .put(
              "uncommitted_operations",
              sum(snaps, s -> Math.max(0, s.stats().lastSerial() - s.stats().flushedSerial())));
    }
    return o;
  }

  private static boolean all(List<Snapshot> snaps, String... counters) {
    for (Snapshot s : snaps) {
      for (String c : counters) {
        if (!s.stats().counters().containsKey(c)) {
          return false;
        }
      }
    }
    return true;
  }

  private static long counter(List<Snapshot> snaps, String name) {
    return sum(snaps, s -> s.stats().counter(name));
  }

  private static long memory(List<Snapshot> snaps, String part) {
    return sum(snaps, s -> s.stats().memoryBytes().getOrDefault(part, 0L));
  }

  private static long sum(List<Snapshot> snaps, java.util.function.ToLongFunction<Snapshot> f) {
    long n = 0;
    for (Snapshot s : snaps) {
      n += f.applyAsLong(s);
    }
    return n;
  }

  /**
   * The body of {@code GET [/{index}]/_stats}.
   *
   * @param level {@code cluster} ({@code _all} only), {@code indices} (the default) or {@code
   *     shards} (each index's one primary, with its routing)
   */
  static ObjectNode render(List<Snapshot> snaps, Set<String> metrics, String level, String nodeId) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    int copies = 0;
    for (Snapshot s : snaps) {
      copies += s.settings().numberOfShards() * (1 + s.settings().numberOfReplicas());
    }
    int read = (int) sum(snaps, s -> s.settings().numberOfShards());
    o.putObject("_shards").put("total", copies).put("successful", read).put("failed", 0);
    ObjectNode all = o.putObject("_all");
    ObjectNode summed = sections(snaps, metrics);
    // Replicas are never assigned on one node: every copy that reports is a primary.
    all.set("primaries", summed);
    all.set("total", summed.deepCopy());
    if (level.equals("cluster")) {
      return o;
    }
    ObjectNode indices = o.putObject("indices");
    for (Snapshot s : snaps) {
      ObjectNode x = indices.putObject(s.name());
      x.put("health", s.indexHealth().status().json());
      x.put("status", "open");
      ObjectNode one = sections(List.of(s), metrics);
      x.set("primaries", one);
      x.set("total", one.deepCopy());
      if (level.equals("shards")) {
        ObjectNode shards = x.putObject("shards");
        ObjectNode shard = shards.putArray("0").addObject();
        shard
            .putObject("routing")
            .put("state", s.health().writable() ? "STARTED" : "UNASSIGNED")
            .put("primary", true)
            .put("node", nodeId)
            .putNull("relocating_node");
        shard.setAll(one.deepCopy());
      }
    }
    return o;
  }
}
