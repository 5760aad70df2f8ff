package org.searchlab.server.vespa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.Filter;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.server.Json;
import org.searchlab.server.PriceBounds;
import org.searchlab.server.ServerLimits;
import org.searchlab.server.service.SearchService;

/**
 * Translates Vespa query parameters and a parsed YQL statement into a {@link SearchRequest}.
 * Stateless and thread-safe.
 *
 * <p>The {@code where} clause must be a conjunction of filters ({@code category contains "X"},
 * {@code price} comparisons, {@code true}) and at most one retrieval part: {@code userQuery()},
 * {@code nearestNeighbor(embedding, q)}, or the two joined by {@code or} (hybrid). Filters in the
 * conjunction pre-filter both parts, as in Vespa. Filters inside an {@code or}, or a retrieval part
 * joined by {@code and} to another, are outside the subset and answer 400 with the column.
 */
final class VespaQueryTranslator {
  private static final String DEFAULT_YQL = "select * from sources * where userQuery()";

  private VespaQueryTranslator() {}

  /** Flattens a JSON query body ({@code {"ranking":{"profile":"x"}}} → {@code ranking.profile}). */
  static Map<String, JsonNode> flatten(JsonNode body, Map<String, List<String>> urlParams) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> e : urlParams.entrySet()) {
      List<String> v = e.getValue();
      if (!v.isEmpty()) {
        out.put(e.getKey(), TextNode.valueOf(v.get(v.size() - 1)));
      }
    }
    if (body != null) {
      Json.object(body, "query body");
      flatten("", body, out);
    }
    return out;
  }

  private static void flatten(String prefix, JsonNode node, Map<String, JsonNode> out) {
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      String key = prefix + f.getKey();
      if (f.getValue().isObject() && !key.contains("query(")) {
        flatten(key + ".", f.getValue(), out);
      } else {
        out.put(key, f.getValue());
      }
    }
  }

  /** The document types a query's {@code from} names; empty for {@code sources *}. */
  static List<String> sources(Map<String, JsonNode> params, ServerLimits limits) {
    String yql = params.containsKey("yql") ? Json.string(params.get("yql"), "yql") : DEFAULT_YQL;
    return YqlParser.parse(yql, limits.maxYqlLength(), limits.maxQueryDepth()).sources();
  }

  static VespaSearch translate(Map<String, JsonNode> params, String documentType) {
    return translate(params, documentType, ServerLimits.DEFAULT);
  }

  static VespaSearch translate(
      Map<String, JsonNode> params, String documentType, ServerLimits limits) {
    String yql = params.containsKey("yql") ? Json.string(params.get("yql"), "yql") : DEFAULT_YQL;
    Yql.Select select = YqlParser.parse(yql, limits.maxYqlLength(), limits.maxQueryDepth());
    for (String source : select.sources()) {
      if (!source.equals(documentType)) {
        throw new YqlException(
            yql,
            yql.indexOf(source) + 1,
            "unknown document type '" + source + "'; this server has '" + documentType + "'");
      }
    }
    Acc acc = new Acc(yql);
    acc.top(select.where());

    SearchRequest.Builder b = SearchRequest.builder();
    String embedText = null;
    String text = null;
    if (acc.userQuery != null) {
      JsonNode q = params.get("query");
      if (q == null) {
        throw new YqlException(
            yql,
            acc.userQuery.column(),
            "userQuery() needs the 'query' parameter, which is missing");
      }
      text = Json.string(q, "query");
      b.text(text);
    }
    if (acc.nn != null) {
      Yql.NearestNeighbor nn = acc.nn;
      if (!nn.field().equals(Schema.EMBEDDING)) {
        throw new YqlException(
            yql, nn.column(), "nearestNeighbor field '" + nn.field() + "' is not 'embedding'");
      }
      String name = "input.query(" + nn.queryTensor() + ")";
      JsonNode tensor = params.get(name);
      if (tensor == null) {
        tensor = params.get("ranking.features.query(" + nn.queryTensor() + ")");
      }
      if (tensor == null) {
        throw new YqlException(
            yql, nn.column(), "nearestNeighbor needs the query tensor parameter '" + name + "'");
      }
      Object v = QueryTensor.parse(tensor, name, params);
      if (v instanceof String s) {
        embedText = s;
      } else {
        b.vector((float[]) v);
      }
      annotations(yql, nn, b);
    }
    RankProfile inferred =
        acc.userQuery != null && acc.nn != null
            ? RankProfile.HYBRID
            : acc.userQuery != null
                ? RankProfile.BM25
                : acc.nn != null ? RankProfile.CLOSENESS : RankProfile.UNRANKED;
    JsonNode p =
        params.containsKey("ranking.profile")
            ? params.get("ranking.profile")
            : params.get("ranking");
    RankProfile profile = inferred;
    if (p != null) {
      String name = Json.string(p, "ranking.profile");
      if (!name.equals("default")) {
        profile = RankProfile.parse(name);
        if (profile != inferred) {
          throw new InvalidRequestException(
              "rank profile '"
                  + name
                  + "' does not fit the where clause, which has "
                  + (acc.userQuery != null ? "userQuery()" : "no userQuery()")
                  + " and "
                  + (acc.nn != null ? "nearestNeighbor()" : "no nearestNeighbor()")
                  + "; it needs profile '"
                  + inferred.name().toLowerCase(java.util.Locale.ROOT)
                  + "'");
        }
      }
    }
    b.rankProfile(profile).filter(acc.filter());
    int offset =
        params.containsKey("offset")
            ? Json.integer(params.get("offset"), "offset", 0, SearchRequest.MAX_WINDOW)
            : Math.max(0, select.offset());
    int hits;
    if (params.containsKey("hits")) {
      hits = Json.integer(params.get("hits"), "hits", 0, SearchRequest.MAX_WINDOW);
    } else if (select.limit() >= 0) {
      hits = Math.max(0, select.limit() - offset);
    } else {
      hits = SearchRequest.DEFAULT_HITS;
    }
    b.hits(hits).offset(offset);
    double approx = threshold(params, "ranking.matching.approximateThreshold");
    double filterFirst = threshold(params, "ranking.matching.filterFirstThreshold");
    b.thresholds(new FilterThresholds(approx, filterFirst));
    // Vespa's second phase reranks the best rerankCount hits of the first; over int8 cells the
    // first phase scores by the codes and the rerank by the floats, so rerankCount is the
    // rescoring window (ignored over float cells, which need no rerank).
    for (String name : List.of("ranking.rerankCount", "ranking.secondPhase.rerankCount")) {
      if (params.containsKey(name)) {
        b.rescoreWindow(Json.integer(params.get(name), name, 1, SearchRequest.MAX_RESCORE_WINDOW));
      }
    }
    boolean minimal = false;
    if (params.containsKey("presentation.summary")) {
      String s = Json.string(params.get("presentation.summary"), "presentation.summary");
      switch (s) {
        case "minimal" -> minimal = true;
        case "default" -> {}
        default ->
            throw new InvalidRequestException(
                "presentation.summary '" + s + "' is unknown; use minimal or default");
      }
    }
    boolean timing =
        params.containsKey("presentation.timing")
            && Json.bool(params.get("presentation.timing"), "presentation.timing");
    if (params.containsKey("timeout")) {
      JsonNode t = params.get("timeout");
      String ts = t.isNumber() ? t.asText() : Json.string(t, "timeout");
      if (!ts.trim().matches("\\d+(\\.\\d+)?\\s*(ms|s)?")) {
        throw new InvalidRequestException(
            "timeout '" + ts + "' is not a duration; use e.g. 500ms, 5s or 1.5");
      }
    }
    String type = SearchService.queryType(profile);
    return new VespaSearch(b.build(), embedText, minimal, select.fields(), timing, type);
  }

  private static double threshold(Map<String, JsonNode> params, String name) {
    JsonNode v = params.get(name);
    if (v == null) {
      return Double.NaN;
    }
    double d;
    try {
      d = v.isNumber() ? v.doubleValue() : Double.parseDouble(Json.string(v, name));
    } catch (NumberFormatException e) {
      throw new InvalidRequestException(name + " '" + v.asText() + "' is not a number");
    }
    if (!(d >= 0 && d <= 1)) {
      throw new InvalidRequestException(name + " " + d + " is outside [0, 1]");
    }
    return d;
  }

  private static void annotations(String yql, Yql.NearestNeighbor nn, SearchRequest.Builder b) {
    Integer target = null;
    for (Map.Entry<String, Object> a : nn.annotations().entrySet()) {
      Object v = a.getValue();
      switch (a.getKey()) {
        case "targetHits", "targetNumHits" -> target = intAnnotation(yql, nn, a.getKey(), v, 1);
        case "hnsw.exploreAdditionalHits" ->
            b.exploreAdditionalHits(intAnnotation(yql, nn, a.getKey(), v, 0));
        case "approximate" -> {
          if (!(v instanceof Boolean bool)) {
            throw new YqlException(
                yql, nn.column(), "annotation 'approximate' must be true or false");
          }
          b.approximate(bool);
        }
        case "label" -> {}
        default ->
            throw new YqlException(
                yql,
                nn.column(),
                "annotation '"
                    + a.getKey()
                    + "' is not supported; use targetHits, approximate, hnsw.exploreAdditionalHits,"
                    + " label");
      }
    }
    if (target == null) {
      throw new YqlException(
          yql, nn.column(), "nearestNeighbor needs the annotation {targetHits: N}");
    }
    b.targetHits(target);
  }

  private static int intAnnotation(
      String yql, Yql.NearestNeighbor nn, String key, Object v, int min) {
    if (!(v instanceof Long l) || l < min || l > SearchRequest.MAX_CANDIDATES) {
      throw new YqlException(
          yql,
          nn.column(),
          "annotation '"
              + key
              + "' is "
              + v
              + "; expected an integer in ["
              + min
              + ", "
              + SearchRequest.MAX_CANDIDATES
              + "]");
    }
    return l.intValue();
  }

  /** Walks the where clause. Not thread-safe; one per translation. */
  private static final class Acc {
    final String yql;
    Yql retrieval;
    Yql.UserQuery userQuery;
    Yql.NearestNeighbor nn;
    String category;
    final PriceBounds price = new PriceBounds();

    Acc(String yql) {
      this.yql = yql;
    }

    void top(Yql node) {
      switch (node) {
        case Yql.And and -> and(and);
        default -> term(node);
      }
    }

    private void and(Yql.And and) {
      for (Yql t : and.terms()) {
        if (t instanceof Yql.And inner) {
          and(inner);
        } else {
          term(t);
        }
      }
    }

    private void term(Yql t) {
      switch (t) {
        case Yql.Contains c -> {
          if (!c.field().equals(Schema.CATEGORY)) {
            throw new YqlException(
                yql,
                c.column(),
                "'contains' is supported on 'category' only, not '"
                    + c.field()
                    + "'; search text with userQuery()");
          }
          if (category != null && !category.equals(c.value())) {
            throw new YqlException(
                yql,
                c.column(),
                "a second category filter '"
                    + c.value()
                    + "' (after '"
                    + category
                    + "') is not supported");
          }
          category = c.value();
        }
        case Yql.Compare cmp -> {
          if (!cmp.field().equals(Schema.PRICE)) {
            throw new YqlException(
                yql,
                cmp.column(),
                "comparisons are supported on 'price' only, not '" + cmp.field() + "'");
          }
          java.math.BigDecimal v = cmp.value();
          switch (cmp.op()) {
            case "<" -> price.lt(v);
            case "<=" -> price.lte(v);
            case ">" -> price.gt(v);
            case ">=" -> price.gte(v);
            default -> price.eq(v);
          }
        }
        case Yql.True tr -> {}
        case Yql.UserQuery u -> retrieval(t);
        case Yql.NearestNeighbor n -> retrieval(t);
        case Yql.Or or -> retrieval(t);
        case Yql.And and -> and(and);
      }
    }

    private void retrieval(Yql t) {
      if (retrieval != null) {
        throw new YqlException(
            yql,
            t.column(),
            "only one retrieval part (userQuery(), nearestNeighbor(), or both joined by 'or') may"
                + " appear in an 'and'");
      }
      retrieval = t;
      collect(t);
    }

    private void collect(Yql t) {
      switch (t) {
        case Yql.UserQuery u -> {
          if (userQuery != null) {
            throw new YqlException(yql, u.column(), "userQuery() appears twice");
          }
          userQuery = u;
        }
        case Yql.NearestNeighbor n -> {
          if (nn != null) {
            throw new YqlException(yql, n.column(), "a second nearestNeighbor() is not supported");
          }
          nn = n;
        }
        case Yql.Or or -> {
          for (Yql c : or.terms()) {
            collect(c);
          }
        }
        default ->
            throw new YqlException(
                yql,
                t.column(),
                "'or' may only join userQuery() and nearestNeighbor(); a filter inside 'or' is not"
                    + " supported");
      }
    }

    Filter filter() {
      Filter f = category == null ? Filter.ALL : Filter.category(category);
      return price.any() ? f.withPrice(price.range()) : f;
    }
  }
}
