package org.searchlab.server.es;

import org.searchlab.core.SearchRequest;

/**
 * An Elasticsearch search body translated to core terms. Immutable.
 *
 * @param request the core request (its vector is {@code null} when {@code embedText} is set)
 * @param embedText text to embed into the query vector ({@code knn.query_vector_builder}), or
 *     {@code null}
 * @param source which fields of {@code _source} hits carry, if any
 * @param trackTotal whether the response reports {@code hits.total}
 * @param queryType the metrics label: lexical, vector, hybrid or unranked
 */
record EsSearch(
    SearchRequest request,
    String embedText,
    EsSourceFilter source,
    boolean trackTotal,
    String queryType) {}
