package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * What a segmented store says of its own merges, flushes and bytes: Elasticsearch's {@code GET
 * /{index}/_stats} sections ({@code merges}, {@code refresh}, {@code flush}, {@code store}, {@code
 * translog}), searchlab's extra counters of {@code GET /_admin/stats} (bytes written by merges and
 * by flushes, the merge threads' CPU) and the segments of {@code GET /{index}/_segments}. A figure
 * the server does not report reads as null, so the comparison says "not reported" rather than 0.
 * Stateless and thread-safe.
 */
final class StoreAccounting {
  /**
   * {@code /_admin/stats} counter: bytes of the segments merges wrote (the names it has had, the
   * first present is read).
   */
  static final List<String> MERGE_OUTPUT_BYTES =
      List.of("merges_written_bytes", "merge_output_bytes");

  /** {@code /_admin/stats} counter: CPU time of the merge threads, in milliseconds. */
  static final List<String> MERGE_CPU_MS = List.of("merges_cpu_ms", "merge_cpu_ms");

  /** {@code /_admin/stats} counter: bytes of the segments flushes wrote. */
  static final List<String> FLUSHED_SEGMENT_BYTES = List.of("flushed_segment_bytes");

  /** {@code /_admin/stats} counter: every byte appended to the write-ahead log. */
  static final List<String> WAL_WRITTEN_BYTES = List.of("wal_written_bytes");

  /**
   * {@code /_admin/stats} counter: every byte written through the index's directory, each file
   * rounded up to whole 4 KiB pages.
   */
  static final List<String> INDEX_WRITTEN_PAGE_BYTES = List.of("index_written_page_bytes");

  /**
   * {@code /_admin/stats} counter: the part of those that merges wrote, temporary files included.
   */
  static final List<String> MERGE_WRITTEN_PAGE_BYTES = List.of("index_written_merge_page_bytes");

  private StoreAccounting() {}

  /**
   * One reading; every field null where the server does not report it.
   *
   * @param mergesTotal {@code merges.total}: merges finished
   * @param mergesCurrent {@code merges.current}: merges running
   * @param mergeTimeMs {@code merges.total_time_in_millis}: wall time summed over merges
   * @param mergeDocs {@code merges.total_docs}: documents of the merges' input segments
   * @param mergeInputBytes {@code merges.total_size_in_bytes}: bytes of the merges' input segments
   * @param mergeThrottledMs {@code merges.total_throttled_time_in_millis}
   * @param refreshes {@code refresh.total}
   * @param flushes {@code flush.total}
   * @param storeBytes {@code store.size_in_bytes}: the index's files now
   * @param translogBytes {@code translog.size_in_bytes}: the write-ahead log now
   * @param segments {@code segments.count}
   * @param mergeOutputBytes {@link #MERGE_OUTPUT_BYTES}
   * @param mergeCpuMs {@link #MERGE_CPU_MS}
   * @param flushedSegmentBytes {@link #FLUSHED_SEGMENT_BYTES}
   * @param walWrittenBytes {@link #WAL_WRITTEN_BYTES}
   * @param indexWrittenPageBytes {@link #INDEX_WRITTEN_PAGE_BYTES}
   * @param mergeWrittenPageBytes {@link #MERGE_WRITTEN_PAGE_BYTES}
   */
  record Reading(
      Long mergesTotal,
      Long mergesCurrent,
      Long mergeTimeMs,
      Long mergeDocs,
      Long mergeInputBytes,
      Long mergeThrottledMs,
      Long refreshes,
      Long flushes,
      Long storeBytes,
      Long translogBytes,
      Long segments,
      Long mergeOutputBytes,
      Long mergeCpuMs,
      Long flushedSegmentBytes,
      Long walWrittenBytes,
      Long indexWrittenPageBytes,
      Long mergeWrittenPageBytes) {

    /**
     * The counters' growth since {@code before}; the gauges ({@code current}, store, translog and
     * segments) as they are now.
     */
    Reading since(Reading before) {
      return new Reading(
          minus(mergesTotal, before.mergesTotal),
          mergesCurrent,
          minus(mergeTimeMs, before.mergeTimeMs),
          minus(mergeDocs, before.mergeDocs),
          minus(mergeInputBytes, before.mergeInputBytes),
          minus(mergeThrottledMs, before.mergeThrottledMs),
          minus(refreshes, before.refreshes),
          minus(flushes, before.flushes),
          storeBytes,
          translogBytes,
          segments,
          minus(mergeOutputBytes, before.mergeOutputBytes),
          minus(mergeCpuMs, before.mergeCpuMs),
          minus(flushedSegmentBytes, before.flushedSegmentBytes),
          minus(walWrittenBytes, before.walWrittenBytes),
          minus(indexWrittenPageBytes, before.indexWrittenPageBytes),
          minus(mergeWrittenPageBytes, before.mergeWrittenPageBytes));
    }

    private static Long minus(Long after, Long before) {
      return after == null || before == null ? null : after - before;
    }
  }

