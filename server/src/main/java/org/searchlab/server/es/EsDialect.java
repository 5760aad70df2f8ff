// Over 500 lines: every Elasticsearch route, each a thin translation onto an index's service; the
// routing table reads best in one place.
package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.Timings;
import org.searchlab.core.TotalHits;
import org.searchlab.core.WriteResult;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingJson;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.ApiResponse;
import org.searchlab.server.Dialect;
import org.searchlab.server.Json;
import org.searchlab.server.ServerConfig;
import org.searchlab.server.index.IndexHandle;
import org.searchlab.server.index.Indices;
import org.searchlab.server.service.SearchService;

/**
 * The Elasticsearch routes: a thin translator between Elasticsearch 8.x requests and the services
 * of the server's indexes. Index APIs ({@code PUT}, {@code GET}, {@code HEAD}, {@code DELETE
 * /{index}}, {@code _mapping}, {@code _settings}, {@code _cat/indices}), documents ({@code _doc},
 * {@code _create}, {@code _update}, {@code _source}, {@code _bulk} over any indexes), searches and
 * counts over index expressions ({@code a,b}, {@code logs-*}, {@code _all}), {@code _mget}, {@code
 * _msearch}, {@code _delete_by_query} and {@code _update_by_query}, and {@code _refresh}, {@code
 * _flush}, {@code _forcemerge} ({@code _segments} and the other cluster-level routes are {@link
 * EsClusterApi}'s). A write to an index that does not exist creates it with dynamic mapping, as
 * Elasticsearch's {@code action.auto_create_index} does. It answers every path the other dialects
 * do not own. Thread-safe (stateless over the indexes).
 */
public final class EsDialect implements Dialect {
  private static final Pattern COMPATIBLE =
      Pattern.compile("compatible-with\\s*=\\s*\"?(\\d+)\"?", Pattern.CASE_INSENSITIVE);

  private final Indices indices;
  private final ServerConfig config;
  private final EsClusterApi cluster;

  /**
   * @param cluster the cluster-level routes ({@code _cluster}, {@code _nodes}, {@code _tasks},
   *     {@code _stats}, background force-merges, searches over no index), which answer every
   *     request they own
   */
  public EsDialect(Indices indices, ServerConfig config, EsClusterApi cluster) {
    this.indices = indices;
    this.config = config;
    this.cluster = cluster;
  }

  @Override
  public String name() {
    return "es";
  }

  @Override
  public boolean owns(String path) {
    return true;
  }

  @Override
  public Work work(ApiRequest r) {
    if (cluster.owns(r)) {
      return cluster.work(r);
    }
    String[] s = r.segments();
    if (s.length == 0) {
      return Work.INLINE;
    }
    String last = s[s.length - 1];
    boolean read =
        r.method().equals(HttpMethod.GET)
            || r.method().equals(HttpMethod.HEAD)
            || last.equals("_search")
            || last.equals("_count")
            || last.equals("_mget")
            || last.equals("_msearch");
    return read ? Work.SEARCH : Work.WRITE;
  }

