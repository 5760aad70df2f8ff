package org.searchlab.bench.data;

/**
 * Exact nearest neighbours of each query by dot product, best first, ties broken by the lower
 * ordinal. Immutable and thread-safe.
 */
public interface GroundTruth {
  /** The number of queries. */
  int queries();

  /** The document ordinals of query {@code query}'s neighbours, best first (a fresh array). */
  int[] neighbors(int query);

  /** The dot products matching {@link #neighbors}, descending (a fresh array). */
  float[] scores(int query);
}
