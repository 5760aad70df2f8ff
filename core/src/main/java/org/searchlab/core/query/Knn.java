package org.searchlab.core.query;

import java.util.Arrays;
import java.util.Objects;

/**
 * One approximate nearest-neighbour search over a {@code dense_vector} field (Elasticsearch's
 * {@code knn} section, a {@code knn} retriever; Vespa's {@code nearestNeighbor}): the top {@code k}
 * documents passing {@code filter} by the field's similarity, found by a graph search that keeps
 * {@code numCandidates} candidates (Vespa's {@code targetHits + hnsw.exploreAdditionalHits}).
 * Scores are the similarity's {@code _score} times {@code boost}. Immutable by convention (the
 * vector is not modified after building).
 *
 * @param field the vector field
 * @param vector the query vector
 * @param k how many neighbours, 1 to {@value org.searchlab.core.SearchRequest#MAX_CANDIDATES}
 * @param numCandidates the beam, k to {@value org.searchlab.core.SearchRequest#MAX_CANDIDATES}
 * @param filter a pre-filter every neighbour passes ({@link Query.MatchAll} for none); a filter
 *     scores nothing
 * @param similarity the least {@code _score} a neighbour may have (Elasticsearch's {@code
 *     similarity}), or null
 * @param boost multiplies the scores
 * @param rescoreWindow over quantized vectors, how many of the best candidates by their codes are
 *     rescored by their floats; 0 for the store's default
 */
public record Knn(
    String field,
    float[] vector,
    int k,
    int numCandidates,
    Query filter,
    Float similarity,
    float boost,
    int rescoreWindow) {
  public Knn {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(filter, "filter: use Query.MatchAll.INSTANCE for none");
  }

  /** This search with another query vector (a text the server embedded). */
  public Knn withVector(float[] v) {
    return new Knn(field, v, k, numCandidates, filter, similarity, boost, rescoreWindow);
  }

  /** Whether the filter lets every document through. */
  public boolean unfiltered() {
    return filter instanceof Query.MatchAll;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Knn n
        && field.equals(n.field)
        && Arrays.equals(vector, n.vector)
        && k == n.k
        && numCandidates == n.numCandidates
        && filter.equals(n.filter)
        && Objects.equals(similarity, n.similarity)
        && boost == n.boost
        && rescoreWindow == n.rescoreWindow;
  }

  @Override
  public int hashCode() {
    return Objects.hash(field, k, numCandidates, filter) * 31 + Arrays.hashCode(vector);
  }

  @Override
  public String toString() {
    return "Knn[field="
        + field
        + ", vector="
        + (vector == null ? "none" : vector.length + "-d")
        + ", k="
        + k
        + ", numCandidates="
        + numCandidates
        + ", filter="
        + filter
        + (similarity == null ? "" : ", similarity=" + similarity)
        + (boost == 1f ? "" : ", boost=" + boost)
        + "]";
  }
}
