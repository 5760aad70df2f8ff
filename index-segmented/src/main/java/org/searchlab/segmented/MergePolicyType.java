package org.searchlab.segmented;

/**
 * Which Lucene merge policy the segmented store runs, as Elasticsearch's {@code
 * index.merge.policy.type} chose it. Immutable.
 *
 * <ul>
 *   <li>{@link #TIERED}: Lucene's {@code TieredMergePolicy}, Elasticsearch's default; merges
 *       segments of similar size, at most {@code maxMergeAtOnce} at a time, keeping about {@code
 *       segmentsPerTier} per tier.
 *   <li>{@link #LOG_BYTE_SIZE}: Lucene's {@code LogByteSizeMergePolicy}; merges adjacent segments
 *       in levels of exponentially growing byte size (Elasticsearch's choice for time series).
 *   <li>{@link #NONE}: no merge ever runs on its own; only {@code forceMerge} merges. Segment
 *       counts then stay exactly what refreshes made.
 * </ul>
 */
public enum MergePolicyType {
  TIERED,
  LOG_BYTE_SIZE,
  NONE;

  /** Parses {@code tiered}, {@code log-byte-size} or {@code none} (case-insensitive). */
  public static MergePolicyType parse(String name) {
    return CliNames.parse(MergePolicyType.class, "merge policy", name);
  }

  /** The command-line spelling: lower case with dashes. */
  public String cliName() {
    return CliNames.of(this);
  }
}