  @Override
  public ApiResponse handle(ApiRequest r) throws IOException {
    if (r.hasBody()) { // as Elasticsearch: the type of a body, and there is none to type
      checkMediaType(r, r.headers().get(HttpHeaderNames.CONTENT_TYPE), true);
    }
    checkMediaType(r, r.headers().get(HttpHeaderNames.ACCEPT), false);
    if (cluster.owns(r)) {
      return cluster.handle(r);
    }
    String[] s = r.segments();
    if (s.length == 0) {
      method(r, HttpMethod.GET, HttpMethod.HEAD);
      return EsResponses.json(200, EsResponses.root(config.indexName())).tagged("root", "none");
    }
    if (s[0].startsWith("_")) {
      return switch (s[0]) {
        case "_bulk" -> single(s, r, () -> bulk(r, null));
        case "_search" -> single(s, r, () -> search(r, "_all"));
        case "_count" -> single(s, r, () -> count(r, "_all"));
        case "_mget" -> single(s, r, () -> mget(r, null));
        case "_msearch" -> single(s, r, () -> msearch(r, null));
        case "_refresh" -> single(s, r, () -> refresh(r, "_all"));
        case "_flush" -> single(s, r, () -> flush(r, "_all"));
        case "_forcemerge" -> single(s, r, () -> forceMerge(r, "_all"));
        case "_mapping", "_mappings" -> single(s, r, () -> getMapping(r, "_all"));
        case "_settings" -> single(s, r, () -> getSettings(r, "_all"));
        case "_cat" -> cat(r, s);
        default -> {
          // PUT /_x is an index creation with a name Elasticsearch refuses, not an unknown API.
          if (s.length == 1 && r.method().equals(HttpMethod.PUT)) {
            yield indexLevel(r, s[0]);
          }
          throw unknownEndpoint(r);
        }
      };
    }
    String name = s[0];
    if (s.length == 1) {
      return indexLevel(r, name);
    }
    String op = s[1];
    if (s.length == 2) {
      return switch (op) {
        case "_bulk" -> bulk(r, concrete(name));
        case "_search" -> search(r, name);
        case "_count" -> count(r, name);
        case "_mget" -> mget(r, name);
        case "_msearch" -> msearch(r, name);
        case "_delete_by_query" -> byQuery(r, name, false);
        case "_update_by_query" -> byQuery(r, name, true);
        case "_refresh" -> refresh(r, name);
        case "_flush" -> flush(r, name);
        case "_forcemerge" -> forceMerge(r, name);
        case "_mapping", "_mappings" ->
            r.method().equals(HttpMethod.GET) ? getMapping(r, name) : putMapping(r, name);
        case "_settings" -> getSettings(r, name);
        case "_doc" -> {
          method(r, HttpMethod.POST);
          yield put(r, concrete(name), EsIds.next(), true);
        }
        default -> throw unknownEndpoint(r);
      };
    }
    if (s.length == 3) {
      String id = s[2];
      return switch (op) {
        case "_doc" -> doc(r, concrete(name), id);
        case "_create" -> {
          method(r, HttpMethod.PUT, HttpMethod.POST);
          yield put(r, concrete(name), id, true);
        }
        case "_update" -> update(r, concrete(name), id);
        case "_source" -> {
          method(r, HttpMethod.GET, HttpMethod.HEAD);
          IndexHandle h = indices.require(concrete(name));
          try (IndexHandle.Lease l = h.lease()) {
            Document d = h.service().get(id).orElseThrow(() -> docMissing(id));
            EsSourceFilter filter = EsSourceFilter.fromParams(r, EsSourceFilter.ALL);
            yield EsResponses.json(200, filter.apply(EsDocuments.source(d)))
                .tagged("_source", "none");
          }
        }
        default -> throw unknownEndpoint(r);
      };
    }
    throw unknownEndpoint(r);
  }

  /**
   * The cluster routes answer with a future, so that a request waiting on a condition holds no
   * thread.
   */
  @Override
  public CompletableFuture<ApiResponse> handleAsync(ApiRequest r) throws IOException {
    if (!cluster.owns(r)) {
      return Dialect.super.handleAsync(r);
    }
    if (r.hasBody()) { // as Elasticsearch: the type of a body, and there is none to type
      checkMediaType(r, r.headers().get(HttpHeaderNames.CONTENT_TYPE), true);
    }
    checkMediaType(r, r.headers().get(HttpHeaderNames.ACCEPT), false);
    return cluster.handleAsync(r);
  }

  private interface Call {
    ApiResponse run() throws IOException;
  }

  private ApiResponse single(String[] s, ApiRequest r, Call c) throws IOException {
    if (s.length != 1) {
      throw unknownEndpoint(r);
    }
    return c.run();
  }

  /** A path segment that must name one index, not a list or a pattern. */
  private static String concrete(String name) {
    if (name.indexOf(',') >= 0 || name.indexOf('*') >= 0 || name.equals("_all")) {
      throw new InvalidRequestException(
          "["
              + abbreviate(name)
              + "] names several indexes or a pattern; this operation needs one index");
    }
    return name;
  }

