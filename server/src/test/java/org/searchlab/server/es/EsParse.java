package org.searchlab.server.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Query;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Json;
import org.searchlab.server.Text;

/**
 * What the parser tests share: parsing a body as the dialect does (with URL parameters), and
 * capturing a refusal as the dispatcher renders it (status, Elasticsearch error type, reason).
 */
final class EsParse {
  /** The default depth limit, {@code --max-query-depth}. */
  static final int DEPTH = 30;

  private EsParse() {}

  static ApiRequest http(String... params) {
    Map<String, List<String>> p = new LinkedHashMap<>();
    for (int i = 0; i < params.length; i += 2) {
      p.put(params[i], List.of(params[i + 1]));
    }
    return new ApiRequest(
        HttpMethod.POST, "/product/_search", p, new DefaultHttpHeaders(), Unpooled.EMPTY_BUFFER);
  }

  /** Parses a search body with URL parameters {@code name, value, ...}. */
  static EsSearch search(String body, String... params) {
    try {
      return EsSearchParser.parse(
          body == null ? null : Json.MAPPER.readTree(body), http(params), DEPTH);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  /** The request of a search body. */
  static SearchRequest request(String body, String... params) {
    return search(body, params).request();
  }

  /** The query of {@code {"query": q}}. */
  static Query query(String q) {
    return request("{\"query\":" + q + "}").query();
  }

  /**
   * The request validated against the product mapping (what the store does first), so that a test
   * shows the translation is one the stores accept.
   */
  static SearchRequest validated(String body, int dims) {
    return request(body).validate(Mapping.product(dims));
  }

  /** A refusal as the client sees it. */
  record Refusal(int status, String type, String reason) {
    /** Asserts the type and that the reason names each part. */
    Refusal has(String type, String... parts) {
      assertEquals(400, status, reason);
      assertEquals(type, this.type, reason);
      for (String p : parts) {
        assertTrue(reason.contains(p), "'" + reason + "' should mention '" + p + "'");
      }
      assertTrue(reason.length() <= Text.MAX_MESSAGE, "bounded reason: " + reason.length());
      return this;
    }

    Refusal parsing(String... parts) {
      return has("parsing_exception", parts);
    }

    Refusal illegal(String... parts) {
      return has("illegal_argument_exception", parts);
    }
  }

  /** The refusal of a search body. */
  static Refusal refused(String body, String... params) {
    return refusal(() -> search(body, params));
  }

  /** The refusal of {@code {"query": q}}. */
  static Refusal refusedQuery(String q) {
    return refused("{\"query\":" + q + "}");
  }

  static Refusal refusal(Runnable r) {
    try {
      r.run();
    } catch (ApiException e) {
      return new Refusal(e.status(), e.type(), e.getMessage());
    } catch (InvalidRequestException e) {
      return new Refusal(400, "illegal_argument_exception", e.getMessage());
    }
    return fail("expected a refusal");
  }
}
