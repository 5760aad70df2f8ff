// Over 500 lines: one translator for the supported subset of the query DSL.
package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.searchlab.core.Filter;
import org.searchlab.core.Fusion;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Json;
import org.searchlab.server.PriceBounds;
import org.searchlab.server.ServerLimits;
import org.searchlab.server.Text;
import org.searchlab.server.service.SearchService;

/**
 * Translates an Elasticsearch {@code _search} body into a {@link SearchRequest}. Stateless and
 * thread-safe.
 *
 * <p>The subset, and how it maps (anything else is a 400 naming the unsupported part):
 *
 * <ul>
 *   <li>{@code multi_match} over {@code title} and/or {@code description}, type {@code
 *       best_fields}: the query text (core scores best-fields over both text fields).
 *   <li>{@code match} on {@code title} or {@code description}: the query text, searched like {@code
 *       multi_match} over both text fields (core has no single-field text query); {@code match} on
 *       {@code category}: a category filter.
 *   <li>{@code term} on {@code category} (plain or {@code {"value": ...}}) and {@code range} on
 *       {@code price}: the filter. In {@code must} they also only filter (score comes from the text
 *       query).
 *   <li>{@code bool} with {@code must}, {@code filter}, {@code should} (each an object or an
 *       array); a text query in {@code should} counts like one in {@code must} (at least one term
 *       must match); a filter in {@code should} (an OR filter) and {@code must_not} are rejected.
 *   <li>{@code match_all}: no text query.
 *   <li>{@code knn} (one, as an object or a one-element array): {@code field: embedding}, {@code
 *       query_vector} or {@code query_vector_builder.text_embedding.model_text}, {@code k} → {@code
 *       targetHits}, {@code num_candidates − k} → {@code exploreAdditionalHits}, {@code filter}.
 *   <li>{@code query} and {@code knn} together: hybrid (scores added); both parts must carry the
 *       same filter, since core applies one pre-filter to both. {@code rank: {rrf: {}}} selects
 *       reciprocal rank fusion.
 * </ul>
 */
final class EsSearchParser {
  private static final Set<String> TOP_KEYS =
      Set.of(
          "query",
          "knn",
          "size",
          "from",
          "_source",
          "track_total_hits",
          "rank",
          "timeout",
          "stored_fields",
          "explain",
          "version",
          "seq_no_primary_term",
          "track_scores");

  private EsSearchParser() {}

  /**
   * A range bound: a JSON number of any size, integral or fractional, or a numeric string (as
   * Elasticsearch accepts {@code "gte": "10"}).
   */
  static BigDecimal number(JsonNode v, String where) {
    if (v != null && v.isNumber()) {
      return v.decimalValue();
    }
    if (v != null && v.isTextual() && v.textValue().length() <= 64) {
      try {
        return new BigDecimal(v.textValue().trim());
      } catch (NumberFormatException e) {
        // falls through to the error below
      }
    }
    throw new InvalidRequestException(
        where + " must be a number, got " + (v == null ? "nothing" : Text.quote(v.toString())));
  }

  /** What a query or a knn filter contributes. Not thread-safe; one per parse. */
  private static final class Parts {
    String text;
    String category;
    int priceMin = Integer.MIN_VALUE;
    int priceMax = Integer.MAX_VALUE;
    boolean hasPrice;

    /** The deepest {@code bool} nesting accepted, and the current one. */
    final int maxDepth;

    int depth;

    Parts(int maxDepth) {
      this.maxDepth = maxDepth;
    }

    void text(String t, String where) {
      if (text != null && !text.equals(t)) {
        throw new InvalidRequestException(
            where + ": a second text query ('" + t + "' after '" + text + "') is not supported");
      }
      text = t;
    }

    void category(String c, String where) {
      if (category != null && !category.equals(c)) {
        throw new InvalidRequestException(
            where
                + ": two different category filters ('"
                + category
                + "' and '"
                + c
                + "') can match nothing; not supported");
      }
      category = c;
    }

    /** Intersects the price range with {@code b}'s (several range clauses all apply). */
    void price(PriceBounds b) {
      hasPrice = true;
      Filter.PriceRange r = b.range();
      priceMin = Math.max(priceMin, r.min());
      priceMax = Math.min(priceMax, r.max());
    }