  /**
   * Accepts {@code application/json}, {@code application/x-ndjson} and {@code
   * application/vnd.elasticsearch+json|x-ndjson; compatible-with=8|9}; another media type is 406
   * (as Elasticsearch answers), another compatibility version 400.
   */
  private static void checkMediaType(ApiRequest r, String value, boolean contentType) {
    if (value == null || value.isBlank()) {
      return;
    }
    String header = contentType ? "Content-Type" : "Accept";
    for (String part : value.split(",")) {
      String type = part.split(";")[0].trim().toLowerCase(Locale.ROOT);
      boolean vendor = type.startsWith("application/vnd.elasticsearch+");
      boolean ok =
          switch (type) {
            case "application/json", "application/x-ndjson" -> true;
            case "application/vnd.elasticsearch+json", "application/vnd.elasticsearch+x-ndjson" ->
                true;
            // A body-less POST from aiohttp (Rally's _refresh and _forcemerge) names this type.
            case "application/octet-stream" -> contentType && !r.hasBody();
            case "*/*", "application/*" -> !contentType;
            default -> !contentType && type.startsWith("text/");
          };
      if (!ok) {
        throw new ApiException(
            406,
            "media_type_header_exception",
            header
                + " ["
                + value
                + "] is not supported; use application/json, application/x-ndjson or"
                + " application/vnd.elasticsearch+json; compatible-with=8");
      }
      if (vendor) {
        Matcher m = COMPATIBLE.matcher(part);
        if (!m.find()) {
          throw new ApiException(
              400,
              "media_type_header_exception",
              header + " [" + value + "] lacks compatible-with");
        }
        String v = m.group(1);
        if (!v.equals("8") && !v.equals("9")) {
          throw new ApiException(
              400,
              "media_type_header_exception",
              header + " asks for compatible-with=" + v + "; this server speaks 8 and 9");
        }
      }
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Index APIs

  private ApiResponse indexLevel(ApiRequest r, String name) throws IOException {
    HttpMethod m = r.method();
    if (m.equals(HttpMethod.PUT)) {
      JsonNode body = r.hasBody() ? Json.parse(r.body(), "create-index body") : null;
      IndexHandle h = indices.create(name, body);
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("acknowledged", true).put("shards_acknowledged", true).put("index", h.name());
      return EsResponses.json(200, o).tagged("create_index", "none");
    }
    if (m.equals(HttpMethod.HEAD)) {
      for (String part : name.split(",")) {
        if (!part.isEmpty() && indices.resolve(part).isEmpty()) {
          return EsResponses.json(404, Json.MAPPER.createObjectNode())
              .tagged("index_exists", "none");
        }
      }
      return EsResponses.json(200, Json.MAPPER.createObjectNode()).tagged("index_exists", "none");
    }
    if (m.equals(HttpMethod.GET)) {
      ObjectNode o = Json.MAPPER.createObjectNode();
      for (IndexHandle h : indices.resolve(name)) {
        ObjectNode i = o.putObject(h.name());
        i.putObject("aliases");
        i.set("mappings", MappingJson.render(h.index().mapping()));
        i.set("settings", settingsJson(h, r));
      }
      return EsResponses.json(200, o).tagged("get_index", "none");
    }
    if (m.equals(HttpMethod.DELETE)) {
      for (String part : name.split(",")) {
        if (part.indexOf('*') >= 0 || part.equals("_all")) {
          throw new InvalidRequestException(
              "Wildcard expressions or all indices are not allowed"
                  + " (action.destructive_requires_name); name each index to delete");
        }
      }
      for (IndexHandle h : indices.resolve(name)) {
        indices.delete(h.name());
      }
      ObjectNode o = Json.MAPPER.createObjectNode().put("acknowledged", true);
      return EsResponses.json(200, o).tagged("delete_index", "none");
    }
    throw methodNotAllowed(r, "PUT, GET, HEAD or DELETE");
  }

  private static ObjectNode settingsJson(IndexHandle h, ApiRequest r) {
    boolean flat = "true".equals(r.param("flat_settings"));
    return h.settings().toJson(flat);
  }

  private ApiResponse getMapping(ApiRequest r, String expression) {
    method(r, HttpMethod.GET);
    ObjectNode o = Json.MAPPER.createObjectNode();
    for (IndexHandle h : indices.resolve(expression)) {
      o.putObject(h.name()).set("mappings", MappingJson.render(h.index().mapping()));
    }
    return EsResponses.json(200, o).tagged("_mapping", "none");
  }

  private ApiResponse putMapping(ApiRequest r, String expression) throws IOException {
    method(r, HttpMethod.PUT, HttpMethod.POST);
    JsonNode body = Json.parse(r.body(), "mapping body");
    List<IndexHandle> targets = indices.resolve(expression);
    // All checked before any is changed: a conflict with one index changes none.
    List<Mapping> updates = new ArrayList<>();
    for (IndexHandle h : targets) {
      Mapping update = MappingJson.parse(body, h.settings());
      h.index().mapping().merge(update);
      updates.add(update);
    }
    for (int i = 0; i < targets.size(); i++) {
      IndexHandle h = targets.get(i);
      try (IndexHandle.Lease l = h.lease()) {
        h.index().putMapping(updates.get(i));
      }
    }
    ObjectNode o = Json.MAPPER.createObjectNode().put("acknowledged", true);
    return EsResponses.json(200, o).tagged("put_mapping", "none");
  }

  private ApiResponse getSettings(ApiRequest r, String expression) {
    method(r, HttpMethod.GET);
    ObjectNode o = Json.MAPPER.createObjectNode();
    for (IndexHandle h : indices.resolve(expression)) {
      o.putObject(h.name()).set("settings", settingsJson(h, r));
    }
    return EsResponses.json(200, o).tagged("_settings", "none");
  }

  private ApiResponse cat(ApiRequest r, String[] s) throws IOException {
    if (s.length < 2 || s.length > 3 || !s[1].equals("indices")) {
      throw unknownEndpoint(r);
    }
    method(r, HttpMethod.GET);
    List<Map<String, String>> rows = new ArrayList<>();
    for (IndexHandle h : indices.resolve(s.length == 3 ? s[2] : "_all")) {
      IndexStats st;
      try (IndexHandle.Lease l = h.lease()) {
        st = h.index().stats();
      }
      Map<String, String> row = new LinkedHashMap<>();
      row.put("health", health(h));
      row.put("status", "open");
      row.put("index", h.name());
      row.put("uuid", h.uuid());
      row.put("pri", "1");
      row.put("rep", Integer.toString(h.settings().replicas()));
      row.put("docs.count", Long.toString(st.docCount()));
      row.put("docs.deleted", Long.toString(st.deletedDocs()));
      long bytes = h.diskBytes();
      row.put("store.size", bytes < 0 ? "-" : size(bytes, r));
      row.put("pri.store.size", bytes < 0 ? "-" : size(bytes, r));
      row.put("dataset.size", bytes < 0 ? "-" : size(bytes, r));
      rows.add(row);
    }
    if ("json".equals(r.param("format"))) {
      ArrayNode a = Json.MAPPER.createArrayNode();
      for (Map<String, String> row : rows) {
        ObjectNode o = a.addObject();
        row.forEach(o::put);
      }
      return EsResponses.json(200, a).tagged("_cat_indices", "none");
    }
    return catText(rows, r).tagged("_cat_indices", "none");
  }

  /**
   * Elasticsearch's health of one index on one node: red if its store stopped, yellow with
   * replicas.
   */
  static String health(IndexHandle h) {
    if (!h.index().health().writable()) {
      return "red";
    }
    return h.settings().replicas() > 0 ? "yellow" : "green";
  }

  private static String size(long bytes, ApiRequest r) {
    String unit = r.param("bytes");
    if (unit != null) {
      return switch (unit) {
        case "b" -> Long.toString(bytes);
        case "kb" -> Long.toString(bytes >> 10);
        case "mb" -> Long.toString(bytes >> 20);
        case "gb" -> Long.toString(bytes >> 30);
        default -> throw new InvalidRequestException("[bytes] must be b, kb, mb or gb");
      };
    }
    if (bytes < 1024) {
      return bytes + "b";
    }
    String[] units = {"kb", "mb", "gb", "tb"};
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, "%.1f%s", v, units[u]);
  }

  /** Elasticsearch's {@code _cat} text: columns padded to their widest value, a header with v. */
  private static ApiResponse catText(List<Map<String, String>> rows, ApiRequest r) {
    List<String> cols = new ArrayList<>();
    if (!rows.isEmpty()) {
      cols.addAll(rows.get(0).keySet());
    } else {
      cols.addAll(
          List.of(
              "health",
              "status",
              "index",
              "uuid",
              "pri",
              "rep",
              "docs.count",
              "docs.deleted",
              "store.size",
              "pri.store.size",
              "dataset.size"));
    }
    String h = r.param("h");
    if (h != null) {
      List<String> chosen = new ArrayList<>();
      for (String c : h.split(",")) {
        if (!cols.contains(c.trim())) {
          throw new InvalidRequestException(
              "[h] names the unknown column [" + abbreviate(c) + "]; known: " + cols);
        }
        chosen.add(c.trim());
      }
      cols = chosen;
    }
    boolean header = r.param("v") != null && !"false".equals(r.param("v"));
    int[] width = new int[cols.size()];
    for (int c = 0; c < cols.size(); c++) {
      width[c] = header ? cols.get(c).length() : 0;
      for (Map<String, String> row : rows) {
        width[c] = Math.max(width[c], row.get(cols.get(c)).length());
      }
    }
    StringBuilder sb = new StringBuilder();
    if (header) {
      line(sb, cols, width);
    }
    for (Map<String, String> row : rows) {
      List<String> values = new ArrayList<>();
      for (String c : cols) {
        values.add(row.get(c));
      }
      line(sb, values, width);
    }
    return new ApiResponse(
        200,
        "text/plain; charset=UTF-8",
        sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8),
        EsResponses.PRODUCT_HEADER,
        "unknown",
        "none");
  }

