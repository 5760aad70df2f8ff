package org.searchlab.bench.report;

import java.util.List;

/**
 * One poll of an index's segments during a write window of the merge-policy comparison: when, how
 * many and how large ({@code GET /{index}/_segments}, the searchable segments of the last refresh).
 * Immutable.
 *
 * @param variant the policy's label
 * @param phase the window's phase ({@code feed}, {@code force_merge}, {@code refeed})
 * @param round the refeed round, null for the first feed and its force-merge
 * @param seconds seconds since the window started
 * @param count segments
 * @param bytes their bytes
 * @param sizes each segment's bytes, largest first
 */
public record SegmentPoint(
    String variant,
    String phase,
    Integer round,
    double seconds,
    int count,
    long bytes,
    List<Long> sizes) {
  public SegmentPoint {
    sizes = List.copyOf(sizes);
  }
}
