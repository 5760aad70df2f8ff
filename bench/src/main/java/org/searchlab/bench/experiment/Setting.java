package org.searchlab.bench.experiment;

/**
 * The vector part's search setting: {@code k} neighbours (Elasticsearch {@code k}, Vespa {@code
 * targetHits}) out of a beam of {@code candidates} (Elasticsearch {@code num_candidates}, Vespa
 * {@code targetHits + hnsw.exploreAdditionalHits}); more candidates is more accurate and slower.
 * Immutable.
 *
 * @param k neighbours the vector part returns, 1 or more
 * @param candidates the beam, at least {@code k}
 */
public record Setting(int k, int candidates) {
  /** The benchmark's literal setting: {@code k = num_candidates = targetHits = 100}. */
  public static final Setting BENCHMARK = new Setting(ExactSearch.VECTOR_K, ExactSearch.VECTOR_K);

  public Setting {
    if (k < 1 || candidates < k) {
      throw new IllegalArgumentException(
          "a vector setting needs 1 <= k <= candidates; got k " + k + ", candidates " + candidates);
    }
  }
}
