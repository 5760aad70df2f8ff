// Over 500 lines: every Elasticsearch route, each a thin translation onto the service.
package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.SearchResult;
import org.searchlab.core.WriteResult;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.ApiResponse;
import org.searchlab.server.Dialect;
import org.searchlab.server.Json;
import org.searchlab.server.ServerConfig;
import org.searchlab.server.service.SearchService;

/**
 * The Elasticsearch routes: a thin translator between Elasticsearch 8.x requests and the {@link
 * SearchService}. It answers every path the other dialects do not own. Thread-safe (stateless over
 * the service).
 */
public final class EsDialect implements Dialect {
  private static final Pattern COMPATIBLE =
      Pattern.compile("compatible-with\\s*=\\s*\"?(\\d+)\"?", Pattern.CASE_INSENSITIVE);

  private final SearchService service;
  private final ServerConfig config;
  private final String index;
  private final EsClusterApi cluster;

  /**
   * @param cluster the cluster-level routes ({@code _cluster}, {@code _nodes}, {@code _tasks},
   *     {@code _stats}, background force-merges, searches over no index), which answer every
   *     request they own
   */
  public EsDialect(SearchService service, ServerConfig config, EsClusterApi cluster) {
    this.service = service;
    this.config = config;
    this.index = config.indexName();
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
            || last.equals("_count");
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
      return EsResponses.json(200, EsResponses.root(index)).tagged("root", "none");
    }
    if (s[0].startsWith("_")) {
      return switch (s[0]) {
        case "_bulk" -> single(s, r, () -> bulk(r, null));
        case "_search" -> single(s, r, () -> search(r));
        case "_refresh" -> single(s, r, () -> refresh(r));
        case "_flush" -> single(s, r, () -> flush(r));
        case "_forcemerge" -> single(s, r, () -> forceMerge(r));
        case "_count" -> single(s, r, () -> count(r));
        default -> throw unknownEndpoint(r);
      };
    }
    String name = s[0];
    if (s.length == 1) {
      return indexLevel(r, name);
    }
    requireIndex(name);
    String op = s[1];
    if (s.length == 2) {
      return switch (op) {
        case "_bulk" -> bulk(r, name);
        case "_search" -> search(r);
        case "_refresh" -> refresh(r);
        case "_flush" -> flush(r);
        case "_forcemerge" -> forceMerge(r);
        case "_count" -> count(r);
        case "_segments" -> segments(r);
        case "_mapping", "_mappings" -> {
          method(r, HttpMethod.GET);
          yield EsResponses.json(200, mapping()).tagged("_mapping", "none");
        }
        case "_doc" -> {
          throw new InvalidRequestException(
              "POST /"
                  + name
                  + "/_doc without an id: this server does not generate ids; use"
                  + " PUT /"
                  + name
                  + "/_doc/{id}");
        }
        default -> throw unknownEndpoint(r);
      };
    }
    if (s.length == 3) {
      String id = s[2];
      return switch (op) {
        case "_doc" -> doc(r, id);
        case "_create" -> {
          method(r, HttpMethod.PUT, HttpMethod.POST);
          yield put(r, id, true);
        }
        case "_update" -> update(r, id);
        case "_source" -> {
          method(r, HttpMethod.GET);
          Document d = service.get(id).orElseThrow(() -> docMissing(id));
          EsSourceFilter filter = EsSourceFilter.fromParams(r, EsSourceFilter.ALL);
          yield EsResponses.json(200, filter.apply(EsDocuments.source(d)))
              .tagged("_source", "none");
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

  private ApiResponse indexLevel(ApiRequest r, String name) throws IOException {
    HttpMethod m = r.method();
    if (m.equals(HttpMethod.PUT)) {
      if (!name.equals(index)) {
        throw new InvalidRequestException(
            "this server holds one index [" + index + "]; it cannot create [" + name + "]");
      }
      JsonNode body = r.hasBody() ? Json.parse(r.body(), "index creation body") : null;
      EsMapping.validate(body, service.schema(), config);
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("acknowledged", true).put("shards_acknowledged", true).put("index", index);
      return EsResponses.json(200, o).tagged("create_index", "none");
    }
    requireIndex(name);
    if (m.equals(HttpMethod.HEAD)) {
      return EsResponses.json(200, Json.MAPPER.createObjectNode()).tagged("index_exists", "none");
    }
    if (m.equals(HttpMethod.GET)) {
      ObjectNode o = Json.MAPPER.createObjectNode();
      ObjectNode i = o.putObject(index);
      i.putObject("aliases");
      i.set("mappings", mapping().get(index).get("mappings"));
      i.putObject("settings")
          .putObject("index")
          .put("number_of_shards", "1")
          .put("number_of_replicas", "0");
      return EsResponses.json(200, o).tagged("get_index", "none");
    }
    if (m.equals(HttpMethod.DELETE)) {
      throw new InvalidRequestException(
          "deleting the index is not supported: stop the server and clear its --data-dir");
    }
    throw methodNotAllowed(r, "PUT, GET or HEAD");
  }

  private ObjectNode mapping() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    ObjectNode props =
        o.putObject(index).putObject("mappings").put("dynamic", "strict").putObject("properties");
    props.putObject("id").put("type", "keyword");
    props.putObject("title").put("type", "text").put("analyzer", EsMapping.ANALYZER);
    props.putObject("description").put("type", "text").put("analyzer", EsMapping.ANALYZER);
    props.putObject("category").put("type", "keyword");
    props.putObject("price").put("type", "integer");
    props.putObject("average_rating").put("type", "float");
    ObjectNode emb = props.putObject("embedding");
    emb.put("type", "dense_vector").put("dims", service.schema().dimension()).put("index", true);
    emb.put("similarity", "dot_product");
    ObjectNode opts = emb.putObject("index_options").put("type", "hnsw");
    if (config.hnswM() > 0) {
      opts.put("m", config.hnswM());
    }
    if (config.hnswEfConstruction() > 0) {
      opts.put("ef_construction", config.hnswEfConstruction());
    }
    return o;
  }

  private void requireIndex(String name) {
    if (!name.equals(index)) {
      throw new ApiException(404, "index_not_found_exception", "no such index [" + name + "]");
    }
  }

  private ApiResponse search(ApiRequest r) throws IOException {
    method(r, HttpMethod.GET, HttpMethod.POST);
    long t0 = System.nanoTime();
    JsonNode body = r.hasBody() ? Json.parse(r.body(), "search body") : null;
    EsSearch q = EsSearchParser.parse(body, r, config.limits().maxQueryDepth());
    // The fetch phase runs in the store, on the view the hits were scored in.
    SearchResult result =
        service.search(
            q.request().toBuilder().fetchDocuments(q.source().enabled()).build(), q.embedText());
    ObjectNode out =
        EsResponses.search(
            index, result, (System.nanoTime() - t0) / 1_000_000, q.trackTotal(), q.source());
    return EsResponses.json(200, out).tagged("_search", q.queryType());
  }

  private ApiResponse count(ApiRequest r) throws IOException {
    method(r, HttpMethod.GET, HttpMethod.POST);
    long count;
    if (r.hasBody()) {
      JsonNode body = Json.parse(r.body(), "count body");
      Json.object(body, "count body");
      ObjectNode search = Json.MAPPER.createObjectNode();
      if (body.has("query")) {
        search.set("query", body.get("query"));
      }
      for (java.util.Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!k.equals("query")) {
          throw new ApiException(
              400, "parsing_exception", "unknown key [" + k + "] in the count body");
        }
      }
      search.put("size", 0).put("track_total_hits", true);
      EsSearch q = EsSearchParser.parse(search, r, config.limits().maxQueryDepth());
      count = service.search(q.request(), null).total().value();
    } else {
      count = service.stats().docCount();
    }
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("count", count);
    o.set("_shards", EsResponses.shards().put("skipped", 0));
    return EsResponses.json(200, o).tagged("_count", "none");
  }

  private ApiResponse segments(ApiRequest r) throws IOException {
    method(r, HttpMethod.GET);
    IndexStats st = service.stats();
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.set("_shards", EsResponses.shards());
    ObjectNode shard =
        o.putObject("indices").putObject(index).putObject("shards").putArray("0").addObject();
    shard
        .putObject("routing")
        .put("state", "STARTED")
        .put("primary", true)
        .put("node", "searchlab");
    shard.put("num_committed_segments", st.segmentCount());
    shard.put("num_search_segments", st.segmentCount());
    ObjectNode segs = shard.putObject("segments");
    for (IndexStats.SegmentStats seg : st.segments()) {
      segs.putObject(seg.name())
          .put("num_docs", seg.docs() - seg.deletedDocs())
          .put("deleted_docs", seg.deletedDocs())
          .put("size_in_bytes", seg.bytes())
          .put("search", true);
    }
    return EsResponses.json(200, o).tagged("_segments", "none");
  }

  private ApiResponse refresh(ApiRequest r) throws IOException {
    method(r, HttpMethod.POST, HttpMethod.GET);
    service.refresh();
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.set("_shards", EsResponses.shards());
    return EsResponses.json(200, o).tagged("_refresh", "none");
  }

  private ApiResponse flush(ApiRequest r) throws IOException {
    method(r, HttpMethod.POST, HttpMethod.GET);
    service.flush();
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.set("_shards", EsResponses.shards());
    return EsResponses.json(200, o).tagged("_flush", "none");
  }

  private ApiResponse forceMerge(ApiRequest r) throws IOException {
    method(r, HttpMethod.POST);
    service.forceMerge(r.intParam("max_num_segments", 1));
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.set("_shards", EsResponses.shards());
    return EsResponses.json(200, o).tagged("_forcemerge", "none");
  }

  private ApiResponse bulk(ApiRequest r, String pathIndex) throws IOException {
    method(r, HttpMethod.POST, HttpMethod.PUT);
    long t0 = System.nanoTime();
    List<EsBulkParser.Item> items = EsBulkParser.parse(r.body(), index, pathIndex);
    List<Operation> ops = new ArrayList<>(items.size());
    List<InvalidRequestException> errors = new ArrayList<>(items.size());
    List<String> actions = new ArrayList<>(items.size());
    List<String> ids = new ArrayList<>(items.size());
    for (EsBulkParser.Item item : items) {
      InvalidRequestException err = item.error();
      ops.add(err == null ? item.op() : null);
      errors.add(err);
      actions.add(item.action());
      ids.add(item.id());
    }
    List<BulkItemResult> results = service.bulk(ops, errors);
    refreshIfAsked(r);
    ObjectNode out =
        EsResponses.bulk(index, (System.nanoTime() - t0) / 1_000_000, actions, ids, results);
    return EsResponses.json(200, out).tagged("_bulk", "none");
  }

  private ApiResponse doc(ApiRequest r, String id) throws IOException {
    HttpMethod m = r.method();
    if (m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD)) {
      Optional<Document> d = service.get(id);
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("_index", index).put("_id", id);
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
      return put(r, id, create);
    }
    if (m.equals(HttpMethod.DELETE)) {
      WriteResult w = service.delete(id);
      refreshIfAsked(r);
      return EsResponses.json(EsResponses.status(w.outcome()), EsResponses.writeResult(index, w))
          .tagged("_doc_delete", "none");
    }
    throw methodNotAllowed(r, "GET, HEAD, PUT, POST or DELETE");
  }

