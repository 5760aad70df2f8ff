package org.searchlab.server.service;

import java.util.Objects;

/**
 * A kNN search of a request whose query vector the server embeds from text (Elasticsearch's {@code
 * query_vector_builder.text_embedding}, Vespa's {@code embed(...)}). Immutable.
 *
 * @param knn the search's index in {@link org.searchlab.core.SearchRequest#knn()}
 * @param text the text to embed
 */
public record KnnText(int knn, String text) {
  public KnnText {
    if (knn < 0) {
      throw new IllegalArgumentException("kNN index " + knn + " is negative");
    }
    Objects.requireNonNull(text, "text");
  }
}