  private static void line(StringBuilder sb, List<String> values, int[] width) {
    for (int i = 0; i < values.size(); i++) {
      String v = values.get(i);
      sb.append(v);
      if (i + 1 < values.size()) {
        sb.append(" ".repeat(width[i] - v.length() + 1));
      }
    }
    sb.append('\n');
  }

  // ----------------------------------------------------------------------------------------------
  // Searches

  private ApiResponse search(ApiRequest r, String expression) throws IOException {
    method(r, HttpMethod.GET, HttpMethod.POST);
    long t0 = System.nanoTime();
    List<IndexHandle> targets = indices.resolve(expression);
    if (targets.isEmpty()) {
      // A pattern that matches no index: Elasticsearch answers an empty search whatever the body
      // asks (allow_no_indices), so the body is not read (Rally's closing search has aggs).
      return EsResponses.json(200, EsResponses.empty((System.nanoTime() - t0) / 1_000_000))
          .tagged("_search", "none");
    }
    JsonNode body = r.hasBody() ? Json.parse(r.body(), "search body") : null;
    EsSearch q = EsSearchParser.parse(body, r, config.limits().maxQueryDepth());
    return EsResponses.json(200, search(targets, q, t0)).tagged("_search", q.queryType());
  }

  /** {@code _msearch}: each item through {@link #search(List, EsSearch, long)}. */
  private ApiResponse msearch(ApiRequest r, String pathIndex) throws IOException {
    method(r, HttpMethod.GET, HttpMethod.POST);
    return EsMultiSearch.msearch(
        r,
        pathIndex,
        body -> EsSearchParser.parse(body, r, config.limits().maxQueryDepth()),
        (expression, q) -> {
          long t0 = System.nanoTime();
          List<IndexHandle> targets = indices.resolve(expression);
          if (targets.isEmpty()) {
            return EsResponses.empty((System.nanoTime() - t0) / 1_000_000);
          }
          return search(targets, q, t0);
        });
  }

