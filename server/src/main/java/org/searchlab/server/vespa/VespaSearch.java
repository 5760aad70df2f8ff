package org.searchlab.server.vespa;

import java.util.List;
import org.searchlab.core.SearchRequest;
import org.searchlab.server.service.KnnText;

/**
 * A Vespa query translated to core terms. Immutable.
 *
 * @param request the core request (a kNN search named in {@code embedTexts} has no vector yet)
 * @param embedTexts the kNN searches whose query tensor the server embeds ({@code embed(...)})
 * @param minimal whether hits carry only their id ({@code presentation.summary=minimal})
 * @param fields the fields a hit shows, from YQL's {@code select} list (with {@code sddocname} and
 *     {@code documentid} among the choices); empty for {@code select *}
 * @param timing whether the response carries {@code timing} ({@code presentation.timing})
 * @param queryType the metrics label: lexical, vector, hybrid or unranked
 * @param grouping the grouping to render from the result's aggregations; {@link VespaGrouping#NONE}
 *     without one
 */
record VespaSearch(
    SearchRequest request,
    List<KnnText> embedTexts,
    boolean minimal,
    List<String> fields,
    boolean timing,
    String queryType,
    VespaGrouping grouping) {
  VespaSearch {
    embedTexts = List.copyOf(embedTexts);
    fields = List.copyOf(fields);
  }
}