  /** An empty reading: what an engine without these routes reports. */
  static final Reading NONE =
      new Reading(
          null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
          null, null);

  /** Reads {@code _stats} and {@code _admin/stats} of {@code index}. */
  static Reading read(HttpClient http, URI base, String index)
      throws IOException, InterruptedException {
    JsonNode all = get(http, base, "/" + index + "/_stats").path("_all").path("primaries");
    JsonNode counters = get(http, base, "/_admin/stats").path("counters");
    JsonNode m = all.path("merges");
    return new Reading(
        num(m, "total"),
        num(m, "current"),
        num(m, "total_time_in_millis"),
        num(m, "total_docs"),
        num(m, "total_size_in_bytes"),
        num(m, "total_throttled_time_in_millis"),
        num(all.path("refresh"), "total"),
        num(all.path("flush"), "total"),
        num(all.path("store"), "size_in_bytes"),
        num(all.path("translog"), "size_in_bytes"),
        num(all.path("segments"), "count"),
        first(counters, MERGE_OUTPUT_BYTES),
        first(counters, MERGE_CPU_MS),
        first(counters, FLUSHED_SEGMENT_BYTES),
        first(counters, WAL_WRITTEN_BYTES),
        first(counters, INDEX_WRITTEN_PAGE_BYTES),
        first(counters, MERGE_WRITTEN_PAGE_BYTES));
  }

  /**
   * One segment of {@code _segments}.
   *
   * @param docs live and deleted documents (the segment's {@code maxDoc})
   */
  record Segment(String name, long docs, long bytes) {}

  /** The searchable segments of {@code index}, or null when the server does not list them. */
  static List<Segment> segments(HttpClient http, URI base, String index)
      throws IOException, InterruptedException {
    JsonNode shard =
        get(http, base, "/" + index + "/_segments")
            .path("indices")
            .path(index)
            .path("shards")
            .path("0")
            .path(0)
            .path("segments");
    if (!shard.isObject()) {
      return null;
    }
    List<Segment> out = new ArrayList<>();
    shard
        .fields()
        .forEachRemaining(
            e ->
                out.add(
                    new Segment(
                        e.getKey(),
                        e.getValue().path("num_docs").asLong()
                            + e.getValue().path("deleted_docs").asLong(),
                        e.getValue().path("size_in_bytes").asLong())));
    return out;
  }

  private static Long first(JsonNode n, List<String> names) {
    for (String name : names) {
      Long v = num(n, name);
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  private static Long num(JsonNode n, String field) {
    JsonNode v = n.path(field);
    return v.isNumber() ? v.asLong() : null;
  }

  /** The body of a GET, or a missing node when it does not answer 200. */
  private static JsonNode get(HttpClient http, URI base, String path)
      throws IOException, InterruptedException {
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve(path)).timeout(Json.REQUEST_TIMEOUT).GET().build();
    HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }
    return Json.MAPPER.readTree(r.body());
  }
}
