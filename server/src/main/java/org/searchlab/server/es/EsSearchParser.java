package org.searchlab.server.es;

import static org.searchlab.server.es.EsParsing.illegal;
import static org.searchlab.server.es.EsParsing.object;
import static org.searchlab.server.es.EsParsing.parsing;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Rank;
import org.searchlab.core.query.Script;
import org.searchlab.core.query.SortKey;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Json;
import org.searchlab.server.ServerLimits;
import org.searchlab.server.Text;
import org.searchlab.server.service.KnnText;

/**
 * Translates an Elasticsearch 8.x {@code _search} (or {@code _count}) request into a core {@link
 * SearchRequest}: the body's {@code query} ({@link EsQueryParser}), {@code knn} sections ({@link
 * EsKnnParser}), {@code retriever} ({@link EsRetrieverParser}) and {@code rank}, plus paging,
 * source filtering and total-hit tracking from the body and the URL. Stateless and thread-safe.
 *
 * <p>How the parts combine, as in Elasticsearch:
 *
 * <ul>
 *   <li>{@code query} alone: that query; neither {@code query} nor {@code knn}: {@code match_all}.
 *   <li>{@code knn} (one object or an array of them) alone: the kNN searches, their scores summed
 *       where they overlap; with {@code query}: hybrid, {@link Rank#SUM} (the union of the query's
 *       matches and each kNN's top k, scores added; the query keeps its own filters and each kNN
 *       its own).
 *   <li>{@code rank: {rrf: {rank_constant, rank_window_size | window_size}}} over at least two
 *       parts: {@link Rank#rrf} (window default 10, as {@code retriever.rrf}).
 *   <li>{@code retriever} instead of all three ({@link EsRetrieverParser}).
 *   <li>A {@code query} that is a {@code knn} query becomes a kNN search of the request ({@link
 *       EsKnnParser.Kind#QUERY}).
 *   <li>{@code min_score} above 0 on a request without kNN: the query wrapped in {@code
 *       script_score} of {@code _score} with that {@code min_score}, which keeps the scores and
 *       drops the hits below it (every score is ≥ 0, so 0 or less changes nothing).
 * </ul>
 *
 * <p>URL parameters {@code from}, {@code size}, {@code _source}, {@code _source_includes}, {@code
 * _source_excludes} and {@code track_total_hits} override the body, as Elasticsearch's {@code
 * RestSearchAction} applies them after parsing it.
 */
final class EsSearchParser {
  private static final Set<String> TOP_KEYS =
      Set.of(
          "query",
          "knn",
          "retriever",
          "rank",
          "from",
          "size",
          "_source",
          "track_total_hits",
          "timeout",
          "explain",
          "version",
          "seq_no_primary_term",
          "track_scores",
          "stored_fields",
          "min_score",
          "sort",
          "aggs",
          "aggregations",
          "search_after");

  /** Search body keys Elasticsearch has and this server does not, with the reason. */
  private static final Map<String, String> REFUSED =
      Map.ofEntries(
          Map.entry("highlight", "not supported"),
          Map.entry("suggest", "not supported"),
          Map.entry("collapse", "not supported"),
          Map.entry("post_filter", "not supported"),
          Map.entry("rescore", "not supported"),
          Map.entry("script_fields", "not supported"),
          Map.entry("docvalue_fields", "not supported"),
          Map.entry("fields", "not supported; use _source filtering"),
          Map.entry("indices_boost", "not supported"),
          Map.entry("profile", "not supported"),
          Map.entry("pit", "not supported"),
          Map.entry("runtime_mappings", "not supported"),
          Map.entry("terminate_after", "not supported"),
          Map.entry("stats", "not supported"),
          Map.entry("ext", "not supported"),
          Map.entry("slice", "not supported"),
          Map.entry("sub_searches", "not supported"));

  private static final Pattern TIME_VALUE =
      Pattern.compile("-1|0|\\d{1,12}(nanos|micros|ms|s|m|h|d)");

  private EsSearchParser() {}

  static EsSearch parse(JsonNode body, ApiRequest r) {
    return parse(body, r, ServerLimits.DEFAULT.maxQueryDepth());
  }

