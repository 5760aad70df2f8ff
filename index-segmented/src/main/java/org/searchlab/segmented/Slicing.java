package org.searchlab.segmented;

/**
 * How concurrent segment search groups segments into slices, the unit of work one search thread
 * takes. Only matters when {@link SegmentedConfig#searchThreads()} is above 0. Immutable.
 *
 * <ul>
 *   <li>{@link #LUCENE_DEFAULT}: {@code IndexSearcher}'s own grouping (up to 250,000 documents or 5
 *       segments per slice), so small segments share a thread.
 *   <li>{@link #SEGMENT_PER_SLICE}: every segment is its own slice; most parallel across segments.
 *   <li>{@link #PARTITIONS}: intra-segment concurrency; segments are cut into partitions of about
 *       {@code maxDoc / searchThreads} documents, so even one segment is searched by all threads.
 * </ul>
 *
 * <p>Vector queries are not sliced: Lucene's kNN query always runs one task per segment.
 */
public enum Slicing {
  LUCENE_DEFAULT,
  SEGMENT_PER_SLICE,
  PARTITIONS;

  /** Parses {@code lucene-default}, {@code segment-per-slice} or {@code partitions}. */
  public static Slicing parse(String name) {
    return CliNames.parse(Slicing.class, "slicing", name);
  }

  /** The command-line spelling: lower case with dashes. */
  public String cliName() {
    return CliNames.of(this);
  }
}
