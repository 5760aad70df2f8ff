package org.searchlab.server.vespa;

import java.util.List;
import org.searchlab.core.SearchRequest;

/**
 * A Vespa query translated to core terms. Immutable.
 *
 * @param request the core request (its vector is {@code null} when {@code embedText} is set)
 * @param embedText text to embed into the query tensor ({@code embed(...)}), or {@code null}
 * @param minimal whether hits carry only their id ({@code presentation.summary=minimal})
 * @param fields the fields a hit shows, from YQL's {@code select} list (with {@code sddocname} and
 *     {@code documentid} among the choices); empty for {@code select *}
 * @param timing whether the response carries {@code timing} ({@code presentation.timing})
 * @param queryType the metrics label: lexical, vector, hybrid or unranked
 */
record VespaSearch(
    SearchRequest request,
    String embedText,
    boolean minimal,
    List<String> fields,
    boolean timing,
    String queryType) {}
