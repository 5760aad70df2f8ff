package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The Vespa routes answer CBOR to {@code Accept: application/cbor} (as Vespa does, and as pyvespa's
 * {@code query()} asks): the same tree as the JSON answer, for searches, document gets, writes and
 * errors. Types neither engine answers stay 406, and the Elasticsearch routes stay JSON-only.
 */
class VespaCborTest {
  private static final CBORMapper CBOR = new CBORMapper();

  /** One answer as bytes, with its status and type. */
  private record Answer(int status, String contentType, byte[] body) {
    /**
     * The body as a tree. A CBOR body goes through JSON text once: CBOR keeps single-precision
     * floats as floats, which JSON text reads back as doubles of the same printed value.
     */
    JsonNode tree() throws Exception {
      return contentType.startsWith(AcceptHeader.CBOR)
          ? Json.MAPPER.readTree(Json.MAPPER.writeValueAsBytes(CBOR.readTree(body)))
          : Json.MAPPER.readTree(body);
    }

    String describe() {
      return status + " " + contentType + " " + new String(body, StandardCharsets.UTF_8);
    }
  }

  private static Answer send(
      ServerFixture f, String method, String path, String body, String accept) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(f.uri(path))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (accept != null) {
      b.header("Accept", accept);
    }
    HttpResponse<byte[]> r = f.http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(""), r.body());
  }

  private static String search(String yql, String query) {
    return "/search/?yql="
        + URLEncoder.encode(yql, StandardCharsets.UTF_8)
        + (query == null ? "" : "&query=" + URLEncoder.encode(query, StandardCharsets.UTF_8))
        + "&hits=5";
  }

  @Test
  void cborAnswersCarryTheJsonTree() throws Exception {
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("VespaCborTest"), ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      List<Document> docs = f.load(corpus, 50);
      Document probe = docs.get(7);
      String doc = "/document/v1/product/product/docid/" + probe.id();
      String query = search("select * from product where userQuery()", probe.title());
      for (String[] pair :
          new String[][] {
            {"GET", doc, null},
            {"GET", "/document/v1/product/product/docid/missing", null},
            {"GET", query, null},
            {"GET", search("select * from product where true", null), null},
            {"POST", doc, "{\"fields\":" + ServerFixture.source(probe) + "}"},
            {"PUT", doc, "{\"fields\":{\"price\":{\"assign\":" + probe.price() + "}}}"},
            // Errors come in the asked type as well.
            {"GET", search("select * from product where nonsense(", null), null},
            {"POST", doc, "{\"fields\":{\"no_such_field\":1}}"},
          }) {
        Answer json = send(f, pair[0], pair[1], pair[2], null);
        Answer cbor = send(f, pair[0], pair[1], pair[2], "application/cbor");
        String what = pair[0] + " " + pair[1];
        assertEquals(json.status(), cbor.status(), what + ": " + cbor.describe());
        assertEquals(ApiResponse.JSON, json.contentType(), what);
        assertEquals(AcceptHeader.CBOR, cbor.contentType(), what);
        assertEquals(json.tree(), cbor.tree(), what);
      }
      JsonNode hits = send(f, "GET", query, null, "application/cbor").tree();
      assertEquals(
          "id:product:product::" + probe.id(),
          hits.get("root").get("children").get(0).get("id").asText(),
          hits.toString());
    }
  }

  @Test
  void acceptChoosesBetweenJsonAndCborAndRefusesTheRest() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      String q = search("select * from product where true", null);
      assertEquals(
          AcceptHeader.CBOR,
          send(f, "GET", q, null, "application/cbor, application/json").contentType());
      assertEquals(
          ApiResponse.JSON,
          send(f, "GET", q, null, "application/json, application/cbor").contentType());
      assertEquals(
          ApiResponse.JSON,
          send(f, "GET", q, null, "application/cbor;q=0.4, application/json").contentType());
      assertEquals(ApiResponse.JSON, send(f, "GET", q, null, "*/*").contentType());

      for (String refused : List.of("application/xml", "application/cbor;q=0", "text/html;q=0")) {
        Answer a = send(f, "GET", q, null, refused);
        assertEquals(406, a.status(), refused + ": " + a.describe());
        assertEquals(ApiResponse.JSON, a.contentType(), "a 406 is JSON");
        String message = a.tree().get("root").get("errors").get(0).get("message").asText();
        assertTrue(message.contains("application/json or application/cbor"), message);
      }
      Answer doc = send(f, "GET", "/document/v1/product/product/docid/x", null, "application/xml");
      assertEquals(406, doc.status(), doc.describe());
      assertTrue(doc.tree().get("message").asText().contains(refusedHint()), doc.describe());

      // The Elasticsearch routes answer JSON only (Elasticsearch itself would answer CBOR; nothing
      // here asks it to).
      Answer es = send(f, "GET", "/product/_count", null, "application/cbor");
      assertEquals(406, es.status(), es.describe());
    }
  }

  private static String refusedHint() {
    return "accept application/json or application/cbor";
  }
}
