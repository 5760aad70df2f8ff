package org.searchlab.server.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.server.ApiException;
import org.searchlab.server.ApiRequest;
import org.searchlab.server.Json;

/** Elasticsearch's source filtering forms, their precedence, and their errors. */
class EsSourceFilterTest {
  private static final ObjectNode SOURCE =
      EsDocuments.source(
          withId(
              new Document(
                  "d1", "A title", "A description", "games", 12, 4.5f, new float[] {1, 0})));

  /** The product's source as a client sends it, its id among its fields. */
  private static Document withId(Document d) {
    Map<String, Object> s = new java.util.LinkedHashMap<>();
    s.put("id", d.id());
    s.putAll(d.source());
    return d.withSource(s);
  }

  private static List<String> kept(EsSourceFilter f) {
    List<String> names = new ArrayList<>();
    f.apply(SOURCE).fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static EsSourceFilter body(String json) {
    try {
      return EsSourceFilter.parse(Json.MAPPER.readTree(json));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static ApiRequest get(Map<String, List<String>> params) {
    return new ApiRequest(
        HttpMethod.GET,
        "/product/_doc/d1",
        params,
        new DefaultHttpHeaders(),
        Unpooled.EMPTY_BUFFER);
  }

  @Test
  void bodyForms() {
    assertSame(EsSourceFilter.ALL, body("true"));
    assertFalse(body("false").enabled());
    assertEquals(List.of("title"), kept(body("\"title\"")));
    assertEquals(List.of("title", "price"), kept(body("[\"price\", \"title\"]")));
    assertEquals(
        List.of("average_rating"), kept(body("{\"includes\": \"*rating\", \"excludes\": []}")));
    assertEquals(
        List.of("id", "title", "category", "price", "average_rating"),
        kept(body("{\"excludes\": [\"embedding\", \"d*n\"]}")));
    assertEquals(List.of("category"), kept(body("{\"include\": [\"c*\"], \"exclude\": \"x\"}")));
    assertEquals(List.of(), kept(body("[\"nothing*\"]")));
    assertSame(SOURCE, EsSourceFilter.ALL.apply(SOURCE), "no filter, no copy");
  }

  @Test
  void urlParametersOverrideTheBody() {
    EsSourceFilter fromBody = body("[\"title\"]");
    assertSame(fromBody, EsSourceFilter.fromParams(get(Map.of()), fromBody));
    assertFalse(
        EsSourceFilter.fromParams(get(Map.of("_source", List.of("false"))), fromBody).enabled());
    assertEquals(
        List.of("title", "price"),
        kept(EsSourceFilter.fromParams(get(Map.of("_source", List.of("title,price"))), fromBody)));
    assertEquals(
        List.of("id", "title", "description"),
        kept(
            EsSourceFilter.fromParams(
                get(
                    Map.of(
                        "_source_includes", List.of("id,title,description,category"),
                        "_source_excludes", List.of("cat*"))),
                EsSourceFilter.ALL)));
  }

  @Test
  void wildcards() {
    assertTrue(EsSourceFilter.globMatches("*", 0, "", 0));
    assertTrue(EsSourceFilter.globMatches("a*b*c", 0, "aXXbYc", 0));
    assertTrue(EsSourceFilter.globMatches("a**", 0, "a", 0));
    assertFalse(EsSourceFilter.globMatches("a*b", 0, "aXbc", 0));
    assertFalse(EsSourceFilter.globMatches("title", 0, "titles", 0));
  }

  @Test
  void patternsMatchNestedFieldsByTheirPaths() throws Exception {
    ObjectNode nested =
        (ObjectNode)
            Json.MAPPER.readTree(
                "{\"text\":\"t\",\"metadata\":{\"n\":3,\"category\":\"garden\","
                    + "\"tags\":[{\"k\":1,\"v\":2}]},\"vector\":[1,2]}");
    assertEquals("{\"metadata\":{\"n\":3}}", body("\"metadata.n\"").apply(nested).toString());
    assertEquals(
        "{\"metadata\":{\"n\":3,\"category\":\"garden\",\"tags\":[{\"k\":1,\"v\":2}]}}",
        body("\"metadata\"").apply(nested).toString(),
        "an included object keeps all its fields");
    assertEquals(
        "{\"metadata\":{\"tags\":[{\"v\":2}]}}",
        body("\"metadata.tags.v\"").apply(nested).toString(),
        "objects in arrays by the array's path");
    assertEquals(
        "{\"text\":\"t\",\"metadata\":{\"category\":\"garden\",\"tags\":[{\"k\":1,\"v\":2}]},"
            + "\"vector\":[1,2]}",
        body("{\"excludes\": \"metadata.n\"}").apply(nested).toString());
    assertEquals(
        "{\"metadata\":{\"n\":3,\"category\":\"garden\"}}",
        body("{\"includes\": \"meta*\", \"excludes\": \"*.tags\"}").apply(nested).toString());
    assertEquals(
        "{\"metadata\":{\"category\":\"garden\"}}",
        body("\"*.cat*\"").apply(nested).toString(),
        "a wildcard spans the dots of a path");
    assertEquals("{}", body("\"metadata.none\"").apply(nested).toString(), "no empty objects");
  }

  @Test
  void badFormsAre400ParsingExceptionsNamingTheValue() {
    for (String bad :
        new String[] {"5", "null", "[\"title\", 3]", "{\"includes\": {}}", "{\"fields\": []}"}) {
      ApiException e = assertThrows(ApiException.class, () -> body(bad), bad);
      assertEquals(400, e.status(), bad);
      assertEquals("parsing_exception", e.type(), bad);
      assertTrue(e.getMessage().contains("_source"), e.getMessage());
    }
  }
}
