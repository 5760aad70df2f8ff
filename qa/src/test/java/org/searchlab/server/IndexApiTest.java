package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.mapping.Mapping;

/**
 * Several indexes in one server, as Elasticsearch users create and manage them: {@code PUT}, {@code
 * GET}, {@code HEAD} and {@code DELETE /{index}} with each index's store chosen by {@code
 * index.store}, {@code _mapping}, {@code _settings}, {@code _cat/indices}, searches over index
 * expressions, bulk items routed per index with generated and numeric ids, and every error in
 * Elasticsearch's words; and that the indexes survive a restart.
 */
class IndexApiTest {
  @TempDir Path tmp;

  private static final int DIMS = 4;

  private static String mapping(String store) {
    return "{\"settings\":{\"index\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"store\":\""
        + store
        + "\"}},\"mappings\":{\"dynamic\":\"strict\",\"properties\":{"
        + "\"id\":{\"type\":\"keyword\"},\"title\":{\"type\":\"text\",\"analyzer\":\"lowercase_normalize_stem\"},"
        + "\"description\":{\"type\":\"text\",\"analyzer\":\"lowercase_normalize_stem\"},"
        + "\"category\":{\"type\":\"keyword\"},\"price\":{\"type\":\"integer\",\"index\":false},"
        + "\"average_rating\":{\"type\":\"float\",\"index\":false},"
        + "\"embedding\":{\"type\":\"dense_vector\",\"dims\":"
        + DIMS
        + ",\"similarity\":\"dot_product\"}}}}";
  }

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private record Answer(int status, String body) {
    JsonNode json() throws Exception {
      return Json.MAPPER.readTree(body);
    }
  }