    Filter filter() {
      Filter f = category == null ? Filter.ALL : Filter.category(category);
      if (!hasPrice) {
        return f;
      }
      return f.withPrice(
          priceMin > priceMax
              ? Filter.PriceRange.EMPTY
              : new Filter.PriceRange(priceMin, priceMax));
    }
  }

  private enum Context {
    MUST,
    FILTER,
    SHOULD
  }

  static EsSearch parse(JsonNode body, ApiRequest r) {
    return parse(body, r, ServerLimits.DEFAULT.maxQueryDepth());
  }

  /**
   * Parses a search body.
   *
   * @param maxDepth the deepest {@code bool} nesting (Elasticsearch's {@code
   *     indices.query.bool.max_nested_depth})
   */
  static EsSearch parse(JsonNode body, ApiRequest r, int maxDepth) {
    if (body == null) {
      body = Json.MAPPER.createObjectNode();
    }
    Json.object(body, "search body");
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!TOP_KEYS.contains(k)) {
        throw parsing("unknown key [" + k + "] in the search body; supported: " + TOP_KEYS);
      }
    }
    int size =
        body.has("size")
            ? Json.integer(body.get("size"), "[size]", 0, SearchRequest.MAX_WINDOW)
            : r.intParam("size", SearchRequest.DEFAULT_HITS);
    int from =
        body.has("from")
            ? Json.integer(body.get("from"), "[from]", 0, SearchRequest.MAX_WINDOW)
            : r.intParam("from", 0);
    // As Elasticsearch's RestSearchAction: URL parameters, when given, override the body.
    EsSourceFilter source =
        EsSourceFilter.fromParams(
            r,
            body.has("_source") ? EsSourceFilter.parse(body.get("_source")) : EsSourceFilter.ALL);
    int track = SearchRequest.DEFAULT_TRACK_TOTAL_HITS;
    boolean trackTotal = true;
    JsonNode tth = body.get("track_total_hits");
    if (tth == null && r.param("track_total_hits") != null) {
      tth = Json.MAPPER.getNodeFactory().textNode(r.param("track_total_hits"));
    }
    if (tth != null) {
      if (tth.isBoolean() || tth.isTextual() && !tth.textValue().matches("-?\\d+")) {
        boolean t = Json.bool(tth, "[track_total_hits]");
        track = t ? Integer.MAX_VALUE : 0;
        trackTotal = t;
      } else {
        track = Json.integer(tth, "[track_total_hits]", 0, Integer.MAX_VALUE);
      }
    }

    Parts query = new Parts(maxDepth);
    boolean hasQuery = body.has("query");
    if (hasQuery) {
      visit(body.get("query"), Context.MUST, query, "[query]");
    }

    SearchRequest.Builder b =
        SearchRequest.builder().hits(size).offset(from).trackTotalHitsUpTo(track);
    String embedText = null;
    RankProfile profile;
    Filter filter;
    JsonNode knn = body.get("knn");
    if (knn != null) {
      if (knn.isArray()) {
        if (knn.size() != 1) {
          throw new InvalidRequestException(
              "[knn] has " + knn.size() + " sections; exactly one is supported");
        }
        knn = knn.get(0);
      }
      Json.object(knn, "[knn]");
      Parts knnFilter = new Parts(maxDepth);
      embedText = knn(knn, size, b, knnFilter);
      if (hasQuery) {
        if (query.text == null) {
          throw new InvalidRequestException(
              "[query] next to [knn] must contain a text query (multi_match or match); a filter"
                  + " alone belongs in knn.filter");
        }
        if (!Objects.equals(query.filter(), knnFilter.filter())) {
          throw new InvalidRequestException(
              "the [query] filter "
                  + describe(query.filter())
                  + " differs from the [knn] filter "
                  + describe(knnFilter.filter())
                  + "; searchlab applies one pre-filter to both parts, so they must be equal");
        }
        profile = RankProfile.HYBRID;
        b.text(query.text);
      } else {
        profile = RankProfile.CLOSENESS;
      }
      filter = knnFilter.filter();
    } else if (query.text != null) {
      profile = RankProfile.BM25;
      b.text(query.text);
      filter = query.filter();
    } else {
      profile = RankProfile.UNRANKED;
      filter = query.filter();
    }
    if (body.has("rank")) {
      JsonNode rank = Json.object(body.get("rank"), "[rank]");
      if (rank.size() != 1 || !rank.has("rrf")) {
        throw new InvalidRequestException("[rank] supports only {\"rrf\": {}}, got " + rank);
      }
      JsonNode rrf = Json.object(rank.get("rrf"), "[rank.rrf]");
      if (rrf.has("rank_constant")
          && Json.integer(rrf.get("rank_constant"), "[rank.rrf.rank_constant]", 1, 1 << 20)
              != Fusion.RRF_K) {
        throw new InvalidRequestException(
            "[rank.rrf.rank_constant] must be " + Fusion.RRF_K + " (the only supported value)");
      }
      if (profile != RankProfile.HYBRID) {
        throw new InvalidRequestException("[rank.rrf] needs both [query] and [knn]");
      }
      b.fusion(Fusion.RRF);
    }
    b.rankProfile(profile).filter(filter);
    String type = SearchService.queryType(profile);
    return new EsSearch(b.build(), embedText, source, trackTotal, type);
  }

  private static String describe(Filter f) {
    if (f.isMatchAll()) {
      return "(none)";
    }
    return "(category="
        + f.category()
        + (f.price() == null ? "" : ", price=[" + f.price().min() + "," + f.price().max() + "]")
        + ")";
  }

  /** Reads a knn section into the builder; returns the text to embed, or null. */
  private static String knn(JsonNode knn, int size, SearchRequest.Builder b, Parts filter) {
    String embedText = null;
    float[] vector = null;
    Integer k = null;
    Integer numCandidates = null;
    Float oversample = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = knn.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      JsonNode v = f.getValue();
      switch (f.getKey()) {
        case "field" -> {
          String field = Json.string(v, "[knn.field]");
          if (!field.equals(Schema.EMBEDDING)) {
            throw new InvalidRequestException(
                "[knn.field] is [" + field + "]; the only vector field is [embedding]");
          }
        }
        case "query_vector" -> vector = Json.vector(v, "[knn.query_vector]");
        case "query_vector_builder" -> {
          JsonNode te = Json.object(v, "[knn.query_vector_builder]").get("text_embedding");
          if (te == null || v.size() != 1) {
            throw new InvalidRequestException(
                "[knn.query_vector_builder] supports only [text_embedding], got " + v);
          }
          embedText =
              Json.string(
                  Json.object(te, "[knn.query_vector_builder.text_embedding]").get("model_text"),
                  "[knn.query_vector_builder.text_embedding.model_text]");
        }
        case "k" -> k = Json.integer(v, "[knn.k]", 1, SearchRequest.MAX_CANDIDATES);
        case "num_candidates" ->
            numCandidates =
                Json.integer(v, "[knn.num_candidates]", 1, SearchRequest.MAX_CANDIDATES);
        case "filter" -> {
          if (v.isArray()) {
            for (JsonNode c : v) {
              visit(c, Context.FILTER, filter, "[knn.filter]");
            }
          } else {
            visit(v, Context.FILTER, filter, "[knn.filter]");
          }
        }
        case "boost" -> {
          if (Json.floatValue(v, "[knn.boost]") != 1f) {
            throw new InvalidRequestException("[knn.boost] other than 1 is not supported");
          }
        }
        case "rescore_vector" -> oversample = rescoreOversample(v);
        default ->
            throw parsing(
                "unknown key [knn."
                    + f.getKey()
                    + "]; supported: field, query_vector,"
                    + " query_vector_builder, k, num_candidates, filter, rescore_vector");
      }
    }
    if (!knn.has("field")) {
      throw new InvalidRequestException("[knn.field] is required");
    }
    if ((vector == null) == (embedText == null)) {
      throw new InvalidRequestException(
          "[knn] needs exactly one of [query_vector] and [query_vector_builder]");
    }
    // Elasticsearch 8.x defaults: k = size, num_candidates = min(1.5 k, 10000).
    int kk = k != null ? k : Math.max(1, size);
    int nc = numCandidates != null ? numCandidates : Math.min((int) Math.ceil(1.5 * kk), 10_000);
    if (nc < kk) {
      throw new InvalidRequestException(
          "[knn.num_candidates] " + nc + " cannot be less than [knn.k] " + kk);
    }
    b.vector(vector).targetHits(kk).exploreAdditionalHits(nc - kk);
    if (oversample != null) {
      // Elasticsearch gathers and rescores ceil(k × oversample) candidates per shard.
      b.rescoreWindow((int) Math.ceil(kk * (double) oversample));
    }
    return embedText;
  }

  /**
   * {@code knn.rescore_vector}: {@code {"oversample": F}} with F in [1, 10], as Elasticsearch
   * bounds it. Elasticsearch's {@code 0} (no rescoring: scores by the quantized codes) is refused,
   * since every score searchlab returns over quantized vectors is the exact float one.
   */
  private static float rescoreOversample(JsonNode v) {
    String where = "[knn.rescore_vector]";
    Json.object(v, where);
    JsonNode o = v.get("oversample");
    if (o == null || v.size() != 1) {
      throw parsing(where + " takes exactly one key, [oversample]; got " + v.size() + " keys");
    }
    float f = Json.floatValue(o, where + ".oversample");
    if (f == 0f) {
      throw new InvalidRequestException(
          where
              + ".oversample 0 (no rescoring) is not supported: searchlab always rescores"
              + " quantized vectors by their floats; use 1 to rescore only k");
    }
    if (!(f >= 1f && f <= org.searchlab.core.VectorQuantization.MAX_OVERSAMPLE)) {
      throw new InvalidRequestException(
          where
              + ".oversample "
              + f
              + " is outside [1, "
              + org.searchlab.core.VectorQuantization.MAX_OVERSAMPLE
              + "]");
    }
    return f;
  }

  private static void visit(JsonNode node, Context ctx, Parts parts, String where) {
    Json.object(node, where);
    if (node.size() != 1) {
      throw parsing(where + " must hold exactly one query, got " + node.size() + " keys: " + node);
    }
    String type = node.fieldNames().next();
    JsonNode body = node.get(type);
    String here = where + "." + type;
    switch (type) {
      case "match_all" -> Json.object(body, here);
      case "multi_match" -> {
        noTextIn(ctx, here);
        multiMatch(Json.object(body, here), parts, here);
      }
      case "match" -> {
        Map.Entry<String, JsonNode> f = single(Json.object(body, here), here);
        JsonNode v = f.getValue();
        String text;
        if (v.isObject()) {
          for (Iterator<String> it = v.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals("query")
                && !(k.equals("operator") && "or".equalsIgnoreCase(v.get(k).asText()))) {
              throw new InvalidRequestException(
                  here + " supports only [query] (operator or), got [" + k + "]");
            }
          }
          text = Json.string(v.get("query"), here + "." + f.getKey() + ".query");
        } else {
          text = Json.string(v, here + "." + f.getKey());
        }
        switch (f.getKey()) {
          case Schema.TITLE, Schema.DESCRIPTION -> {
            noTextIn(ctx, here);
            parts.text(text, here);
          }
          case Schema.CATEGORY -> {
            noFilterIn(ctx, here);
            parts.category(text, here);
          }
          default -> throw unknownField(f.getKey(), here);
        }
      }
      case "term" -> {
        noFilterIn(ctx, here);
        Map.Entry<String, JsonNode> f = single(Json.object(body, here), here);
        if (!f.getKey().equals(Schema.CATEGORY)) {
          throw new InvalidRequestException(
              here + " on [" + f.getKey() + "]: only [category] is a keyword field");
        }
        JsonNode v = f.getValue();
        if (v.isObject()) {
          for (Iterator<String> it = v.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!k.equals("value") && !k.equals("boost")) {
              throw new InvalidRequestException(
                  here + ".category supports [value], got [" + k + "]");
            }
          }
          v = v.get("value");
        }
        parts.category(Json.string(v, here + ".category"), here);
      }
      case "range" -> {
        noFilterIn(ctx, here);
        Map.Entry<String, JsonNode> f = single(Json.object(body, here), here);
        if (!f.getKey().equals(Schema.PRICE)) {
          throw new InvalidRequestException(
              here + " on [" + f.getKey() + "]: only [price] supports a range");
        }
        PriceBounds bounds = new PriceBounds();
        for (Iterator<Map.Entry<String, JsonNode>> it =
                Json.object(f.getValue(), here + ".price").fields();
            it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          String w = here + ".price." + e.getKey();
          switch (e.getKey()) {
            case "gte" -> bounds.gte(number(e.getValue(), w));
            case "gt" -> bounds.gt(number(e.getValue(), w));
            case "lte" -> bounds.lte(number(e.getValue(), w));
            case "lt" -> bounds.lt(number(e.getValue(), w));
            default ->
                throw new InvalidRequestException(w + " is not supported; use gte, gt, lte, lt");
          }
        }
        parts.price(bounds);
      }
      case "bool" -> bool(Json.object(body, here), ctx, parts, here);
      default ->
          throw parsing(
              "unknown query type ["
                  + type
                  + "] in "
                  + where
                  + "; supported: multi_match, match, term, range, bool, match_all");
    }
  }

  private static void bool(JsonNode bool, Context ctx, Parts parts, String here) {
    if (++parts.depth > parts.maxDepth) {
      throw parsing(
          "bool queries nest deeper than the limit of "
              + parts.maxDepth
              + " (--max-query-depth, Elasticsearch's indices.query.bool.max_nested_depth)");
    }
    boolClauses(bool, ctx, parts, here);
    parts.depth--;
  }

  private static void boolClauses(JsonNode bool, Context ctx, Parts parts, String here) {
    for (Iterator<Map.Entry<String, JsonNode>> it = bool.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      Context c =
          switch (f.getKey()) {
            case "must" -> ctx;
            case "filter" -> Context.FILTER;
            case "should" -> ctx == Context.FILTER ? Context.FILTER : Context.SHOULD;
            case "must_not" ->
                throw new InvalidRequestException(here + ".must_not is not supported");
            case "minimum_should_match" -> {
              if (!f.getValue().asText().equals("1")) {
                throw new InvalidRequestException(
                    here + ".minimum_should_match other than 1 is not supported");
              }
              yield null;
            }
            case "boost" -> null;
            default -> throw parsing("unknown key [" + f.getKey() + "] in " + here);
          };
      if (c == null) {
        continue;
      }
      JsonNode v = f.getValue();
      String w = here + "." + f.getKey();
      if (v.isArray()) {
        for (JsonNode clause : v) {
          visit(clause, c, parts, w);
        }
      } else {
        visit(v, c, parts, w);
      }
    }
  }

  private static void noTextIn(Context ctx, String where) {
    if (ctx == Context.FILTER) {
      throw new InvalidRequestException(
          where + ": a scored text query inside a filter is not supported");
    }
  }

  private static void noFilterIn(Context ctx, String where) {
    if (ctx == Context.SHOULD) {
      throw new InvalidRequestException(
          where + ": a filter inside [should] is an OR of filters, which is not supported");
    }
  }

  private static void multiMatch(JsonNode mm, Parts parts, String here) {
    String text = null;
    for (Iterator<Map.Entry<String, JsonNode>> it = mm.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      JsonNode v = f.getValue();
      switch (f.getKey()) {
        case "query" -> text = Json.string(v, here + ".query");
        case "fields" -> {
          if (!v.isArray() || v.isEmpty()) {
            throw new InvalidRequestException(here + ".fields must be a non-empty array");
          }
          for (JsonNode field : v) {
            String name = Json.string(field, here + ".fields[]");
            if (!Schema.TEXT_FIELDS.contains(name)) {
              throw new InvalidRequestException(
                  here
                      + ".fields has ["
                      + name
                      + "]; the text fields are [title, description] (no boosts)");
            }
          }
        }
        case "type" -> {
          if (!Json.string(v, here + ".type").equals("best_fields")) {
            throw new InvalidRequestException(
                here + ".type [" + v.asText() + "] is not supported; only best_fields");
          }
        }
        case "tie_breaker" -> {
          if (Json.floatValue(v, here + ".tie_breaker") != 0f) {
            throw new InvalidRequestException(here + ".tie_breaker must be 0");
          }
        }
        case "operator" -> {
          if (!"or".equalsIgnoreCase(Json.string(v, here + ".operator"))) {
            throw new InvalidRequestException(here + ".operator must be or");
          }
        }
        default ->
            throw parsing(
                "unknown key ["
                    + f.getKey()
                    + "] in "
                    + here
                    + "; supported: query, fields, type, tie_breaker, operator");
      }
    }
    if (text == null) {
      throw new InvalidRequestException(here + ".query is required");
    }
    parts.text(text, here);
  }

  private static Map.Entry<String, JsonNode> single(JsonNode obj, String where) {
    if (obj.size() != 1) {
      throw new InvalidRequestException(where + " must name exactly one field, got " + obj);
    }
    return obj.fields().next();
  }

  private static InvalidRequestException unknownField(String field, String where) {
    return new InvalidRequestException(
        where + " on unknown field [" + field + "]; text fields are title and description");
  }

  private static ApiException parsing(String reason) {
    return new ApiException(400, "parsing_exception", reason);
  }
}
