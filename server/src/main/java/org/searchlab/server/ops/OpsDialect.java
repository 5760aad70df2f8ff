package org.searchlab.server.ops;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpMethod;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.searchlab.core.IndexStats;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.ApiResponse;
import org.searchlab.server.Dialect;
import org.searchlab.server.Json;
import org.searchlab.server.ServerConfig;
import org.searchlab.server.es.EsResponses;
import org.searchlab.server.index.IndexHandle;
import org.searchlab.server.index.Indices;
import org.searchlab.server.metrics.ServerMetrics;

/**
 * Health, metrics and admin routes. Thread-safe (stateless over the service and metrics).
 *
 * <ul>
 *   <li>{@code GET /health}: {@code {"status":"ok"}}, answered on the event loop so it works while
 *       the executors are saturated.
 *   <li>{@code GET /metrics}: the Prometheus exposition text.
 *   <li>{@code GET /_admin/stats}: an index's {@link IndexStats} as JSON.
 *   <li>{@code POST /_admin/refresh}, {@code /_admin/flush}, {@code
 *       /_admin/forcemerge?max_num_segments=N}.
 * </ul>
 *
 * The admin routes act on the index {@code ?index=} names, else the server's default index ({@code
 * serve --index-name}), else the only index; {@code /health} reports every index, and is 503 when
 * any store stopped.
 */
public final class OpsDialect implements Dialect {
  /** Prometheus text exposition format 0.0.4. */
  static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";

  private final Indices indices;
  private final ServerConfig config;
  private final ServerMetrics metrics;

  public OpsDialect(Indices indices, ServerConfig config, ServerMetrics metrics) {
    this.indices = indices;
    this.config = config;
    this.metrics = metrics;
  }

  /** The index an admin call acts on: {@code ?index=}, the default index, or the only one. */
  private IndexHandle target(ApiRequest r) {
    String name = r.param("index");
    if (name != null) {
      return indices.require(name);
    }
    IndexHandle h = indices.get(config.indexName());
    if (h != null) {
      return h;
    }
    var all = indices.all();
    if (all.size() == 1) {
      return all.get(0);
    }
    throw new ApiException(
        400,
        "illegal_argument_exception",
        "this server holds " + all.size() + " indexes; name one with ?index=");
  }

  @Override
  public String name() {
    return "ops";
  }

  @Override
  public boolean owns(String path) {
    return path.equals("/health") || path.equals("/metrics") || path.startsWith("/_admin");
  }

  @Override
  public Work work(ApiRequest request) {
    String path = request.path();
    if (path.equals("/health")) {
      return Work.INLINE;
    }
    // Reads go to the search pool, so a scrape or a stats call still answers while writes fill
    // the write pool's queue (they answered 429 under write load before).
    return path.startsWith("/metrics") || path.startsWith("/_admin/stats")
        ? Work.SEARCH
        : Work.WRITE;
  }

  @Override
  public ApiResponse handle(ApiRequest r) throws IOException {
    String path =
        r.path().endsWith("/") && r.path().length() > 1
            ? r.path().substring(0, r.path().length() - 1)
            : r.path();
    switch (path) {
      case "/health" -> {
        requireMethod(r, HttpMethod.GET, HttpMethod.HEAD);
        return health();
      }
      case "/metrics" -> {
        requireMethod(r, HttpMethod.GET);
        return ApiResponse.text(200, PROMETHEUS, metrics.scrape().getBytes(StandardCharsets.UTF_8))
            .tagged("metrics", "none");
      }
      case "/_admin/stats" -> {
        requireMethod(r, HttpMethod.GET);
        IndexHandle h = target(r);
        try (IndexHandle.Lease l = h.lease()) {
          return ok(statsJson(h.service().stats()), "admin_stats");
        }
      }
      case "/_admin/refresh" -> {
        requireMethod(r, HttpMethod.POST);
        IndexHandle h = target(r);
        try (IndexHandle.Lease l = h.lease()) {
          h.service().refresh();
        }
        return ok(Json.MAPPER.createObjectNode().put("acknowledged", true), "admin_refresh");
      }
      case "/_admin/flush" -> {
        requireMethod(r, HttpMethod.POST);
        IndexHandle h = target(r);
        try (IndexHandle.Lease l = h.lease()) {
          h.service().flush();
        }
        return ok(Json.MAPPER.createObjectNode().put("acknowledged", true), "admin_flush");
      }
      case "/_admin/forcemerge" -> {
        requireMethod(r, HttpMethod.POST);
        int n = r.intParam("max_num_segments", 1);
        IndexHandle h = target(r);
        try (IndexHandle.Lease l = h.lease()) {
          h.service().forceMerge(n);
        }
        return ok(
            Json.MAPPER.createObjectNode().put("acknowledged", true).put("max_num_segments", n),
            "admin_forcemerge");
      }
      default ->
          throw new ApiException(
              404,
              "resource_not_found_exception",
              "no admin endpoint "
                  + r.path()
                  + "; try /health, /metrics, /_admin/stats, /_admin/refresh, /_admin/flush,"
                  + " /_admin/forcemerge");
    }
  }

