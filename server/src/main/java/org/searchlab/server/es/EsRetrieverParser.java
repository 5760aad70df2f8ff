package org.searchlab.server.es;

import static org.searchlab.server.es.EsParsing.illegal;
import static org.searchlab.server.es.EsParsing.keys;
import static org.searchlab.server.es.EsParsing.notSupported;
import static org.searchlab.server.es.EsParsing.object;
import static org.searchlab.server.es.EsParsing.parsing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Rank;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * Translates an Elasticsearch 8.x {@code retriever} tree into a request's parts: a query, kNN
 * searches and how they combine. Stateless and thread-safe.
 *
 * <ul>
 *   <li>{@code standard} {@code {query, filter}} → the query; with a filter (one query or a list),
 *       {@code bool} of {@code must: [query]} and the filters, as Elasticsearch's {@code
 *       StandardRetrieverBuilder} builds it (no query: the filters alone, which score 0; neither:
 *       {@code match_all}).
 *   <li>{@code knn} → one kNN search ({@link EsKnnParser.Kind#RETRIEVER}).
 *   <li>{@code rrf} {@code {retrievers, rank_constant, rank_window_size}} (also the older {@code
 *       window_size}) → {@link Rank#rrf} over its children: at least two, at most one {@code
 *       standard} (the request has one query) and any {@code knn}; {@code rank_constant} defaults
 *       to 60 and {@code rank_window_size} to 10, Elasticsearch's {@code
 *       RankBuilder.DEFAULT_RANK_WINDOW_SIZE}.
 * </ul>
 */
final class EsRetrieverParser {
  /** Elasticsearch's default {@code rank_window_size} ({@code SearchService.DEFAULT_SIZE}). */
  static final int DEFAULT_RANK_WINDOW = 10;

  /** The retrievers Elasticsearch has that this server does not run. */
  private static final Set<String> REFUSED =
      Set.of("text_similarity_reranker", "rule", "rescorer", "linear", "pinned");

  /**
   * A request's parts.
   *
   * @param query the scored query, or null (kNN only)
   * @param knn the kNN searches
   * @param rank how they combine
   */
  record Parts(Query query, List<EsKnnParser.Part> knn, Rank rank) {}

  private EsRetrieverParser() {}

  /** Reads {@code retriever}. */
  static Parts parse(JsonNode node, String where, int size, EsQueryParser queries) {
    String type = type(node, where);
    String here = EsQueryParser.path(where, type);
    return switch (type) {
      case "standard" ->
          new Parts(standard(node.get(type), here, size, queries), List.of(), Rank.SUM);
      case "knn" ->
          new Parts(
              null,
              List.of(
                  EsKnnParser.parse(
                      node.get(type), here, EsKnnParser.Kind.RETRIEVER, size, queries)),
              Rank.SUM);
      case "rrf" -> rrf(object(node.get(type), here), here, size, queries);
      default -> throw new AssertionError(type);
    };
  }

  private static String type(JsonNode node, String where) {
    object(node, where);
    if (node.size() != 1) {
      throw parsing(
          "[" + where + "] must hold exactly one retriever, got " + node.size() + " keys");
    }
    String type = node.fieldNames().next();
    if (REFUSED.contains(type)) {
      throw notSupported(EsQueryParser.path(where, type));
    }
    if (!Set.of("standard", "knn", "rrf").contains(type)) {
      throw parsing(
          "unknown retriever ["
              + Text.quote(type)
              + "] in ["
              + where
              + "]; supported: knn, rrf, standard");
    }
    return type;
  }

  private static Query standard(JsonNode node, String where, int size, EsQueryParser queries) {
    object(node, where);
    keys(
        node,
        where,
        Set.of("query", "filter"),
        Set.of(
            "search_after",
            "terminate_after",
            "sort",
            "min_score",
            "collapse",
            "rescore",
            "_name"));
    Query query = null;
    if (node.has("query")) {
      JsonNode q = node.get("query");
      if (q.isObject() && q.size() == 1 && q.has("knn")) {
        throw illegal(
            "["
                + where
                + ".query]: a [knn] query in a standard retriever is not supported; use a [knn]"
                + " retriever");
      }
      query = queries.parse(q, where + ".query");
    }
    List<Query> filters =
        node.has("filter") ? queries.list(node.get("filter"), where + ".filter") : List.of();
    if (filters.isEmpty()) {
      return query == null ? Query.MatchAll.INSTANCE : query;
    }
    return new Query.Bool(
        query == null ? List.of() : List.of(query), filters, List.of(), List.of(), null, 1f);
  }

  private static Parts rrf(JsonNode node, String where, int size, EsQueryParser queries) {
    keys(
        node,
        where,
        Set.of("retrievers", "rank_constant", "rank_window_size", "window_size"),
        Set.of("filter", "query", "fields", "min_score", "_name"));
    JsonNode children = node.get("retrievers");
    if (children == null || !children.isArray()) {
      throw illegal("[" + where + ".retrievers] is required: an array of at least two retrievers");
    }
    if (children.size() < 2) {
      throw illegal(
          "["
              + where
              + ".retrievers] has "
              + children.size()
              + " retriever(s); reciprocal rank fusion needs at least two");
    }
    if (children.size() > SearchRequest.MAX_KNN + 1) {
      throw illegal(
          "["
              + where
              + ".retrievers] has "
              + children.size()
              + " retrievers; the limit is "
              + (SearchRequest.MAX_KNN + 1)
              + " (one standard and "
              + SearchRequest.MAX_KNN
              + " knn)");
    }
    Query query = null;
    List<EsKnnParser.Part> knn = new ArrayList<>();
    for (int i = 0; i < children.size(); i++) {
      String w = where + ".retrievers[" + i + "]";
      JsonNode child = children.get(i);
      if (child != null && child.isObject() && child.has("retriever")) {
        throw notSupported(w + ".retriever (weighted child retrievers)");
      }
      String type = type(child, w);
      String here = EsQueryParser.path(w, type);
      switch (type) {
        case "standard" -> {
          if (query != null) {
            throw illegal(
                "["
                    + here
                    + "]: a second standard retriever is not supported; this server fuses one"
                    + " query with kNN searches");
          }
          query = standard(child.get(type), here, size, queries);
        }
        case "knn" ->
            knn.add(
                EsKnnParser.parse(
                    child.get(type), here, EsKnnParser.Kind.RETRIEVER, size, queries));
        case "rrf" -> throw notSupported(here + " (an rrf retriever inside another)");
        default -> throw new AssertionError(type);
      }
    }
    return new Parts(query, knn, rank(node, where));
  }

  /**
   * {@code rank_constant} and {@code rank_window_size} (or the older {@code window_size}) of an
   * {@code rrf} retriever or a {@code rank.rrf} section.
   */
  static Rank rank(JsonNode node, String where) {
    int constant =
        node.has("rank_constant")
            ? Json.integer(
                node.get("rank_constant"), "[" + where + ".rank_constant]", 1, Integer.MAX_VALUE)
            : Rank.DEFAULT_RANK_CONSTANT;
    if (node.has("rank_window_size") && node.has("window_size")) {
      throw illegal("[" + where + "] has both [rank_window_size] and its older name [window_size]");
    }
    String key = node.has("window_size") ? "window_size" : "rank_window_size";
    int window =
        node.has(key)
            ? Json.integer(
                node.get(key), "[" + where + "." + key + "]", 1, SearchRequest.MAX_WINDOW)
            : DEFAULT_RANK_WINDOW;
    return Rank.rrf(constant, window);
  }
}