  private ApiResponse mget(ApiRequest r, String pathIndex) throws IOException {
    method(r, HttpMethod.GET, HttpMethod.POST);
    return EsMultiGet.mget(r, pathIndex, indices);
  }

  /** {@code _delete_by_query} or {@code _update_by_query} over the indexes of an expression. */
  private ApiResponse byQuery(ApiRequest r, String expression, boolean update) throws IOException {
    method(r, HttpMethod.POST);
    EsByQuery.Job job = EsByQuery.parse(r, config.limits().maxQueryDepth(), update);
    List<IndexHandle> targets = indices.resolve(expression);
    EsByQuery.Progress p = new EsByQuery.Progress();
    // An update finds every index's matches before it writes to any, so that one refused for
    // matching too many leaves the others untouched.
    List<List<Hit>> matches = new ArrayList<>();
    if (update) {
      for (IndexHandle h : targets) {
        try (IndexHandle.Lease l = h.lease()) {
          matches.add(EsByQuery.matchesToUpdate(h, job));
        }
      }
    }
    for (int i = 0; i < targets.size() && !p.aborted; i++) {
      IndexHandle h = targets.get(i);
      try (IndexHandle.Lease l = h.lease()) {
        if (update) {
          EsByQuery.update(h, matches.get(i), job, p);
        } else {
          EsByQuery.delete(h, job, p);
        }
      }
    }
    return update
        ? p.answer("updated", "_update_by_query")
        : p.answer("deleted", "_delete_by_query");
  }

