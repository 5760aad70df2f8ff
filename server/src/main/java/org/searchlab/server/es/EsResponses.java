package org.searchlab.server.es;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.DocumentExistsException;
import org.searchlab.core.Hit;
import org.searchlab.core.SearchResult;
import org.searchlab.core.WriteResult;
import org.searchlab.server.ApiResponse;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * Renders Elasticsearch 8.x response bodies. Every response built here carries {@code
 * X-Elastic-Product: Elasticsearch} (the official clients refuse a server without it) and {@code
 * Content-Type: application/json}. Stateless and thread-safe.
 */
public final class EsResponses {
  /** The version {@code GET /} reports: the benchmark's Elasticsearch. */
  public static final String VERSION = "8.15.2";

  static final Map<String, String> PRODUCT_HEADER = Map.of("X-Elastic-Product", "Elasticsearch");

  private EsResponses() {}

  /** A JSON response with the product header. */
  public static ApiResponse json(int status, Object body) {
    return new ApiResponse(
        status, ApiResponse.JSON, Json.bytes(body), PRODUCT_HEADER, "unknown", "none");
  }

  /** {@code {"error":{"type","reason"},"status":N}}. */
  public static ApiResponse error(int status, String type, String reason) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    ObjectNode err = root.putObject("error");
    err.putArray("root_cause").addObject().put("type", type).put("reason", reason);
    err.put("type", type);
    err.put("reason", reason);
    root.put("status", status);
    return json(status, root);
  }

  static ObjectNode shards() {
    return Json.MAPPER.createObjectNode().put("total", 1).put("successful", 1).put("failed", 0);
  }

  /** The body of {@code GET /}. */
  static ObjectNode root(String indexName) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("name", "searchlab");
    o.put("cluster_name", "searchlab");
    o.put("cluster_uuid", "searchlab-" + indexName);
    ObjectNode v = o.putObject("version");
    v.put("number", VERSION);
    v.put("build_flavor", "default");
    v.put("build_type", "searchlab");
    v.put("build_hash", "searchlab");
    v.put("build_date", "2026-11-22T00:00:00.000Z");
    v.put("build_snapshot", false);
    v.put("lucene_version", "10.6.0");
    v.put("minimum_wire_compatibility_version", "7.17.0");
    v.put("minimum_index_compatibility_version", "7.0.0");
    o.put("tagline", "You Know, for Search");
    return o;
  }

  /** The HTTP status Elasticsearch uses for a write outcome. */
  static int status(WriteResult.Outcome outcome) {
    return switch (outcome) {
      case CREATED -> 201;
      case NOT_FOUND -> 404;
      default -> 200;
    };
  }

  /** The body of a single-document write ({@code _doc}, {@code _update}). */
  static ObjectNode writeResult(String index, WriteResult r) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("_index", index);
    o.put("_id", r.id());
    o.put("_version", 1);
    o.put("result", r.outcome().esName());
    o.set("_shards", shards());
    o.put("_seq_no", r.serial());
    o.put("_primary_term", 1);
    return o;
  }

  /**
   * The body of a {@code _bulk}: one item per action, in order, each naming the index it was sent
   * to; an item's error reason is capped as a whole answer's is ({@link Text#reason}).
   */
  static ObjectNode bulk(
      List<String> indexes,
      long tookMillis,
      List<String> actions,
      List<String> ids,
      List<BulkItemResult> rs) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("took", tookMillis);
    boolean errors = false;
    ArrayNode items = Json.MAPPER.createArrayNode();
    for (int i = 0; i < rs.size(); i++) {
      BulkItemResult r = rs.get(i);
      String action = actions.get(i);
      ObjectNode item = items.addObject().putObject(action);
      if (indexes.get(i) != null) {
        item.put("_index", indexes.get(i));
      }
      if (ids.get(i) != null) {
        item.put("_id", ids.get(i));
      }
      if (r.failed()) {
        errors = true;
        int status;
        String type;
        if (r.error() instanceof EsBulkParser.ItemError ie) {
          status = ie.status();
          type = ie.type();
        } else if (r.error() instanceof DocumentExistsException) {
          status = 409;
          type = "version_conflict_engine_exception";
        } else if (!r.error()
            .type()
            .equals(org.searchlab.core.InvalidRequestException.ILLEGAL_ARGUMENT)) {
          status = 400;
          type = r.error().type();
        } else {
          status = 400;
          type = "document_parsing_exception";
        }
        item.put("status", status);
        item.putObject("error")
            .put("type", type)
            .put("reason", Text.reason(r.error().getMessage()));
      } else if (action.equals("update") && r.result().outcome() == WriteResult.Outcome.NOT_FOUND) {
        errors = true;
        item.put("status", 404);
        item.putObject("error")
            .put("type", "document_missing_exception")
            .put("reason", "[" + r.result().id() + "]: document missing");
      } else {
        WriteResult w = r.result();
        item.put("_version", 1);
        item.put("result", w.outcome().esName());
        item.set("_shards", shards());
        item.put("_seq_no", w.serial());
        item.put("_primary_term", 1);
        item.put("status", status(w.outcome()));
      }
    }
    o.put("errors", errors);
    o.set("items", items);
    return o;
  }

  /** The body of a search over no index: no hits, total 0. */
  static ObjectNode empty(long tookMillis) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("took", tookMillis);
    o.put("timed_out", false);
    o.set(
        "_shards",
        Json.MAPPER
            .createObjectNode()
            .put("total", 0)
            .put("successful", 0)
            .put("skipped", 0)
            .put("failed", 0));
    ObjectNode hits = o.putObject("hits");
    hits.putObject("total").put("value", 0).put("relation", "eq");
    hits.putNull("max_score");
    hits.putArray("hits");
    return o;
  }

  /**
   * The body of a {@code _search}.
   *
   * @param filter the fields of {@code _source} to return, from each hit's document (fetched by the
   *     store from the view the hit was scored in); a hit without one has no {@code _source}
   */
  static ObjectNode search(
      String index,
      SearchResult result,
      long tookMillis,
      boolean trackTotal,
      EsSourceFilter filter) {
    List<String> indexes = new java.util.ArrayList<>(result.hits().size());
    for (int i = 0; i < result.hits().size(); i++) {
      indexes.add(index);
    }
    return search(indexes, result, tookMillis, trackTotal, filter);
  }

  /** {@link #search(String, SearchResult, long, boolean, EsSourceFilter)} with each hit's index. */
  static ObjectNode search(
      List<String> hitIndexes,
      SearchResult result,
      long tookMillis,
      boolean trackTotal,
      EsSourceFilter filter) {
    return search(hitIndexes, result, tookMillis, trackTotal, filter, false);
  }

  /**
   * The body of a {@code _search} with each hit's index.
   *
   * @param scoresTracked for a search sorted by fields, whether hits still report their scores (the
   *     sort has {@code _score}); Elasticsearch reports null otherwise
   */
  static ObjectNode search(
      List<String> hitIndexes,
      SearchResult result,
      long tookMillis,
      boolean trackTotal,
      EsSourceFilter filter,
      boolean scoresTracked) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("took", tookMillis);
    o.put("timed_out", false);
    o.set("_shards", shards().put("skipped", 0));
    ObjectNode hits = o.putObject("hits");
    if (trackTotal) {
      hits.putObject("total")
          .put("value", result.total().value())
          .put("relation", result.total().relation());
    }
    // As Elasticsearch: a search sorted by fields (not by _score) reports no scores.
    boolean sorted = !result.hits().isEmpty() && !result.hits().get(0).sortValues().isEmpty();
    if (result.hits().isEmpty() || (sorted && !scoresTracked)) {
      hits.putNull("max_score");
    } else {
      hits.put("max_score", result.maxScore());
    }
    ArrayNode arr = hits.putArray("hits");
    for (int i = 0; i < result.hits().size(); i++) {
      Hit h = result.hits().get(i);
      ObjectNode hit = arr.addObject();
      hit.put("_index", hitIndexes.get(i));
      hit.put("_id", h.id());
      if (sorted && !scoresTracked) {
        hit.putNull("_score");
      } else {
        hit.put("_score", h.score());
      }
      if (filter.enabled() && h.document() != null) {
        hit.set("_source", filter.apply(EsDocuments.source(h.document())));
      }
      if (!h.sortValues().isEmpty()) {
        ArrayNode sv = hit.putArray("sort");
        for (Object v : h.sortValues()) {
          EsAggsResponse.putValue(sv, v);
        }
      }
    }
    if (result.timings().embedNanos() > 0) {
      // Not an Elasticsearch field: where the time of a query with text embedding went.
      o.putObject("searchlab_timing")
          .put("embed_ms", result.timings().embedNanos() / 1e6)
          .put("search_ms", result.timings().totalNanos() / 1e6);
    }
    return o;
  }
}