  private Answer send(SearchServer s, String method, String path, String body, String type)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", type);
    }
    HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    return new Answer(r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
  }

  private Answer send(SearchServer s, String method, String path, String body) throws Exception {
    return send(s, method, path, body, "application/json");
  }

  private SearchServer start(Path data) throws Exception {
    return SearchServer.start(
        ServerConfig.builder().port(0).build(),
        data,
        TestKinds.both(),
        "segmented",
        Optional.empty(),
        Optional.empty());
  }

  private static void assertError(Answer a, int status, String type) throws Exception {
    assertEquals(status, a.status(), a.body());
    assertEquals(type, a.json().path("error").path("type").asText(), a.body());
    assertTrue(a.body().length() < 4096, "a bounded error body: " + a.body().length());
  }

  @Test
  void indexesOfBothKindsAreCreatedListedAndDeleted() throws Exception {
    Path data = tmp.resolve("data");
    try (SearchServer s = start(data)) {
      assertEquals(404, send(s, "HEAD", "/shop-a", null).status());
      Answer created = send(s, "PUT", "/shop-a", mapping("mutable"));
      assertEquals(200, created.status(), created.body());
      assertEquals("shop-a", created.json().get("index").asText());
      assertEquals(200, send(s, "PUT", "/shop-b", mapping("segmented")).status());
      assertError(
          send(s, "PUT", "/shop-a", mapping("mutable")), 400, "resource_already_exists_exception");
      assertEquals(200, send(s, "HEAD", "/shop-a", null).status());
      assertEquals(200, send(s, "HEAD", "/shop-a,shop-b", null).status());
      assertEquals(404, send(s, "HEAD", "/shop-a,nope", null).status());

      JsonNode index = send(s, "GET", "/shop-a", null).json();
      assertEquals("mutable", index.at("/shop-a/settings/index/store").asText());
      assertEquals("dense_vector", index.at("/shop-a/mappings/properties/embedding/type").asText());
      assertEquals("strict", index.at("/shop-a/mappings/dynamic").asText());
      assertEquals(
          "segmented",
          send(s, "GET", "/shop-b/_settings?flat_settings=true", null)
              .json()
              .at("/shop-b/settings/index.store")
              .asText());

      String bulk =
          "{\"index\":{\"_index\":\"shop-a\",\"_id\":\"1\"}}\n"
              + "{\"title\":\"red shoe\",\"category\":\"shoes\",\"price\":10,\"embedding\":[1,0,0,0]}\n"
              + "{\"index\":{\"_index\":\"shop-b\"}}\n"
              + "{\"title\":\"red hat\",\"category\":\"hats\",\"price\":5,\"embedding\":[0,1,0,0]}\n"
              + "{\"index\":{\"_index\":\"shop-b\",\"_id\":7}}\n"
              + "{\"title\":\"blue hat\",\"category\":\"hats\",\"price\":7,\"embedding\":[0,0,1,0]}\n"
              + "{\"delete\":{\"_index\":\"nope\",\"_id\":\"x\"}}\n";
      Answer b = send(s, "POST", "/_bulk?refresh=true", bulk, "application/x-ndjson");
      assertEquals(200, b.status(), b.body());
      JsonNode items = b.json().get("items");
      assertEquals("shop-a", items.get(0).at("/index/_index").asText());
      assertEquals(201, items.get(0).at("/index/status").asInt());
      String generated = items.get(1).at("/index/_id").asText();
      assertEquals(20, generated.length(), "an Elasticsearch-style generated id: " + generated);
      assertEquals("7", items.get(2).at("/index/_id").asText(), "a numeric _id as its string");
      assertEquals(404, items.get(3).at("/delete/status").asInt());
      assertEquals("index_not_found_exception", items.get(3).at("/delete/error/type").asText());
      assertEquals(200, send(s, "GET", "/shop-b/_doc/" + generated, null).status());
      assertEquals(200, send(s, "GET", "/shop-b/_doc/7", null).status());

      // Searches over one index, a list, a pattern and all; a pattern matching none is empty.
      assertEquals(
          1,
          hits(
              send(
                  s,
                  "POST",
                  "/shop-a/_search",
                  "{\"query\":{\"multi_match\":{\"query\":\"red\",\"fields\":[\"title\",\"description\"]}}}")));
      assertEquals(
          3, hits(send(s, "POST", "/shop-a,shop-b/_search", "{\"query\":{\"match_all\":{}}}")));
      assertEquals(3, hits(send(s, "POST", "/shop-*/_search", null)));
      Answer none = send(s, "POST", "/.ml-anomalies-*/_search", "{\"size\":0}");
      assertEquals(200, none.status(), none.body());
      assertEquals(0, none.json().at("/hits/total/value").asInt());
      assertEquals(3, send(s, "GET", "/_count", null).json().get("count").asInt());
      assertError(send(s, "POST", "/nope/_search", null), 404, "index_not_found_exception");

      Answer cat = send(s, "GET", "/_cat/indices?format=json", null);
      assertEquals(2, cat.json().size(), cat.body());
      Set<String> names = new HashSet<>();
      for (JsonNode row : cat.json()) {
        names.add(row.get("index").asText());
        assertEquals("green", row.get("health").asText());
        assertNotEquals("-", row.get("store.size").asText());
      }
      assertEquals(Set.of("shop-a", "shop-b"), names);
      String text = send(s, "GET", "/_cat/indices?v", null).body();
      assertTrue(text.startsWith("health"), text);
      assertTrue(text.contains("shop-a") && text.contains("shop-b"), text);

      assertError(send(s, "DELETE", "/shop-*", null), 400, "illegal_argument_exception");
      assertEquals(200, send(s, "DELETE", "/shop-a", null).status());
      assertEquals(404, send(s, "HEAD", "/shop-a", null).status());
      assertError(send(s, "GET", "/shop-a/_doc/1", null), 404, "index_not_found_exception");
    }
    // shop-b and its documents are back after a restart, shop-a stays deleted.
    try (SearchServer s = start(data)) {
      assertEquals(404, send(s, "HEAD", "/shop-a", null).status());
      assertEquals(2, send(s, "GET", "/shop-b/_count", null).json().get("count").asInt());
      assertEquals(1, s.indices().all().size());
    }
  }

  private static int hits(Answer a) throws Exception {
    assertEquals(200, a.status(), a.body());
    return a.json().at("/hits/hits").size();
  }

  @Test
  void badNamesAndSettingsAreRefusedInElasticsearchsWords() throws Exception {
    try (SearchServer s = start(tmp.resolve("data"))) {
      for (String bad :
          List.of(
              "Upper",
              "_under",
              "-dash",
              "+plus",
              "a%2Fb",
              "a%5Cb",
              "..",
              "a..b",
              "a*b",
              "a%3Fb",
              "a%22b",
              "a%3Cb",
              "a%3Eb",
              "a%7Cb",
              "a%20b",
              "x".repeat(256))) {
        Answer a = send(s, "PUT", "/" + bad, mapping("mutable"));
        assertEquals(400, a.status(), bad + ": " + a.body());
        assertEquals(
            "invalid_index_name_exception",
            a.json().at("/error/type").asText(),
            bad + ": " + a.body());
      }
      assertError(
          send(s, "PUT", "/two-shards", "{\"settings\":{\"number_of_shards\":2}}"),
          400,
          "mapper_parsing_exception");
      assertError(
          send(s, "PUT", "/bad-store", "{\"settings\":{\"index.store\":\"ram\"}}"),
          400,
          "illegal_argument_exception");
      assertError(
          send(s, "PUT", "/bad-store", "{\"settings\":{\"index.store\":\"../x\"}}"),
          400,
          "mapper_parsing_exception");
      assertError(
          send(
              s,
              "PUT",
              "/bad-type",
              "{\"mappings\":{\"properties\":{\"x\":{\"type\":\"geo_point\"}}}}"),
          400,
          "mapper_parsing_exception");
      assertEquals(0, s.indices().all().size(), "nothing was created by a refused request");
      assertTrue(
          tmp.resolve("data").resolve("indices").toFile().list().length == 0,
          "and nothing was left on disk");
      // Mapping updates: a new field is added, a changed type is refused.
      assertEquals(200, send(s, "PUT", "/m", mapping("segmented")).status());
      Answer conflict =
          send(s, "PUT", "/m/_mapping", "{\"properties\":{\"price\":{\"type\":\"keyword\"}}}");
      assertError(conflict, 400, "illegal_argument_exception");
      assertFalse(
          Mapping.EMPTY.equals(s.indices().get("m").index().mapping()), "the mapping stays");
    }
  }

  /**
   * Elasticsearch's 4-bit and 1-bit HNSW types are both stores', the 1-bit one from 64 dimensions,
   * as Elasticsearch allows it; a refused create leaves nothing behind, and a mapping update may
   * add a 4-bit field.
   */
  @Test
  void int4AndBbqAreBothStoresBbqFromSixtyFourDimensions() throws Exception {
    try (SearchServer s = start(tmp.resolve("data"))) {
      for (String store : List.of("mutable", "segmented")) {
        Answer shortBbq = send(s, "PUT", "/" + store + "-short", withType(store, "bbq_hnsw"));
        assertError(shortBbq, 400, "mapper_parsing_exception");
        assertTrue(
            shortBbq
                .json()
                .at("/error/reason")
                .asText()
                .contains("bbq_hnsw does not support dimensions fewer than 64; provided=" + DIMS),
            shortBbq.body());
      }
      assertEquals(0, s.indices().all().size(), "a refused create makes no index");
      assertEquals(0, tmp.resolve("data").resolve("indices").toFile().list().length);

      float[] unit = new float[64];
      unit[0] = 0.6f;
      unit[1] = 0.8f;
      String vector = java.util.Arrays.toString(unit);
      for (String store : List.of("mutable", "segmented")) {
        for (String type : List.of("bbq_hnsw", "int4_hnsw")) {
          String index = store.substring(0, 3) + "-" + type.substring(0, 4);
          Answer bbq =
              send(
                  s,
                  "PUT",
                  "/" + index,
                  withType(store, type).replace("\"dims\":" + DIMS, "\"dims\":64"));
          assertEquals(200, bbq.status(), bbq.body());
          assertEquals(
              type,
              send(s, "GET", "/" + index + "/_mapping", null)
                  .json()
                  .at("/" + index + "/mappings/properties/embedding/index_options/type")
                  .asText());
          Answer doc =
              send(
                  s, "PUT", "/" + index + "/_doc/1?refresh=true", "{\"embedding\":" + vector + "}");
          assertEquals(201, doc.status(), doc.body());
          Answer knn =
              send(
                  s,
                  "POST",
                  "/" + index + "/_search",
                  "{\"knn\":{\"field\":\"embedding\",\"query_vector\":"
                      + vector
                      + ",\"k\":1,\"num_candidates\":10}}");
          assertEquals(1, hits(knn), knn.body());
          assertEquals(
              1.0, knn.json().at("/hits/hits/0/_score").asDouble(), 1e-6, index + ": exact float");
        }
      }

      // A mutable index's mapping update may add an int4_hnsw field (to an index of its own
      // mapping: the product mapping's store adds no fields).
      assertEquals(
          200,
          send(
                  s,
                  "PUT",
                  "/mut",
                  "{\"settings\":{\"index\":{\"store\":\"mutable\"}},"
                      + "\"mappings\":{\"properties\":{\"title\":{\"type\":\"text\"}}}}")
              .status());
      Answer update =
          send(
              s,
              "PUT",
              "/mut/_mapping",
              "{\"properties\":{\"img\":{\"type\":\"dense_vector\",\"dims\":4,"
                  + "\"index_options\":{\"type\":\"int4_hnsw\"}}}}");
      assertEquals(200, update.status(), update.body());
      assertEquals(
          "int4_hnsw",
          s.indices().get("mut").index().mapping().vector("img").indexOptions().type());
    }
  }

  /** {@link #mapping} with the embedding's {@code index_options.type} set to {@code type}. */
  private static String withType(String store, String type) {
    String m = mapping(store);
    String tail = "\"similarity\":\"dot_product\"}";
    assertTrue(m.contains(tail));
    return m.replace(
        tail, "\"similarity\":\"dot_product\",\"index_options\":{\"type\":\"" + type + "\"}}");
  }

  @Test
  void bulkItemReasonsAreCappedLikeWholeAnswers() throws Exception {
    try (SearchServer s = start(tmp.resolve("data"))) {
      assertEquals(200, send(s, "PUT", "/m", mapping("mutable")).status());
      StringBuilder action = new StringBuilder("{\"index\":{\"_index\":\"m\"");
      for (int i = 0; i < 20_000; i++) {
        action.append(",\"k").append(i).append("\":").append(i);
      }
      action.append("}}\n{\"title\":\"t\"}\n");
      Answer a = send(s, "POST", "/_bulk", action.toString(), "application/x-ndjson");
      assertEquals(200, a.status());
      assertTrue(a.json().get("errors").asBoolean(), a.body());
      assertTrue(
          a.body().length() < 8192,
          "a " + action.length() + "-byte bulk answered with " + a.body().length() + " bytes");
    }
  }
}