  /**
   * Translates a {@code _search} request.
   *
   * @param body the JSON body, or null for none
   * @param maxDepth the deepest nesting of compound queries ({@code --max-query-depth})
   */
  static EsSearch parse(JsonNode body, ApiRequest r, int maxDepth) {
    if (body == null) {
      body = Json.MAPPER.createObjectNode();
    }
    object(body, "search body");
    checkKeys(body);
    if (r.param("q") != null) {
      throw illegal("parameter [q] (a query string search) is not supported; send a [query] body");
    }
    // As Elasticsearch's RestSearchAction: URL parameters, when given, override the body.
    int size = pageParam(r, "size", body, SearchRequest.DEFAULT_HITS);
    int from = pageParam(r, "from", body, 0);
    EsSourceFilter source = source(body, r);
    Tracking tracking = tracking(body, r);
    harmless(body);

    EsQueryParser queries = new EsQueryParser(maxDepth, SearchRequest.maxClauseCount());
    Query query;
    List<EsKnnParser.Part> knn = new ArrayList<>();
    Rank rank = Rank.SUM;
    if (body.has("retriever")) {
      for (String k : List.of("query", "knn", "rank", "min_score")) {
        if (body.has(k)) {
          throw illegal("cannot specify [retriever] and [" + k + "] in one search body");
        }
      }
      EsRetrieverParser.Parts p =
          EsRetrieverParser.parse(body.get("retriever"), "retriever", size, queries);
      query = p.query();
      knn.addAll(p.knn());
      rank = p.rank();
    } else {
      query = null;
      if (body.has("query")) {
        query = query(body.get("query"), size, queries, knn);
      }
      if (body.has("knn")) {
        knnSections(body.get("knn"), size, queries, knn);
      }
      if (query == null && knn.isEmpty()) {
        query = Query.MatchAll.INSTANCE;
      }
      if (body.has("rank")) {
        rank = rank(body.get("rank"), (query == null ? 0 : 1) + knn.size(), size);
      }
      if (body.has("min_score")) {
        float min = EsParsing.number(body.get("min_score"), "min_score");
        if (min > 0) {
          if (query == null || !knn.isEmpty()) {
            throw illegal(
                "[min_score] "
                    + min
                    + " is supported only without kNN searches (on the query's own scores)");
          }
          query = new Query.ScriptScore(query, Script.parse("_score", Map.of()), min, 1f);
        }
      }
    }
    if (knn.size() > SearchRequest.MAX_KNN) {
      throw illegal(
          "the request has " + knn.size() + " kNN searches; the limit is " + SearchRequest.MAX_KNN);
    }
    if (body.has("aggs") && body.has("aggregations")) {
      throw parsing("Found two aggregation definitions: [aggs] and [aggregations]");
    }
    JsonNode aggsNode = body.has("aggs") ? body.get("aggs") : body.get("aggregations");
    EsAggsParser.Parsed aggs =
        aggsNode == null
            ? new EsAggsParser.Parsed(Map.of(), Map.of())
            : EsAggsParser.parse(aggsNode, queries);
    List<SortKey> sort = List.of();
    if (r.param("sort") != null) {
      sort = sortParam(r.param("sort"));
    } else if (body.has("sort")) {
      sort = EsAggsParser.sort(body.get("sort"), "sort");
    }
    List<Object> after =
        body.has("search_after")
            ? EsAggsParser.searchAfter(body.get("search_after"), "search_after")
            : List.of();
    SearchRequest request =
        SearchRequest.builder()
            .query(query)
            .knn(knn.stream().map(EsKnnParser.Part::knn).toList())
            .rank(rank)
            .hits(size)
            .offset(from)
            .trackTotalHitsUpTo(tracking.upTo)
            .fetchDocuments(source.enabled())
            .aggregations(aggs.aggs())
            .sort(sort)
            .searchAfter(after)
            .build();
    return new EsSearch(
        request,
        texts(knn),
        source,
        tracking.report,
        queryType(request),
        aggs.topHitsSources(),
        r.param("typed_keys") != null && !r.param("typed_keys").equals("false"));
  }

  /** The URL's {@code sort}: {@code field}, {@code field:asc} or {@code field:desc}, by commas. */
  private static List<SortKey> sortParam(String p) {
    List<SortKey> out = new ArrayList<>();
    for (String part : p.split(",", 33)) {
      int colon = part.lastIndexOf(':');
      String field = colon < 0 ? part : part.substring(0, colon);
      boolean asc = !field.equals(SortKey.SCORE);
      if (colon >= 0) {
        String dir = part.substring(colon + 1);
        if (!dir.equals("asc") && !dir.equals("desc")) {
          throw illegal("parameter [sort]: " + Text.quote(dir) + " is not asc or desc");
        }
        asc = dir.equals("asc");
      }
      if (field.isEmpty()) {
        throw illegal("parameter [sort] names an empty field");
      }
      out.add(new SortKey(field, asc, false, null));
    }
    return out;
  }

