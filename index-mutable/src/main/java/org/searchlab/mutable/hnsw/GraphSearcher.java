package org.searchlab.mutable.hnsw;

import org.searchlab.core.FilterThresholds;

/**
 * Searches a {@link MutableHnswGraph} for the nearest neighbours of a query vector, reusing its
 * scratch space (visited set, heaps) across calls.
 *
 * <p>Thread-safety: confined to one thread at a time (it owns mutable scratch space); use one per
 * searching thread, or {@link MutableHnswGraph#search}, which keeps one per thread. Searches take
 * no locks and run concurrently with the graph's writer: a node removed before the search started
 * is never returned, a node removed during it may or may not be.
 */
public interface GraphSearcher {
  /**
   * The {@code k} nearest accepted nodes of {@code query}.
   *
   * <p>Plan: with hit ratio {@code r = acceptedCount / graph.size()}, the search is an exact scan
   * of the accepted nodes when {@code r < approximate}, a filter-first (ACORN-1 two-hop) graph
   * search when {@code r < filterFirst}, else a filtered HNSW search; with {@link AcceptBits#ALL}
   * it is always HNSW. Thresholds are {@code thresholds}' overrides, else the graph's {@link
   * HnswConfig}. A filtered graph search that has computed more distances than {@code
   * acceptedCount} (at least {@code k}) stops and answers with the exact scan instead (Lucene's
   * fallback: past that point the scan is cheaper, and it is exact); its plan is then {@code
   * exact}.
   *
   * @param query a vector of the graph's dimension (unit length for {@code dot_product}, as the
   *     documents)
   * @param k hits wanted, in [1, 10000]
   * @param ef beam width; the search uses {@code max(k, ef)} (callers pass {@code targetHits +
   *     exploreAdditionalHits})
   * @param accept the pre-filter, {@link AcceptBits#ALL} for none
   * @param acceptedCount how many live nodes {@code accept} accepts (an estimate is fine); ignored
   *     for {@link AcceptBits#ALL}
   * @param thresholds per-query plan thresholds, {@link FilterThresholds#INDEX_DEFAULT} for the
   *     graph's
   * @param rescoreWindow over int8 codes, how many of the best candidates by int8 score are
   *     rescored by their floats (the beam keeps at least this many); 0 for {@code k × oversample}
   *     of the graph's {@link HnswConfig}; below {@code k} counts as {@code k}. Ignored over
   *     floats.
   * @param shown how many of the best hits the caller reads, in [1, k]: the result's {@code nodes}
   *     hold at least these, in order and with their exact scores, and {@link GraphHits#found}
   *     counts all k. Below {@code k} the exact plan ranks only these by their floats: the rest of
   *     the exact top k cannot change what is shown (Elasticsearch's {@code size} below {@code k}).
   */
  GraphHits search(
      float[] query,
      int k,
      int ef,
      AcceptBits accept,
      int acceptedCount,
      FilterThresholds thresholds,
      int rescoreWindow,
      int shown);

  /** A search with window 0 that shows all k hits. */
  default GraphHits search(
      float[] query,
      int k,
      int ef,
      AcceptBits accept,
      int acceptedCount,
      FilterThresholds thresholds) {
    return search(query, k, ef, accept, acceptedCount, thresholds, 0, k);
  }

  /** Unfiltered search: {@code search(query, k, ef, ALL, size, INDEX_DEFAULT)}. */
  default GraphHits search(float[] query, int k, int ef) {
    return search(query, k, ef, AcceptBits.ALL, Integer.MAX_VALUE, FilterThresholds.INDEX_DEFAULT);
  }
}