  /** One parsed search over resolved indexes, as the body of a {@code _search} answer. */
  private ObjectNode search(List<IndexHandle> targets, EsSearch q, long t0) throws IOException {
    List<String> hitIndexes = new ArrayList<>();
    SearchResult result;
    if (targets.size() == 1) {
      IndexHandle h = targets.get(0);
      try (IndexHandle.Lease l = h.lease()) {
        result = runSearch(h.service(), q, q.request().offset(), q.request().hits());
      }
      for (int i = 0; i < result.hits().size(); i++) {
        hitIndexes.add(h.name());
      }
    } else {
      result = searchMany(targets, q, hitIndexes);
    }
    ObjectNode out =
        EsResponses.search(
            hitIndexes,
            result,
            (System.nanoTime() - t0) / 1_000_000,
            q.trackTotal(),
            q.source(),
            q.request().sort().stream()
                .anyMatch(k -> k.field().equals(org.searchlab.core.query.SortKey.SCORE)));
    if (!result.aggregations().isEmpty()) {
      out.set(
          "aggregations",
          EsAggsResponse.render(
              result.aggregations(),
              q.request().aggregations(),
              targets.get(0).index().mapping(),
              targets.get(0).name(),
              q.topHitsSources(),
              q.typedKeys()));
    }
    return out;
  }

  /**
   * Runs one parsed search on one index with another page; its hits carry their documents when the
   * source is asked for (the fetch phase runs in the store, on the view the hits were scored in).
   */
  private static SearchResult runSearch(SearchService service, EsSearch q, int offset, int hits)
      throws IOException {
    return service.search(q.request().withPage(offset, hits), q.embedTexts());
  }

  /**
   * A search over several indexes: each index's top {@code from + size}, merged by score (ties by
   * index order), then the page; totals added, a lower bound if any index's is one.
   */
  private static SearchResult searchMany(
      List<IndexHandle> targets, EsSearch q, List<String> hitIndexes) throws IOException {
    if (q.request().needsEveryMatch()) {
      throw new InvalidRequestException(
          "[aggs] and [sort] over more than one index are not supported by this server; search"
              + " one index at a time");
    }
    int window = q.request().offset() + q.request().hits();
    record Tagged(String index, Hit hit) {}
    List<Tagged> all = new ArrayList<>();
    long total = 0;
    boolean exact = true;
    long nanos = 0;
    for (IndexHandle h : targets) {
      SearchResult r;
      try (IndexHandle.Lease l = h.lease()) {
        r = runSearch(h.service(), q, 0, window);
      }
      for (Hit hit : r.hits()) {
        all.add(new Tagged(h.name(), hit));
      }
      total += r.total().value();
      exact &= r.total().exact();
      nanos += r.timings().totalNanos();
    }
    all.sort((a, b) -> Float.compare(b.hit().score(), a.hit().score()));
    List<Hit> page = new ArrayList<>();
    for (int i = q.request().offset(); i < Math.min(window, all.size()); i++) {
      page.add(all.get(i).hit());
      hitIndexes.add(all.get(i).index());
    }
    return new SearchResult(
        page,
        exact ? TotalHits.exact(total) : TotalHits.atLeast(total),
        QueryPlan.EMPTY,
        new Timings(nanos, 0, 0, 0));
  }

  private ApiResponse count(ApiRequest r, String expression) throws IOException {
    method(r, HttpMethod.GET, HttpMethod.POST);
    long count = 0;
    EsSearch q = null;
    if (r.hasBody()) {
      JsonNode body = Json.parse(r.body(), "count body");
      q = EsSearchParser.parseCount(body, r, config.limits().maxQueryDepth());
    }
    List<IndexHandle> targets = indices.resolve(expression);
    for (IndexHandle h : targets) {
      try (IndexHandle.Lease l = h.lease()) {
        // Without a body: every document, counted exactly as a query of match_all.
        count +=
            q == null
                ? h.service()
                    .search(
                        SearchRequest.builder()
                            .query(org.searchlab.core.query.Query.MatchAll.INSTANCE)
                            .hits(0)
                            .trackTotalHitsUpTo(Integer.MAX_VALUE)
                            .build(),
                        List.of())
                    .total()
                    .value()
                : h.service().search(q.request(), q.embedTexts()).total().value();
      }
    }
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("count", count);
    o.set("_shards", shards(targets.size()).put("skipped", 0));
    return EsResponses.json(200, o).tagged("_count", "none");
  }

  private static ObjectNode shards(int n) {
    return Json.MAPPER.createObjectNode().put("total", n).put("successful", n).put("failed", 0);
  }

  // ----------------------------------------------------------------------------------------------
  // Refresh, flush, force-merge

  private interface IndexCall {
    void run(SearchService service) throws IOException;
  }

  private ApiResponse onEach(String expression, String endpoint, IndexCall call)
      throws IOException {
    List<IndexHandle> targets = indices.resolve(expression);
    for (IndexHandle h : targets) {
      try (IndexHandle.Lease l = h.lease()) {
        call.run(h.service());
      }
    }
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.set("_shards", shards(targets.size()));
    return EsResponses.json(200, o).tagged(endpoint, "none");
  }

