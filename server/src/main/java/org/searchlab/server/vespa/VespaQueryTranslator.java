package org.searchlab.server.vespa;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Rank;
import org.searchlab.core.query.SortKey;
import org.searchlab.server.Json;
import org.searchlab.server.ServerLimits;
import org.searchlab.server.service.KnnText;
import org.searchlab.server.service.SearchService;

/**
 * Translates Vespa query parameters and a parsed YQL statement into a {@link SearchRequest} over
 * the document type's mapping ({@link YqlWhere} reads the {@code where} clause). Stateless and
 * thread-safe.
 *
 * <p>The rank profile follows the statement: {@code bm25} when it matches text, {@code closeness}
 * with nearestNeighbor(), {@code hybrid} with both (the parts' scores add up), {@code unranked}
 * with neither (every match scores 1); {@code default} is whichever fits, and a profile that does
 * not fit is a 400 naming the one that does. {@code ranking=rrf} fuses the parts by reciprocal rank
 * (rank constant 60, over {@code ranking.globalPhase.rerankCount} hits of each).
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

  /**
   * Translates a query against the document type's mapping.
   *
   * @param documentType the name the statement's {@code from} may use
   * @param mapping the index's mapping, which the statement's fields are looked up in
   */
  static VespaSearch translate(
      Map<String, JsonNode> params, String documentType, Mapping mapping, ServerLimits limits) {
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
    // Vespa's second phase reranks the best rerankCount hits of the first; over int8 cells the
    // first phase scores by the codes and the rerank by the floats, so rerankCount is the
    // rescoring window (ignored over float cells, which need no rerank).
    int rescoreWindow = 0;
    for (String name : List.of("ranking.rerankCount", "ranking.secondPhase.rerankCount")) {
      if (params.containsKey(name)) {
        rescoreWindow = Json.integer(params.get(name), name, 1, SearchRequest.MAX_RESCORE_WINDOW);
      }
    }
    YqlWhere.Result where = YqlWhere.translate(yql, select.where(), mapping, params, rescoreWindow);
    boolean hasKnn = !where.knn().isEmpty();
    RankProfile inferred =
        where.scoring() && hasKnn
            ? RankProfile.HYBRID
            : where.scoring()
                ? RankProfile.BM25
                : hasKnn ? RankProfile.CLOSENESS : RankProfile.UNRANKED;
    JsonNode p =
        params.containsKey("ranking.profile")
            ? params.get("ranking.profile")
            : params.get("ranking");
    RankProfile profile = inferred;
    Rank rank = Rank.SUM;
    if (p != null) {
      String name = Json.string(p, "ranking.profile");
      if (name.equals("rrf")) {
        // Vespa's reciprocal rank fusion runs in the global phase, over its rerankCount best hits.
        String windowParam = "ranking.globalPhase.rerankCount";
        int window =
            params.containsKey(windowParam)
                ? Json.integer(params.get(windowParam), windowParam, 1, SearchRequest.MAX_WINDOW)
                : 0;
        rank = Rank.rrf(Rank.DEFAULT_RANK_CONSTANT, window);
      } else if (!name.equals("default")) {
        profile = RankProfile.parse(name);
        if (profile != inferred) {
          throw new InvalidRequestException(
              "rank profile '"
                  + name
                  + "' does not fit the where clause, which has "
                  + (where.scoring() ? "text conditions" : "no text condition")
                  + " and "
                  + (hasKnn ? "nearestNeighbor()" : "no nearestNeighbor()")
                  + "; it needs profile '"
                  + inferred.name().toLowerCase(java.util.Locale.ROOT)
                  + "'");
        }
      }
    }
    Query query = where.query();
    if (profile == RankProfile.UNRANKED && query != null) {
      // Every match the same score, as the benchmark's unranked profile gives it.
      query =
          query instanceof Query.MatchAll m && m.boost() == 1f
              ? query
              : new Query.ConstantScore(query, 1f);
    }
    SearchRequest.Builder b = SearchRequest.builder().query(query).knn(where.knn()).rank(rank);
    b.approximate(where.approximate());
    List<KnnText> embed = new java.util.ArrayList<>();
    for (int i = 0; i < where.embedTexts().size(); i++) {
      if (where.embedTexts().get(i) != null) {
        embed.add(new KnnText(i, where.embedTexts().get(i)));
      }
    }
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
    b.sort(sort(yql, select.orderBy(), mapping));
    VespaGrouping grouping = grouping(yql, select, params, mapping, limits);
    b.aggregations(grouping.aggregations());
    double approx = threshold(params, "ranking.matching.approximateThreshold");
    double filterFirst = threshold(params, "ranking.matching.filterFirstThreshold");
    b.thresholds(new FilterThresholds(approx, filterFirst));
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
    return new VespaSearch(b.build(), embed, minimal, select.fields(), timing, type, grouping);
  }

  /**
   * The sort of {@code order by}: attributes, {@code "[relevance]"} (alias {@code "[rank]"}) and
   * {@code "[docid]"}. A document without a value sorts as Vespa sorts a single-value attribute's
   * missing value: first ascending, last descending.
   */
  private static List<SortKey> sort(String yql, List<Yql.OrderBy> orderBy, Mapping mapping) {
    List<SortKey> keys = new java.util.ArrayList<>();
    for (Yql.OrderBy o : orderBy) {
      String field =
          switch (o.field()) {
            case "[relevance]", "[rank]" -> SortKey.SCORE;
            case "[docid]" -> SortKey.DOC;
            default -> {
              if (mapping.leaf(o.field()) == null) {
                throw new YqlException(
                    yql, o.column(), "order by attribute '" + o.field() + "' does not exist");
              }
              yield o.field();
            }
          };
      keys.add(new SortKey(field, !o.descending(), !o.descending(), null));
    }
    return keys;
  }

  /**
   * The grouping of the statement (after {@code |}) and of the {@code select} parameter, in that
   * order.
   */
  private static VespaGrouping grouping(
      String yql,
      Yql.Select select,
      Map<String, JsonNode> params,
      Mapping mapping,
      ServerLimits limits) {
    if (params.containsKey("grouping.globalMaxGroups")) {
      throw new InvalidRequestException(
          "grouping.globalMaxGroups must be specified in a query profile, not in a request");
    }
    List<GroupingParser.Op> ops = new java.util.ArrayList<>(select.grouping());
    if (params.containsKey("select")) {
      String text = Json.string(params.get("select"), "select");
      if (text.length() > limits.maxYqlLength()) {
        throw new InvalidRequestException(
            "select has "
                + text.length()
                + " characters, more than the limit of "
                + limits.maxYqlLength()
                + " (--max-yql-length)");
      }
      ops.addAll(GroupingParser.parse(text, text, 0, limits.maxQueryDepth()));
    }
    if (ops.isEmpty()) {
      return VespaGrouping.NONE;
    }
    int defaultMax = VespaGrouping.DEFAULT_MAX_GROUPS;
    if (params.containsKey("grouping.defaultMaxGroups")) {
      defaultMax =
          Json.integer(
              params.get("grouping.defaultMaxGroups"),
              "grouping.defaultMaxGroups",
              -1,
              Aggregation.MAX_BUCKETS);
    }
    return VespaGrouping.translate(yql, ops, mapping, defaultMax);
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
}