  private static void requireMethod(ApiRequest r, HttpMethod... allowed) {
    for (HttpMethod m : allowed) {
      if (m.equals(r.method())) {
        return;
      }
    }
    throw new ApiException(
        405,
        "method_not_allowed",
        "method " + r.method() + " is not allowed on " + r.path() + "; use " + allowed[0]);
  }

  /** The index statistics as JSON. */
  public static ObjectNode statsJson(IndexStats s) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("store", s.store());
    o.put("doc_count", s.docCount());
    o.put("deleted_docs", s.deletedDocs());
    o.put("segment_count", s.segmentCount());
    ArrayNode segs = o.putArray("segments");
    for (IndexStats.SegmentStats seg : s.segments()) {
      segs.addObject()
          .put("name", seg.name())
          .put("docs", seg.docs())
          .put("deleted_docs", seg.deletedDocs())
          .put("bytes", seg.bytes());
    }
    o.put("last_serial", s.lastSerial());
    o.put("flushed_serial", s.flushedSerial());
    o.put("wal_bytes", s.walBytes());
    ObjectNode mem = o.putObject("memory_bytes");
    new java.util.TreeMap<>(s.memoryBytes()).forEach(mem::put);
    ObjectNode ctr = o.putObject("counters");
    new java.util.TreeMap<>(s.counters()).forEach(ctr::put);
    ObjectNode perVector = o.putObject("vector_bytes_per_vector");
    new java.util.TreeMap<>(s.vectorBytesPerVector()).forEach(perVector::put);
    return o;
  }

  /**
   * {@code /health}: 200 {@code "ok"} while every store takes writes, 503 {@code "failed"} once a
   * writer or write-ahead log stopped (until a restart). The top-level fields are the default
   * index's (or the first failed one's), and {@code indices} has each index's.
   */
  private ApiResponse health() {
    var o = Json.MAPPER.createObjectNode();
    var each = o.putObject("indices");
    boolean ok = true;
    org.searchlab.core.StoreHealth shown = null;
    for (IndexHandle h : indices.all()) {
      org.searchlab.core.StoreHealth sh = h.index().health();
      ObjectNode i = each.putObject(h.name());
      fill(i, sh);
      if (!sh.writable() && ok) {
        ok = false;
        shown = sh;
      } else if (ok && h.name().equals(config.indexName())) {
        shown = sh;
      }
    }
    o.put("status", ok ? "ok" : "failed");
    if (shown != null) {
      fill(o, shown);
      o.put("status", ok ? "ok" : "failed");
    }
    return ApiResponse.json(ok ? 200 : 503, Json.bytes(o)).tagged("health", "none");
  }

  private static void fill(ObjectNode o, org.searchlab.core.StoreHealth h) {
    o.put("status", h.writable() ? "ok" : "failed");
    o.put("writer", h.writer().orElse("ok"));
    o.put("wal", h.wal().orElse("ok"));
    o.put("background_errors", h.backgroundErrors());
    h.lastBackgroundError().ifPresent(e -> o.put("last_background_error", e));
  }

  private static ApiResponse ok(Object body, String endpoint) {
    return ApiResponse.json(200, Json.bytes(body)).tagged(endpoint, "none");
  }

  @Override
  public ApiResponse error(ApiRequest request, int status, String type, String reason) {
    return EsResponses.error(status, type, reason).tagged("error", "none");
  }
}
