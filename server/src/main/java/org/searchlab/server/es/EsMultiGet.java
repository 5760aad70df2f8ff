package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.searchlab.core.Document;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.ApiResponse;
import org.searchlab.server.Json;
import org.searchlab.server.Text;
import org.searchlab.server.index.IndexHandle;
import org.searchlab.server.index.Indices;

/**
 * Elasticsearch's {@code _mget}: many documents by index and id in one request, each answered on
 * its own as {@code GET /{index}/_doc/{id}} would be ({@code found: false} for a missing one, an
 * {@code error} object for an index that does not exist), in request order.
 *
 * <p>Body: {@code docs} (objects with {@code _index}, {@code _id}, {@code _source}, {@code
 * stored_fields}, {@code routing}) and/or {@code ids} (with the path's index); at most {@value
 * #MAX_DOCS} items. URL: {@code _source}, {@code _source_includes}, {@code _source_excludes} (a
 * doc's own {@code _source} wins), {@code stored_fields} (no field is stored apart from {@code
 * _source}, so it only leaves the source out unless {@code _source} is asked, as in Elasticsearch),
 * {@code routing} and {@code preference} (one shard: no effect), {@code realtime} and {@code
 * refresh} (accepted: a get is always real-time in both stores, so both values read the latest
 * acknowledged version). Stateless and thread-safe.
 */
final class EsMultiGet {
  /** The most documents one {@code _mget} may ask for. */
  static final int MAX_DOCS = 10_000;

  private static final Set<String> PARAMS =
      Set.of(
          "_source",
          "_source_includes",
          "_source_excludes",
          "stored_fields",
          "routing",
          "preference",
          "realtime",
          "refresh");

  private static final Set<String> DOC_KEYS =
      Set.of("_index", "_id", "_source", "stored_fields", "routing", "version", "version_type");

  private EsMultiGet() {}

  /** One requested document. */
  private record Item(String index, String id, EsSourceFilter source) {}

  static ApiResponse mget(ApiRequest r, String pathIndex, Indices indices) throws IOException {
    EsParams.allowOnly(r, PARAMS);
    EsParams.bool(r, "realtime", true);
    EsParams.bool(r, "refresh", false);
    EsSourceFilter dflt =
        EsSourceFilter.fromParams(
            r, r.param("stored_fields") != null ? EsSourceFilter.NONE : EsSourceFilter.ALL);
    if (!r.hasBody()) {
      throw validation("request body is required");
    }
    JsonNode body = EsParsing.object(Json.parse(r.body(), "mget body"), "mget body");
    List<Item> items = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      JsonNode v = f.getValue();
      switch (f.getKey()) {
        case "docs" -> {
          array(v, "docs");
          for (JsonNode d : v) {
            items.add(item(d, pathIndex, dflt, items.size()));
            bound(items);
          }
        }
        case "ids" -> {
          array(v, "ids");
          for (JsonNode id : v) {
            if (!id.isTextual() && !id.isIntegralNumber()) {
              throw EsParsing.parsing("[ids] must hold strings, got " + Json.describe(id));
            }
            if (pathIndex == null) {
              throw validation("index is missing for doc " + items.size());
            }
            items.add(new Item(pathIndex, id.asText(), dflt));
            bound(items);
          }
        }
        default ->
            throw EsParsing.parsing(
                "unknown key ["
                    + Text.quote(f.getKey())
                    + "] in the mget body; supported: docs, ids");
      }
    }
    if (items.isEmpty()) {
      throw validation("no documents to get");
    }
    ArrayNode docs = Json.MAPPER.createArrayNode();
    for (Item item : items) {
      docs.add(get(item, indices));
    }
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.set("docs", docs);
    return EsResponses.json(200, out).tagged("_mget", "none");
  }

  private static ObjectNode get(Item item, Indices indices) throws IOException {
    ObjectNode o = Json.MAPPER.createObjectNode();
    IndexHandle h;
    try {
      h = indices.require(item.index());
    } catch (ApiException e) {
      // As Elasticsearch: a missing index fails its documents only, each with an error object.
      o.put("_index", item.index()).put("_id", item.id());
      ObjectNode err = o.putObject("error");
      ObjectNode cause = err.putArray("root_cause").addObject();
      for (ObjectNode c : List.of(cause, err)) {
        c.put("type", e.type()).put("reason", e.getMessage());
        c.put("resource.type", "index_expression").put("resource.id", item.index());
        c.put("index_uuid", "_na_").put("index", item.index());
      }
      return o;
    }
    Optional<Document> d;
    try (IndexHandle.Lease l = h.lease()) {
      d = h.service().get(item.id());
    }
    o.put("_index", h.name()).put("_id", item.id());
    if (d.isEmpty()) {
      return o.put("found", false);
    }
    o.put("_version", 1).put("_seq_no", 0).put("_primary_term", 1).put("found", true);
    if (item.source().enabled()) {
      o.set("_source", item.source().apply(EsDocuments.source(d.get())));
    }
    return o;
  }

  private static Item item(JsonNode d, String pathIndex, EsSourceFilter dflt, int n) {
    EsParsing.object(d, "docs[" + n + "]");
    String index = pathIndex;
    String id = null;
    EsSourceFilter source = dflt;
    boolean storedFields = false;
    boolean explicitSource = false;
    for (Iterator<Map.Entry<String, JsonNode>> it = d.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> f = it.next();
      JsonNode v = f.getValue();
      switch (f.getKey()) {
        case "_index" -> index = text(v, "docs[" + n + "]._index");
        case "_id" -> {
          if (!v.isTextual() && !v.isIntegralNumber()) {
            throw EsParsing.parsing(
                "[docs[" + n + "]._id] must be a string, got " + Json.describe(v));
          }
          id = v.asText();
        }
        case "_source" -> {
          source = EsSourceFilter.parse(v);
          explicitSource = true;
        }
        case "stored_fields" -> storedFields = true;
        case "routing", "version", "version_type" -> {}
        default ->
            throw EsParsing.parsing(
                "unknown key [docs["
                    + n
                    + "]."
                    + Text.quote(f.getKey())
                    + "]; supported: "
                    + String.join(", ", new java.util.TreeSet<>(DOC_KEYS)));
      }
    }
    if (storedFields && !explicitSource) {
      source = EsSourceFilter.NONE;
    }
    if (index == null) {
      throw validation("index is missing for doc " + n);
    }
    if (id == null) {
      throw validation("id is missing for doc " + n);
    }
    return new Item(index, id, source);
  }

  private static String text(JsonNode v, String where) {
    if (!v.isTextual()) {
      throw EsParsing.parsing("[" + where + "] must be a string, got " + Json.describe(v));
    }
    return v.textValue();
  }

  private static void array(JsonNode v, String where) {
    if (!v.isArray()) {
      throw EsParsing.parsing("[" + where + "] must be an array, got " + Json.describe(v));
    }
  }

  private static void bound(List<Item> items) {
    if (items.size() > MAX_DOCS) {
      throw validation("more than " + MAX_DOCS + " documents asked in one _mget; split it");
    }
  }

  /** Elasticsearch's {@code action_request_validation_exception}. */
  private static ApiException validation(String reason) {
    return new ApiException(
        400, "action_request_validation_exception", "Validation Failed: 1: " + reason + ";");
  }
}
