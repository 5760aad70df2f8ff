package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Every kind of bad input gets a 4xx in its dialect's error shape with a message naming the
 * problem, nothing is half-applied, and the server keeps serving. One server per store (a 64 KB
 * body limit) serves all cases; subclasses pick the store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ErrorResponsesTestCase {
  private static final int LIMIT = 64 * 1024;
  private ServerFixture f;
  private List<Document> docs;

  /** The store under the server. */
  abstract TestStore store();

  @BeforeAll
  void start() throws Exception {
    f =
        ServerFixture.start(
            store(),
            ServerConfig.builder().port(0).maxContentLength(LIMIT).build(),
            Optional.empty());
    docs =
        f.load(
            new SyntheticCorpus(TestSeeds.seed(getClass().getSimpleName()), ServerFixture.DIMS),
            100,
            20);
  }

  @AfterAll
  void stop() throws Exception {
    f.close();
  }

  /** Asserts an Elasticsearch error, then that the server still answers a search. */
  private JsonNode esError(ServerFixture.Response r, int status, String reasonPart)
      throws Exception {
    assertEquals(status, r.status(), r.body());
    assertEquals("Elasticsearch", r.header("X-Elastic-Product"));
    assertTrue(r.header("Content-Type").startsWith("application/json"));
    JsonNode json = r.json();
    assertEquals(status, json.get("status").asInt(), r.body());
    assertNotNull(json.get("error").get("type"), r.body());
    String reason = json.get("error").get("reason").asText();
    assertTrue(
        reason.contains(reasonPart), "reason '" + reason + "' should mention '" + reasonPart + "'");
    assertFalse(r.body().contains("\tat "), "no stack traces in responses");
    assertHealthy();
    return json;
  }

  private void vespaError(ServerFixture.Response r, int status, String messagePart)
      throws Exception {
    assertEquals(status, r.status(), r.body());
    JsonNode json = r.json();
    String message =
        json.has("message")
            ? json.get("message").asText()
            : json.get("root").get("errors").get(0).get("message").asText();
    assertTrue(
        message.contains(messagePart),
        "message '" + message + "' should mention '" + messagePart + "'");
    assertHealthy();
  }

  private void assertHealthy() throws Exception {
    assertEquals(200, f.send("GET", "/health", (String) null).status());
    ServerFixture.Response s =
        f.send("POST", "/product/_search", "{\"query\":{\"match_all\":{}},\"size\":1}");
    assertEquals(200, s.status(), s.body());
    assertEquals(docs.size(), s.json().get("hits").get("total").get("value").asInt());
  }

  private static String vec(int dims, String nine) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < dims; i++) {
      sb.append(i == 0 ? "" : ",").append(i == 3 && nine != null ? nine : i == 0 ? "1.0" : "0.0");
    }
    return sb.append(']').toString();
  }

  @Test
  void malformedJson() throws Exception {
    esError(f.send("POST", "/product/_search", "{\"query\": {"), 400, "not valid JSON");
    vespaError(f.send("POST", "/search/", "{\"yql\": "), 400, "not valid JSON");
    vespaError(
        f.send("POST", "/document/v1/product/product/docid/x1", "{\"fields\":"),
        400,
        "not valid JSON");
  }

  @Test
  void wrongVectorLength() throws Exception {
    String body =
        "{\"knn\":{\"field\":\"embedding\",\"query_vector\":[1.0,0.0],\"k\":5,\"num_candidates\":10}}";
    esError(
        f.send("POST", "/product/_search", body),
        400,
        "different number of dimensions [2] than the document vectors [32]");
    vespaError(
        f.send(
            "POST",
            "/search/",
            "{\"yql\":\"select * from product where {targetHits:5}nearestNeighbor(embedding,q)\","
                + "\"input.query(q)\":[1.0]}"),
        400,
        "different number of dimensions [1] than the document vectors [32]");
    Document d = docs.get(0);
    String put = "{\"title\":\"t\",\"embedding\":[0.6,0.8]}";
    esError(f.send("PUT", "/product/_doc/new-doc", put), 400, "has 2 dimensions");
    assertEquals(
        404, f.send("GET", "/product/_doc/new-doc", (String) null).status(), "nothing applied");
    assertEquals(200, f.send("GET", "/product/_doc/" + d.id(), (String) null).status());
  }

  @Test
  void nanInVector() throws Exception {
    String body =
        "{\"knn\":{\"field\":\"embedding\",\"query_vector\":" + vec(32, "NaN") + ",\"k\":5}}";
    esError(f.send("POST", "/product/_search", body), 400, "[3] is NaN");
    vespaError(
        f.send(
            "POST",
            "/document/v1/product/product/docid/nan-doc",
            "{\"fields\":{\"title\":\"x\",\"embedding\":" + vec(32, "NaN") + "}}"),
        400,
        "NaN");
    assertEquals(
        404, f.send("GET", "/document/v1/product/product/docid/nan-doc", (String) null).status());
  }

  @Test
  void tooLongKeyword() throws Exception {
    String cat = "c".repeat(40_000);
    esError(
        f.send("PUT", "/product/_doc/long-cat", "{\"title\":\"t\",\"category\":\"" + cat + "\"}"),
        400,
        "at most 32766");
    assertEquals(404, f.send("GET", "/product/_doc/long-cat", (String) null).status());
  }

  @Test
  void unknownQueryType() throws Exception {
    JsonNode e =
        esError(
            f.send("POST", "/product/_search", "{\"query\":{\"fuzzy\":{\"title\":\"x\"}}}"),
            400,
            "unknown query type [fuzzy]");
    assertEquals("parsing_exception", e.get("error").get("type").asText());
    esError(f.send("POST", "/product/_search", "{\"querry\":{}}"), 400, "unknown key [querry]");
    vespaError(
        f.send(
            "POST",
            "/search/",
            "{\"yql\":\"select * from product where userQuery()\",\"query\":\"a\",\"ranking.profile\":\"fancy\"}"),
        400,
        "unknown rank profile 'fancy'");
  }

  @Test
  void badYqlReportsTheColumn() throws Exception {
    String yql = "select * from product wher userQuery()";
    ServerFixture.Response r =
        f.send(
            "GET",
            "/search/?query=a&yql=" + URLEncoder.encode(yql, StandardCharsets.UTF_8),
            (String) null);
    vespaError(r, 400, "column 23: expected 'where', found 'wher'");
    vespaError(
        f.send(
            "POST",
            "/search/",
            "{\"yql\":\"select * from product where userQuery() and"
                + " {targetHits:5}nearestNeighbor(embedding,q)\",\"query\":\"x\"}"),
        400,
        "column 45: nearestNeighbor() may be and-ed with filters only");
    vespaError(
        f.send(
            "POST",
            "/search/",
            "{\"yql\":\"select * from product where ({targetHits:10}nearestNeighbor(embedding,q_embedding)\"}"),
        400,
        "expected ')' to close the '(' at column 29");
  }

  @Test
  void unknownEndpointsAndIndices() throws Exception {
    esError(
        f.send("GET", "/product/_nonsense", (String) null),
        400,
        "no handler found for uri [/product/_nonsense]");
    esError(f.send("GET", "/other/_search", (String) null), 404, "no such index [other]");
    esError(f.send("DELETE", "/_search", (String) null), 405, "incorrect HTTP method");
    vespaError(
        f.send("GET", "/document/v1/product/product/docs", (String) null),
        400,
        "expected /document/v1/");
    vespaError(
        f.send("POST", "/document/v1/product/music/docid/1", "{\"fields\":{}}"),
        400,
        "Document type music");
    esError(f.send("GET", "/_admin/nothing", (String) null), 404, "no admin endpoint");
  }

  @Test
  void oversizedBodies() throws Exception {
    byte[] big = new byte[LIMIT + 1000];
    java.util.Arrays.fill(big, (byte) ' ');
    big[0] = '{';
    big[big.length - 1] = '}';
    esError(f.send("POST", "/product/_search", big), 413, "larger than the limit of " + LIMIT);
    vespaError(
        f.send("POST", "/document/v1/product/product/docid/big", big),
        413,
        "larger than the limit");
    // The limit applies after gzip decoding: a small compressed body that inflates past it.
    esError(
        f.send(
            "POST",
            "/product/_search",
            gzip(big),
            "Content-Encoding",
            "gzip",
            "Content-Type",
            "application/json"),
        413,
        "larger than the limit");
  }

  @Test
  void gzipBodiesAreDecoded() throws Exception {
    String put = "{\"fields\":{\"title\":\"gzipped title\",\"category\":\"gz\",\"price\":7}}";
    ServerFixture.Response r =
        f.send(
            "POST",
            "/document/v1/product/product/docid/gz-1",
            gzip(put.getBytes(StandardCharsets.UTF_8)),
            "Content-Encoding",
            "gzip");
    assertEquals(200, r.status(), r.body());
    assertEquals("id:product:product::gz-1", r.json().get("id").asText());
    JsonNode got = f.send("GET", "/document/v1/product/product/docid/gz-1", (String) null).json();
    assertEquals("gzipped title", got.get("fields").get("title").asText());
    assertEquals(
        200, f.send("DELETE", "/document/v1/product/product/docid/gz-1", (String) null).status());
  }

  @Test
  void badContentType() throws Exception {
    esError(
        f.send("POST", "/product/_search", "{}", "Content-Type", "text/plain"),
        415,
        "Content-Type [text/plain] is not supported");
    esError(
        f.send(
            "POST",
            "/product/_search",
            "{}",
            "Content-Type",
            "application/vnd.elasticsearch+json; compatible-with=7"),
        400,
        "compatible-with=7");
    ServerFixture.Response ok =
        f.send(
            "POST",
            "/product/_search",
            "{}",
            "Content-Type",
            "application/vnd.elasticsearch+json; compatible-with=9");
    assertEquals(200, ok.status(), ok.body());
  }

  @Test
  void aBadBulkLineFailsOnlyItsItem() throws Exception {
    String bulk =
        "{\"index\":{\"_index\":\"product\",\"_id\":\"b1\"}}\n"
            + "{\"title\":\"first\",\"category\":\"bulk\"}\n"
            + "{\"index\":{\"_index\":\"product\",\"_id\":\"b2\"}}\n"
            + "{\"title\":\"broken\",\n"
            + "{\"index\":{\"_index\":\"product\",\"_id\":\"b3\"}}\n"
            + "{\"title\":\"third\",\"embedding\":[1,2]}\n"
            + "{\"update\":{\"_index\":\"product\",\"_id\":\"missing\"}}\n"
            + "{\"doc\":{\"price\":1}}\n"
            + "{\"delete\":{\"_index\":\"product\",\"_id\":\"b1\"}}\n"
            + "{\"create\":{\"_index\":\"product\",\"_id\":\"b4\"}}\n"
            + "{\"title\":\"fourth\",\"category\":\"bulk\"}\n"
            + "{\"create\":{\"_index\":\"product\",\"_id\":\"b4\"}}\n"
            + "{\"title\":\"fourth again\"}\n";
    ServerFixture.Response r =
        f.send("POST", "/_bulk?refresh=true", bulk, "Content-Type", "application/x-ndjson");
    assertEquals(200, r.status(), r.body());
    JsonNode items = r.json().get("items");
    assertTrue(r.json().get("errors").asBoolean());
    assertEquals(7, items.size(), r.body());
    assertEquals(201, items.get(0).get("index").get("status").asInt());
    assertEquals(400, items.get(1).get("index").get("status").asInt());
    assertEquals(400, items.get(2).get("index").get("status").asInt());
    assertTrue(
        items.get(2).get("index").get("error").get("reason").asText().contains("2 dimensions"));
    assertEquals(404, items.get(3).get("update").get("status").asInt());
    assertEquals(
        "document_missing_exception", items.get(3).get("update").get("error").get("type").asText());
    assertEquals(200, items.get(4).get("delete").get("status").asInt());
    assertEquals(201, items.get(5).get("create").get("status").asInt());
    assertEquals(409, items.get(6).get("create").get("status").asInt());
    assertEquals(404, f.send("GET", "/product/_doc/b1", (String) null).status());
    assertEquals(404, f.send("GET", "/product/_doc/b2", (String) null).status());
    assertEquals(404, f.send("GET", "/product/_doc/b3", (String) null).status());
    assertEquals(
        "fourth",
        f.send("GET", "/product/_doc/b4", (String) null)
            .json()
            .get("_source")
            .get("title")
            .asText());
    assertEquals(200, f.send("DELETE", "/product/_doc/b4?refresh=true", (String) null).status());
    assertHealthy();
  }

  @Test
  void missingEmbedderIsA400NamingIt() throws Exception {
    String es =
        "{\"knn\":{\"field\":\"embedding\",\"k\":5,\"query_vector_builder\":{\"text_embedding\":"
            + "{\"model_id\":\"minilm\",\"model_text\":\"red shoes\"}}}}";
    esError(f.send("POST", "/product/_search", es), 400, "no embedder");
    vespaError(
        f.send(
            "POST",
            "/search/",
            "{\"yql\":\"select * from product where {targetHits:5}nearestNeighbor(embedding,q)\","
                + "\"input.query(q)\":\"embed(red shoes)\"}"),
        400,
        "--embedder");
  }

  @Test
  void mappingChangesAreRefused() throws Exception {
    esError(
        f.send(
            "PUT",
            "/product",
            "{\"mappings\":{\"properties\":{\"embedding\":{\"type\":\"dense_vector\",\"dims\":32,\"similarity\":\"cosine\"}}}}"),
        400,
        "already exists");
    esError(
        f.send(
            "PUT",
            "/product/_mapping",
            "{\"properties\":{\"embedding\":{\"type\":\"dense_vector\",\"dims\":33,\"similarity\":\"dot_product\"}}}"),
        400,
        "Cannot update parameter [dims] from [32] to [33]");
    esError(
        f.send("PUT", "/product/_mapping", "{\"properties\":{\"price\":{\"type\":\"keyword\"}}}"),
        400,
        "cannot be changed from type [integer] to [keyword]");
    esError(f.send("PUT", "/other", "{}"), 400, "cannot create [other]");
  }

  @Test
  void quantizationInTheMappingMustBeTheStores() throws Exception {
    String mapping =
        "{\"mappings\":{\"properties\":{\"embedding\":{\"type\":\"dense_vector\","
            + "\"index_options\":{\"type\":\"%s\"}}}}}";
    // bbq_disk is Elasticsearch's (an IVF format), not one of the HNSW types the stores build.
    JsonNode unknown = esError(f.send("PUT", "/product", mapping.formatted("bbq_disk")), 400, "");
    String reason = unknown.get("error").get("reason").asText();
    assertTrue(
        reason.contains("[bbq_disk]") && reason.contains("[hnsw, int8_hnsw, int4_hnsw, bbq_hnsw]"),
        "names the value and the allowed ones: " + reason);
    // An index keeps the vector format it was created with: int8_hnsw is a valid type, but not
    // this index's.
    esError(
        f.send(
            "PUT",
            "/product/_mapping",
            "{\"properties\":{\"embedding\":{\"type\":\"dense_vector\",\"dims\":32,"
                + "\"similarity\":\"dot_product\",\"index_options\":{\"type\":\"int8_hnsw\"}}}}"),
        400,
        "Cannot update parameter [index_options]");
  }

  private static byte[] gzip(byte[] bytes) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(bytes);
    }
    return out.toByteArray();
  }

  /**
   * op_type=create is decided by the store, atomically: of concurrent creates of one id over HTTP
   * exactly one is 201 and every other a 409 version_conflict_engine_exception.
   */
  @Test
  void concurrentCreatesOverHttpHaveOneWinner() throws Exception {
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(6);
    try {
      for (int round = 0; round < 10; round++) {
        String path = "/product/_doc/race-" + round + "?op_type=create";
        List<java.util.concurrent.Future<ServerFixture.Response>> answers =
            new java.util.ArrayList<>();
        for (int t = 0; t < 6; t++) {
          String body = "{\"title\":\"racer " + t + "\",\"price\":" + t + "}";
          answers.add(
              pool.submit(() -> f.send("PUT", path, body, "Content-Type", "application/json")));
        }
        int created = 0;
        for (java.util.concurrent.Future<ServerFixture.Response> a : answers) {
          ServerFixture.Response r = a.get();
          if (r.status() == 201) {
            created++;
          } else {
            assertEquals(409, r.status(), r.body());
            assertEquals(
                "version_conflict_engine_exception", r.json().get("error").get("type").asText());
          }
        }
        assertEquals(1, created, "round " + round + ": creates answered 201");
        // The other cases count this server's documents: leave none behind.
        assertEquals(
            200,
            f.send("DELETE", "/product/_doc/race-" + round + "?refresh=true", (String) null)
                .status());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