  /**
   * Translates a {@code _count} body: {@code query} only (none: every document), counted exactly.
   */
  static EsSearch parseCount(JsonNode body, ApiRequest r, int maxDepth) {
    if (body == null) {
      body = Json.MAPPER.createObjectNode();
    }
    object(body, "count body");
    EsParsing.keys(body, "count body", Set.of("query"), Set.of("min_score", "terminate_after"));
    if (r.param("q") != null) {
      throw illegal("parameter [q] (a query string search) is not supported; send a [query] body");
    }
    EsQueryParser queries = new EsQueryParser(maxDepth, SearchRequest.maxClauseCount());
    List<EsKnnParser.Part> knn = new ArrayList<>();
    Query query = Query.MatchAll.INSTANCE;
    if (body.has("query")) {
      query = query(body.get("query"), SearchRequest.DEFAULT_HITS, queries, knn);
    }
    SearchRequest request =
        SearchRequest.builder()
            .query(query)
            .knn(knn.stream().map(EsKnnParser.Part::knn).toList())
            .hits(0)
            .trackTotalHitsUpTo(Integer.MAX_VALUE)
            .build();
    return new EsSearch(
        request, texts(knn), EsSourceFilter.NONE, true, queryType(request), Map.of(), false);
  }

  private static void checkKeys(JsonNode body) {
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (TOP_KEYS.contains(k)) {
        continue;
      }
      String why = REFUSED.get(k);
      if (why != null) {
        throw illegal("[" + k + "] is " + why);
      }
      throw parsing(
          "unknown key ["
              + Text.quote(k)
              + "] in the search body; supported: "
              + String.join(", ", new TreeSet<>(TOP_KEYS)));
    }
  }

  /** {@code size} or {@code from}: the URL's, else the body's, else {@code dflt}. */
  private static int pageParam(ApiRequest r, String name, JsonNode body, int dflt) {
    String p = r.param(name);
    if (p != null) {
      return Json.integer(
          Json.MAPPER.getNodeFactory().textNode(p),
          "parameter [" + name + "]",
          0,
          SearchRequest.MAX_WINDOW);
    }
    return body.has(name)
        ? Json.integer(body.get(name), "[" + name + "]", 0, SearchRequest.MAX_WINDOW)
        : dflt;
  }

  /**
   * The body's {@code _source}, overridden by the URL's; {@code stored_fields} without an explicit
   * {@code _source} leaves the source out, as in Elasticsearch (no field is stored apart from it).
   */
  private static EsSourceFilter source(JsonNode body, ApiRequest r) {
    EsSourceFilter fromBody = EsSourceFilter.ALL;
    if (body.has("_source")) {
      fromBody = EsSourceFilter.parse(body.get("_source"));
    } else if (body.has("stored_fields")) {
      JsonNode sf = body.get("stored_fields");
      if (!sf.isTextual() && !sf.isArray()) {
        throw illegal(
            "[stored_fields] must be a field name or an array of them, got " + Json.describe(sf));
      }
      fromBody = EsSourceFilter.NONE;
    }
    return EsSourceFilter.fromParams(r, fromBody);
  }

  /**
   * {@code track_total_hits}.
   *
   * @param upTo count exactly up to this many
   * @param report whether the answer carries {@code hits.total}
   */
  private record Tracking(int upTo, boolean report) {}

  private static Tracking tracking(JsonNode body, ApiRequest r) {
    JsonNode tth = body.get("track_total_hits");
    if (r.param("track_total_hits") != null) {
      tth = Json.MAPPER.getNodeFactory().textNode(r.param("track_total_hits"));
    }
    if (tth == null) {
      return new Tracking(SearchRequest.DEFAULT_TRACK_TOTAL_HITS, true);
    }
    if (tth.isBoolean() || tth.isTextual() && !tth.textValue().matches("-?\\d{1,19}")) {
      boolean t = Json.bool(tth, "[track_total_hits]");
      return new Tracking(t ? Integer.MAX_VALUE : 0, t);
    }
    return new Tracking(Json.integer(tth, "[track_total_hits]", 0, Integer.MAX_VALUE), true);
  }

  /**
   * The keys that change nothing here, checked: {@code timeout} (the server runs a search to its
   * end, so it never times out early), {@code track_scores} (scores are always computed), and
   * {@code explain}, {@code version}, {@code seq_no_primary_term} when false.
   */
  private static void harmless(JsonNode body) {
    if (body.has("timeout")) {
      JsonNode t = body.get("timeout");
      if (!t.isTextual() || !TIME_VALUE.matcher(t.textValue()).matches()) {
        throw illegal(
            "[timeout] must be a time value such as 10s or 500ms, got " + Json.describe(t));
      }
    }
    if (body.has("track_scores")) {
      Json.bool(body.get("track_scores"), "[track_scores]");
    }
    Map<String, String> missing =
        Map.of(
            "explain", "_explanation",
            "version", "_version",
            "seq_no_primary_term", "_seq_no or _primary_term");
    for (Map.Entry<String, String> e : missing.entrySet()) {
      if (body.has(e.getKey()) && Json.bool(body.get(e.getKey()), "[" + e.getKey() + "]")) {
        throw illegal("[" + e.getKey() + "] true is not supported: hits carry no " + e.getValue());
      }
    }
  }

  /** The body's {@code query}: a query, or a {@code knn} query added to {@code knn}. */
  private static Query query(
      JsonNode node, int size, EsQueryParser queries, List<EsKnnParser.Part> knn) {
    if (node != null && node.isObject() && node.size() == 1 && node.has("knn")) {
      knn.add(
          EsKnnParser.parse(node.get("knn"), "query.knn", EsKnnParser.Kind.QUERY, size, queries));
      return null;
    }
    return queries.parse(node, "query");
  }

  /** The body's {@code knn}: one section or an array of them. */
  private static void knnSections(
      JsonNode node, int size, EsQueryParser queries, List<EsKnnParser.Part> knn) {
    if (node.isArray()) {
      if (node.size() > SearchRequest.MAX_KNN) {
        throw illegal(
            "[knn] has " + node.size() + " sections; the limit is " + SearchRequest.MAX_KNN);
      }
      for (int i = 0; i < node.size(); i++) {
        knn.add(
            EsKnnParser.parse(
                node.get(i), "knn[" + i + "]", EsKnnParser.Kind.SECTION, size, queries));
      }
    } else {
      knn.add(EsKnnParser.parse(node, "knn", EsKnnParser.Kind.SECTION, size, queries));
    }
  }

  /** {@code rank: {rrf: {...}}} over {@code parts} ranked parts. */
  private static Rank rank(JsonNode node, int parts, int size) {
    object(node, "rank");
    EsParsing.keys(node, "rank", Set.of("rrf"), Set.of());
    if (!node.has("rrf")) {
      throw parsing("[rank] must hold [rrf]");
    }
    JsonNode rrf = object(node.get("rrf"), "rank.rrf");
    EsParsing.keys(
        rrf, "rank.rrf", Set.of("rank_constant", "rank_window_size", "window_size"), Set.of());
    if (parts < 2) {
      throw illegal(
          "[rank] requires at least two result sets (a query and a knn search, or two knn"
              + " searches); this request has "
              + parts);
    }
    if (size == 0) {
      throw illegal("[rank] requires [size] greater than [0]");
    }
    return EsRetrieverParser.rank(rrf, "rank.rrf");
  }

  /** Which kNN searches need their vector embedded from text. */
  private static List<KnnText> texts(List<EsKnnParser.Part> knn) {
    List<KnnText> out = new ArrayList<>();
    for (int i = 0; i < knn.size(); i++) {
      if (knn.get(i).embedText() != null) {
        out.add(new KnnText(i, knn.get(i).embedText()));
      }
    }
    return out;
  }

  /**
   * The metrics label: {@code hybrid} (a scoring query and kNN), {@code lexical}, {@code vector},
   * or {@code unranked} (a query that scores every match the same).
   */
  static String queryType(SearchRequest r) {
    boolean scored = r.query() != null && scores(r.query());
    boolean vector = !r.knn().isEmpty();
    if (scored) {
      return vector ? "hybrid" : "lexical";
    }
    return vector ? "vector" : "unranked";
  }

  private static boolean scores(Query q) {
    return switch (q) {
      case Query.MatchAll a -> false;
      case Query.MatchNone n -> false;
      case Query.ConstantScore c -> false;
      case Query.Terms t -> false;
      case Query.Range r -> false;
      case Query.Exists e -> false;
      case Query.Ids i -> false;
      case Query.Bool b ->
          b.must().stream().anyMatch(EsSearchParser::scores)
              || b.should().stream().anyMatch(EsSearchParser::scores);
      case Query.DisMax d -> d.queries().stream().anyMatch(EsSearchParser::scores);
      case Query.ScriptScore s -> true;
      case Query.Match m -> true;
      case Query.MultiMatch m -> true;
      case Query.Term t -> true;
    };
  }
}
