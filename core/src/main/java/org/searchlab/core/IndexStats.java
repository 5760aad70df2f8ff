package org.searchlab.core;

import java.util.List;
import java.util.Map;

/**
 * A point-in-time view of an index for experimenters: counts, segments, memory per part and
 * counters. Immutable.
 *
 * @param store the store's short name ({@code segmented}, {@code mutable}, {@code exact})
 * @param docCount live documents visible to search
 * @param deletedDocs deleted documents still occupying space (Lucene's {@code numDeletedDocs})
 * @param segmentCount searchable segments (1 for a single mutable index)
 * @param segments per-segment details; empty for stores without segments
 * @param lastSerial the newest write-ahead log serial acknowledged
 * @param flushedSerial the newest serial covered by a commit or snapshot
 * @param walBytes bytes the write-ahead log occupies on disk
 * @param memoryBytes estimated heap bytes per part ({@code postings}, {@code vectors}, ...)
 * @param counters monotonically increasing counters ({@code refreshes}, {@code in_place_updates},
 *     ...)
 * @param vectorBytesPerVector bytes each indexed vector costs, per representation: {@code float}
 *     (the float vectors), {@code int8} (the quantized codes, present only when quantized: 8-bit,
 *     4-bit or 1-bit by the index's {@link VectorQuantization}; the key kept its first name so that
 *     readers of int8 stats read the others too) and {@code graph} (the HNSW links); the mutable
 *     store keeps all three on the heap, the segmented store in its files ({@code .vec}, {@code
 *     .veq}, {@code .vex}), read through the page cache; it gives {@code graph} only where Lucene's
 *     reader reports the graph file's size, which it does not for every segment. Empty for stores
 *     without vectors.
 */
public record IndexStats(
    String store,
    long docCount,
    long deletedDocs,
    int segmentCount,
    List<SegmentStats> segments,
    long lastSerial,
    long flushedSerial,
    long walBytes,
    Map<String, Long> memoryBytes,
    Map<String, Long> counters,
    Map<String, Long> vectorBytesPerVector) {

  public IndexStats {
    segments = List.copyOf(segments);
    memoryBytes = Map.copyOf(memoryBytes);
    counters = Map.copyOf(counters);
    vectorBytesPerVector = Map.copyOf(vectorBytesPerVector);
  }

  /** Stats without a per-vector report (a store that does not measure it). */
  public IndexStats(
      String store,
      long docCount,
      long deletedDocs,
      int segmentCount,
      List<SegmentStats> segments,
      long lastSerial,
      long flushedSerial,
      long walBytes,
      Map<String, Long> memoryBytes,
      Map<String, Long> counters) {
    this(
        store,
        docCount,
        deletedDocs,
        segmentCount,
        segments,
        lastSerial,
        flushedSerial,
        walBytes,
        memoryBytes,
        counters,
        Map.of());
  }

  /** A counter's value, 0 when the store does not keep it. */
  public long counter(String name) {
    return counters.getOrDefault(name, 0L);
  }

  /**
   * One searchable segment.
   *
   * @param name the segment's name (Lucene's {@code _N}, N in base 36)
   * @param docs documents in it, live or deleted ({@code maxDoc})
   * @param deletedDocs deleted documents in it
   * @param bytes its size on disk
   * @param committed whether the last commit holds it (a restart would find it without a replay)
   * @param version the Lucene version that wrote it; empty for a store without Lucene segments
   * @param compound whether its files are packed in one compound file
   * @param attributes the codec's attributes of it (Lucene's {@code SegmentInfo.getAttributes()},
   *     such as the stored fields' compression mode)
   */
  public record SegmentStats(
      String name,
      int docs,
      int deletedDocs,
      long bytes,
      boolean committed,
      String version,
      boolean compound,
      Map<String, String> attributes) {

    public SegmentStats {
      attributes = Map.copyOf(attributes);
    }

    /** A segment of which only the counts and size are known: not committed, no version. */
    public SegmentStats(String name, int docs, int deletedDocs, long bytes) {
      this(name, docs, deletedDocs, bytes, false, "", false, Map.of());
    }
  }
}