  private ApiResponse refresh(ApiRequest r, String expression) throws IOException {
    method(r, HttpMethod.POST, HttpMethod.GET);
    return onEach(expression, "_refresh", SearchService::refresh);
  }

  private ApiResponse flush(ApiRequest r, String expression) throws IOException {
    method(r, HttpMethod.POST, HttpMethod.GET);
    return onEach(expression, "_flush", SearchService::flush);
  }

  /**
   * Merges each index down to {@code max_num_segments} and then, with {@code flush=true} (the
   * default, as in Elasticsearch), commits it: without the commit, the last commit point keeps
   * every merged-away segment's files on disk and a restart reopens the segments as they were
   * before.
   */
  private ApiResponse forceMerge(ApiRequest r, String expression) throws IOException {
    method(r, HttpMethod.POST);
    int n = r.intParam("max_num_segments", 1);
    boolean flush = EsParams.bool(r, "flush", true);
    return onEach(
        expression,
        "_forcemerge",
        s -> {
          s.forceMerge(n);
          if (flush) {
            s.flush();
          }
        });
  }

  // ----------------------------------------------------------------------------------------------
  // Documents

  /** The index a write goes to, created with dynamic mapping when it does not exist. */
  private IndexHandle forWrite(String name) throws IOException {
    IndexHandle h = indices.get(name);
    return h != null ? h : indices.autoCreate(name);
  }

