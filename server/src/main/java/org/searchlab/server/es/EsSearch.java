package org.searchlab.server.es;

import java.util.List;
import org.searchlab.core.SearchRequest;
import org.searchlab.server.service.KnnText;

/**
 * An Elasticsearch search body translated to core terms. Immutable.
 *
 * @param request the core request; a kNN search named in {@code embedTexts} has no vector yet
 * @param embedTexts the kNN searches whose query vector the server embeds from text ({@code
 *     query_vector_builder.text_embedding.model_text}), by their index in {@code request.knn()}
 * @param source which fields of {@code _source} hits carry, if any
 * @param trackTotal whether the response reports {@code hits.total}
 * @param queryType the metrics label: lexical, vector, hybrid or unranked
 * @param topHitsSources the {@code _source} filter of each {@code top_hits} aggregation, by its
 *     path of names joined by {@code >}
 * @param typedKeys whether aggregation names carry their type ({@code typed_keys}: {@code
 *     sterms#colors}), as the official clients ask, to know how to read each
 */
record EsSearch(
    SearchRequest request,
    List<KnnText> embedTexts,
    EsSourceFilter source,
    boolean trackTotal,
    String queryType,
    java.util.Map<String, EsSourceFilter> topHitsSources,
    boolean typedKeys) {
  EsSearch {
    embedTexts = List.copyOf(embedTexts);
    topHitsSources = java.util.Map.copyOf(topHitsSources);
  }
}