  private ApiResponse put(ApiRequest r, String id, boolean create) throws IOException {
    Document doc = EsDocuments.document(id, Json.parse(r.body(), "document body"));
    // op_type=create: the store decides put-if-absent atomically (409 when the id exists).
    WriteResult w = create ? service.create(doc) : service.put(doc);
    refreshIfAsked(r);
    return EsResponses.json(EsResponses.status(w.outcome()), EsResponses.writeResult(index, w))
        .tagged("_doc_put", "none");
  }

  private ApiResponse update(ApiRequest r, String id) throws IOException {
    method(r, HttpMethod.POST);
    JsonNode body = Json.object(Json.parse(r.body(), "update body"), "update body");
    for (java.util.Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!k.equals("doc") && !k.equals("detect_noop")) {
        throw new InvalidRequestException(
            "update body has [" + k + "]; only [doc] is supported (no script or upsert)");
      }
    }
    if (!body.has("doc")) {
      throw new InvalidRequestException("update body has no [doc]");
    }
    WriteResult w = service.update(EsDocuments.update(id, body.get("doc")));
    if (w.outcome() == WriteResult.Outcome.NOT_FOUND) {
      throw docMissing(id);
    }
    refreshIfAsked(r);
    return EsResponses.json(200, EsResponses.writeResult(index, w)).tagged("_update", "none");
  }

  private static ApiException docMissing(String id) {
    return new ApiException(404, "document_missing_exception", "[" + id + "]: document missing");
  }

  private void refreshIfAsked(ApiRequest r) throws IOException {
    String refresh = r.param("refresh");
    if (refresh != null && !refresh.equals("false")) {
      service.refresh();
    }
  }

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
            + r.path()
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
        "no handler found for uri [" + r.path() + "] and method [" + r.method() + "]");
  }

  @Override
  public ApiResponse error(ApiRequest request, int status, String type, String reason) {
    return EsResponses.error(status, type, reason).tagged("error", "none");
  }
}