  private ApiResponse bulk(ApiRequest r, String pathIndex) throws IOException {
    method(r, HttpMethod.POST, HttpMethod.PUT);
    long t0 = System.nanoTime();
    List<EsBulkParser.Item> items = EsBulkParser.parse(r.body(), pathIndex);
    int n = items.size();
    List<BulkItemResult> results = new ArrayList<>(java.util.Collections.nCopies(n, null));
    // Items are grouped by index, each group one call to its store, answers in request order.
    Map<String, List<Integer>> byIndex = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      EsBulkParser.Item item = items.get(i);
      if (item.error() != null) {
        results.set(i, BulkItemResult.failed(item.op(), item.error()));
      } else {
        byIndex.computeIfAbsent(item.index(), k -> new ArrayList<>()).add(i);
      }
    }
    for (Map.Entry<String, List<Integer>> e : byIndex.entrySet()) {
      List<Integer> slots = e.getValue();
      IndexHandle h;
      try {
        boolean creates = false;
        for (int i : slots) {
          creates |= items.get(i).op() instanceof Operation.Put;
        }
        h = creates ? forWrite(e.getKey()) : indices.require(e.getKey());
      } catch (ApiException | InvalidRequestException missing) {
        InvalidRequestException err =
            missing instanceof ApiException a
                ? new EsBulkParser.ItemError(a.status(), a.type(), a.getMessage())
                : (InvalidRequestException) missing;
        for (int i : slots) {
          results.set(i, BulkItemResult.failed(items.get(i).op(), err));
        }
        continue;
      }
      List<Operation> ops = new ArrayList<>(slots.size());
      List<InvalidRequestException> none = new ArrayList<>(slots.size());
      for (int i : slots) {
        ops.add(items.get(i).op());
        none.add(null);
      }
      try (IndexHandle.Lease l = h.lease()) {
        List<BulkItemResult> rs = h.service().bulk(ops, none);
        for (int j = 0; j < slots.size(); j++) {
          results.set(slots.get(j), rs.get(j));
        }
        refreshIfAsked(r, h);
      }
    }
    List<String> actions = new ArrayList<>(n);
    List<String> ids = new ArrayList<>(n);
    List<String> names = new ArrayList<>(n);
    for (EsBulkParser.Item item : items) {
      actions.add(item.action());
      ids.add(item.id());
      names.add(item.index());
    }
    ObjectNode out =
        EsResponses.bulk(names, (System.nanoTime() - t0) / 1_000_000, actions, ids, results);
    return EsResponses.json(200, out).tagged("_bulk", "none");
  }

  private ApiResponse doc(ApiRequest r, String index, String id) throws IOException {
    HttpMethod m = r.method();
    if (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD)) {
      IndexHandle h = indices.require(index);
      Optional<Document> d;
      try (IndexHandle.Lease l = h.lease()) {
        d = h.service().get(id);
      }
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("_index", h.name()).put("_id", id);
      if (d.isEmpty()) {
        o.put("found", false);
        return EsResponses.json(404, o).tagged("_doc_get", "none");
      }
      o.put("_version", 1).put("_seq_no", 0).put("_primary_term", 1).put("found", true);
      EsSourceFilter filter = EsSourceFilter.fromParams(r, EsSourceFilter.ALL);
      if (filter.enabled()) {
        o.set("_source", filter.apply(EsDocuments.source(d.get())));
      }
      return EsResponses.json(200, o).tagged("_doc_get", "none");
    }
    if (m.equals(HttpMethod.PUT) || m.equals(HttpMethod.POST)) {
      boolean create = "create".equals(r.param("op_type"));
      return put(r, index, id, create);
    }
    if (m.equals(HttpMethod.DELETE)) {
      IndexHandle h = indices.require(index);
      try (IndexHandle.Lease l = h.lease()) {
        WriteResult w = h.service().delete(id);
        refreshIfAsked(r, h);
        return EsResponses.json(
                EsResponses.status(w.outcome()), EsResponses.writeResult(h.name(), w))
            .tagged("_doc_delete", "none");
      }
    }
    throw methodNotAllowed(r, "GET, HEAD, PUT, POST or DELETE");
  }

  private ApiResponse put(ApiRequest r, String index, String id, boolean create)
      throws IOException {
    Document doc = EsDocuments.document(id, Json.parse(r.body(), "document body"));
    IndexHandle h = forWrite(index);
    try (IndexHandle.Lease l = h.lease()) {
      // op_type=create: the store decides put-if-absent atomically (409 when the id exists).
      WriteResult w = create ? h.service().create(doc) : h.service().put(doc);
      refreshIfAsked(r, h);
      return EsResponses.json(EsResponses.status(w.outcome()), EsResponses.writeResult(h.name(), w))
          .tagged("_doc_put", "none");
    }
  }

  private ApiResponse update(ApiRequest r, String index, String id) throws IOException {
    method(r, HttpMethod.POST);
    JsonNode body = Json.object(Json.parse(r.body(), "update body"), "update body");
    for (java.util.Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!k.equals("doc") && !k.equals("detect_noop")) {
        throw new InvalidRequestException(
            "update body has ["
                + abbreviate(k)
                + "]; only [doc] is supported (no script or upsert)");
      }
    }
    if (!body.has("doc")) {
      throw new InvalidRequestException("update body has no [doc]");
    }
    IndexHandle h = indices.require(index);
    try (IndexHandle.Lease l = h.lease()) {
      WriteResult w = h.service().update(EsDocuments.update(id, body.get("doc")));
      if (w.outcome() == WriteResult.Outcome.NOT_FOUND) {
        throw docMissing(id);
      }
      refreshIfAsked(r, h);
      return EsResponses.json(200, EsResponses.writeResult(h.name(), w)).tagged("_update", "none");
    }
  }

  private static ApiException docMissing(String id) {
    return new ApiException(
        404, "document_missing_exception", "[" + abbreviate(id) + "]: document missing");
  }

  private static void refreshIfAsked(ApiRequest r, IndexHandle h) throws IOException {
    String refresh = r.param("refresh");
    if (refresh != null && !refresh.equals("false")) {
      h.service().refresh();
    }
  }

  // ----------------------------------------------------------------------------------------------

  private static void method(ApiRequest r, HttpMethod... allowed) {
    for (HttpMethod m : allowed) {
      if (m.equals(r.method())) {
        return;
      }
    }
    StringBuilder sb = new StringBuilder();
    for (HttpMethod m : allowed) {
      sb.append(sb.isEmpty() ? "" : ", ").append(m);
    }
    throw methodNotAllowed(r, sb.toString());
  }

  private static ApiException methodNotAllowed(ApiRequest r, String allowed) {
    return new ApiException(
        405,
        "method_not_allowed",
        "incorrect HTTP method for uri ["
            + abbreviate(r.path())
            + "] and method ["
            + r.method()
            + "], allowed: ["
            + allowed
            + "]");
  }

  private static ApiException unknownEndpoint(ApiRequest r) {
    return new ApiException(
        400,
        "illegal_argument_exception",
        "no handler found for uri [" + abbreviate(r.path()) + "] and method [" + r.method() + "]");
  }

  private static String abbreviate(String s) {
    return s.length() > 60 ? s.substring(0, 57) + "..." : s;
  }

  @Override
  public ApiResponse error(ApiRequest request, int status, String type, String reason) {
    return EsResponses.error(status, type, reason).tagged("error", "none");
  }
}
