package org.searchlab.server.es;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.ApiResponse;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * Elasticsearch's {@code _msearch}: an NDJSON body of header and body line pairs, each pair one
 * search run through the same path as {@code _search} (aggregations, sort, kNN), answered in order
 * in {@code responses}. A search that fails when it runs (an index that does not exist, a field the
 * index cannot search) answers its own item with Elasticsearch's error object and its {@code
 * status}; the others still run. A line that is not JSON, a body the search translator refuses, a
 * header key Elasticsearch does not know, or more than {@value #MAX_SEARCHES} searches fail the
 * whole request with a 400; the body as a whole is bounded by the server's request body limit
 * (413). Stateless and thread-safe.
 */
final class EsMultiSearch {
  /** The most searches one request may hold. */
  static final int MAX_SEARCHES = 1000;

  /** URL parameters accepted; those that tune concurrency change nothing (items run in order). */
  static final Set<String> PARAMS =
      Set.of(
          "typed_keys",
          "rest_total_hits_as_int",
          "max_concurrent_searches",
          "max_concurrent_shard_requests",
          "pre_filter_shard_size",
          "search_type",
          "ccs_minimize_roundtrips",
          "ignore_unavailable",
          "allow_no_indices",
          "expand_wildcards",
          "ignore_throttled",
          "routing");

  /** Header keys Elasticsearch reads; all but {@code index} change nothing on one shard. */
  private static final Set<String> HEADER_KEYS =
      Set.of(
          "index",
          "search_type",
          "preference",
          "routing",
          "request_cache",
          "ignore_unavailable",
          "allow_no_indices",
          "expand_wildcards",
          "ccs_minimize_roundtrips",
          "allow_partial_search_results",
          "ignore_throttled");

  private EsMultiSearch() {}

  /** One search of an {@code _msearch}: the index expression and the body. */
  record Item(String expression, JsonNode body) {}

  /** Translates one search body as {@code _search} would. */
  interface Parser {
    EsSearch parse(JsonNode body);
  }

  /** Runs one translated search as {@code _search} would and returns its response body. */
  interface Searcher {
    ObjectNode search(String expression, EsSearch search) throws IOException;
  }

  /**
   * Every body is translated before any search runs, as Elasticsearch parses them when it reads the
   * request: a body it cannot read (an unknown key, an unknown query) fails the whole request with
   * its 400, naming the search. What only running shows (an index that does not exist, a field the
   * index cannot search) fails that search's item.
   */
  static ApiResponse msearch(ApiRequest r, String pathIndex, Parser parser, Searcher searcher)
      throws IOException {
    EsParams.allowOnly(r, PARAMS);
    long t0 = System.nanoTime();
    List<Item> items = parse(ByteBufUtil.getBytes(r.body()), pathIndex);
    List<EsSearch> searches = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      try {
        searches.add(parser.parse(items.get(i).body()));
      } catch (ApiException e) {
        throw new ApiException(e.status(), e.type(), "[search " + i + "] " + e.getMessage());
      } catch (InvalidRequestException e) {
        throw new InvalidRequestException(e.type(), "[search " + i + "] " + e.getMessage());
      }
    }
    ArrayNode responses = Json.MAPPER.createArrayNode();
    for (int i = 0; i < items.size(); i++) {
      ObjectNode one;
      try {
        one = searcher.search(items.get(i).expression(), searches.get(i));
        one.put("status", 200);
      } catch (ApiException e) {
        one = error(e.status(), e.type(), e.getMessage());
      } catch (InvalidRequestException e) {
        one = error(400, e.type(), e.getMessage());
      }
      responses.add(one);
    }
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("took", (System.nanoTime() - t0) / 1_000_000);
    out.set("responses", responses);
    return EsResponses.json(200, out).tagged("_msearch", "none");
  }

  /** An item's error: Elasticsearch's error object with the status beside it. */
  private static ObjectNode error(int status, String type, String reason) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    ObjectNode err = o.putObject("error");
    err.putArray("root_cause").addObject().put("type", type).put("reason", reason);
    err.put("type", type).put("reason", reason);
    o.put("status", status);
    return o;
  }

  /** The header and body pairs of an NDJSON body. */
  static List<Item> parse(byte[] bytes, String pathIndex) {
    List<int[]> lines = EsBulkParser.lines(bytes, 0, bytes.length);
    if (lines.size() > 2 * MAX_SEARCHES) {
      throw new InvalidRequestException(
          "the _msearch body holds more than "
              + MAX_SEARCHES
              + " searches, this server's limit per request; split it");
    }
    if (lines.isEmpty()) {
      throw new ApiException(
          400, "action_request_validation_exception", "Validation Failed: 1: no requests added;");
    }
    if (lines.size() % 2 != 0) {
      throw new InvalidRequestException(
          "the _msearch body has "
              + lines.size()
              + " lines; it needs a header line and a body line per search (the last search has"
              + " no body; an empty header is {})");
    }
    List<Item> items = new ArrayList<>();
    for (int i = 0; i < lines.size(); i += 2) {
      int n = i / 2;
      int[] h = lines.get(i);
      int[] b = lines.get(i + 1);
      JsonNode header = Json.parse(bytes, h[0], h[1], "msearch header " + n);
      EsParsing.object(header, "msearch header " + n);
      JsonNode body = Json.parse(bytes, b[0], b[1], "msearch body " + n);
      EsParsing.object(body, "msearch body " + n);
      items.add(new Item(expression(header, pathIndex, n), body));
    }
    return items;
  }

  private static String expression(JsonNode header, String pathIndex, int n) {
    String expression = pathIndex == null ? "_all" : pathIndex;
    for (Iterator<String> it = header.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!HEADER_KEYS.contains(k)) {
        throw new InvalidRequestException(
            "key ["
                + Text.quote(k)
                + "] is not supported in the metadata section (search "
                + n
                + ")");
      }
    }
    JsonNode index = header.get("index");
    if (index != null) {
      if (index.isTextual()) {
        expression = index.textValue();
      } else if (index.isArray() && !index.isEmpty()) {
        List<String> names = new ArrayList<>();
        for (JsonNode x : index) {
          if (!x.isTextual()) {
            throw EsParsing.parsing(
                "[index] of msearch header " + n + " must hold strings, got " + Json.describe(x));
          }
          names.add(x.textValue());
        }
        expression = String.join(",", names);
      } else {
        throw EsParsing.parsing(
            "[index] of msearch header "
                + n
                + " must be a string or an array of strings, got "
                + Json.describe(index));
      }
    }
    return expression;
  }
}
