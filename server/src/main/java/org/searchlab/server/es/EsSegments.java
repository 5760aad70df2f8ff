package org.searchlab.server.es;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.searchlab.core.IndexStats;
import org.searchlab.server.Json;

/**
 * The body of {@code GET [/{index}]/_segments} in Elasticsearch 8's shape ({@code
 * IndicesSegmentResponse}): per index, its one shard {@code "0"} with its routing, {@code
 * num_committed_segments}, {@code num_search_segments} and, per segment by name, {@code
 * generation}, {@code num_docs} (live), {@code deleted_docs}, {@code size_in_bytes}, {@code
 * committed}, {@code search}, and for a segment Lucene wrote {@code version}, {@code compound} and
 * {@code attributes} (when it has any), sorted by generation, from the store's {@link
 * IndexStats#segments()}.
 *
 * <p>What differs: Elasticsearch also lists the segments the last commit holds that searches no
 * longer see (merged away since, {@code search: false}); the stores list only the searchable ones,
 * so {@code num_committed_segments} (the store's {@code committed_segments} counter, where it keeps
 * one) can exceed the committed segments listed. A store without segments of its own (the mutable
 * store: one index) reports one segment {@code _0} holding the whole index, its size the index's
 * files on disk, committed when the last snapshot covers every logged write. No {@code merge_id} or
 * {@code sort} is reported. Stateless and thread-safe.
 */
final class EsSegments {
  private EsSegments() {}

  /** The body for {@code snaps} (one shard each), read by the node {@code nodeId}. */
  static ObjectNode render(List<EsIndexStats.Snapshot> snaps, String nodeId) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    int copies = 0;
    int read = 0;
    for (EsIndexStats.Snapshot s : snaps) {
      copies += s.settings().numberOfShards() * (1 + s.settings().numberOfReplicas());
      read += s.settings().numberOfShards();
    }
    o.putObject("_shards").put("total", copies).put("successful", read).put("failed", 0);
    ObjectNode indices = o.putObject("indices");
    for (EsIndexStats.Snapshot s : snaps) {
      ObjectNode shard = indices.putObject(s.name()).putObject("shards").putArray("0").addObject();
      shard
          .putObject("routing")
          .put("state", s.health().writable() ? "STARTED" : "UNASSIGNED")
          .put("primary", true)
          .put("node", nodeId);
      List<IndexStats.SegmentStats> segments = segments(s);
      long committed = segments.stream().filter(IndexStats.SegmentStats::committed).count();
      shard.put(
          "num_committed_segments",
          s.stats().counters().getOrDefault("committed_segments", committed));
      shard.put("num_search_segments", segments.size());
      ObjectNode out = shard.putObject("segments");
      for (IndexStats.SegmentStats seg : segments) {
        ObjectNode one = out.putObject(seg.name());
        one.put("generation", generation(seg.name()))
            .put("num_docs", seg.docs() - seg.deletedDocs())
            .put("deleted_docs", seg.deletedDocs())
            .put("size_in_bytes", seg.bytes())
            .put("committed", seg.committed())
            .put("search", true);
        if (!seg.version().isEmpty()) { // written by Lucene: its facts are known
          one.put("version", seg.version()).put("compound", seg.compound());
          if (!seg.attributes().isEmpty()) {
            ObjectNode attributes = one.putObject("attributes");
            new java.util.TreeMap<>(seg.attributes()).forEach(attributes::put);
          }
        }
      }
    }
    return o;
  }

  /**
   * The store's searchable segments by generation, or, for a store with one index and no segment
   * list, that index as one segment.
   */
  private static List<IndexStats.SegmentStats> segments(EsIndexStats.Snapshot s) {
    IndexStats st = s.stats();
    List<IndexStats.SegmentStats> list = new ArrayList<>(st.segments());
    if (list.isEmpty() && st.segmentCount() == 1) {
      long docs = st.docCount() + st.deletedDocs();
      list.add(
          new IndexStats.SegmentStats(
              "_0",
              (int) Math.min(Integer.MAX_VALUE, docs),
              (int) Math.min(Integer.MAX_VALUE, st.deletedDocs()),
              s.storeBytes().orElse(0),
              st.flushedSerial() >= st.lastSerial(),
              "",
              false,
              java.util.Map.of()));
    }
    list.sort(Comparator.comparingLong(seg -> generation(seg.name())));
    return list;
  }

  /**
   * A segment's generation: its name after the underscore, in base 36 (Lucene's names), as
   * Elasticsearch reads it; -1 for a name of another form.
   */
  static long generation(String name) {
    try {
      return name.startsWith("_") ? Long.parseLong(name.substring(1), Character.MAX_RADIX) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
