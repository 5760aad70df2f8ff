package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code _bulk} as Elasticsearch: every item succeeds or fails on its own. Bad ids (empty, over 512
 * bytes) in any action, a bad source, an unknown index or action fail their item only; the good
 * items around them are applied, the bad ones are not. Both stores.
 */
class BulkItemErrorsTest {
  private record Item(String action, String source, int status) {}

  @ParameterizedTest
  @EnumSource(
      value = TestStore.class,
      names = {"SEGMENTED", "MUTABLE"})
  void everyItemFailsOrSucceedsOnItsOwn(TestStore store) throws Exception {
    String longId = "x".repeat(600);
    List<Item> items =
        List.of(
            new Item("{\"index\":{\"_id\":\"ok1\"}}", "{\"title\":\"first\"}", 201),
            new Item("{\"create\":{\"_id\":\"\"}}", "{\"title\":\"empty id\"}", 400),
            new Item("{\"create\":{\"_id\":\"" + longId + "\"}}", "{\"title\":\"long\"}", 400),
            new Item("{\"index\":{\"_id\":\"" + longId + "\"}}", "{\"title\":\"long\"}", 400),
            new Item("{\"index\":{\"_id\":\"\"}}", "{\"title\":\"empty\"}", 400),
            new Item("{\"delete\":{\"_id\":\"\"}}", null, 400),
            new Item("{\"delete\":{\"_id\":\"" + longId + "\"}}", null, 400),
            new Item("{\"update\":{\"_id\":\"\"}}", "{\"doc\":{\"price\":1}}", 400),
            new Item("{\"create\":{\"_id\":\"ok2\"}}", "{\"title\":\"second\"}", 201),
            new Item("{\"create\":{\"_id\":\"ok1\"}}", "{\"title\":\"dup\"}", 409),
            new Item("{\"index\":{\"_id\":\"bad-src\"}}", "{\"price\":\"cheap\"}", 400),
            new Item("{\"index\":{\"_index\":\"other\",\"_id\":\"x\"}}", "{\"title\":\"t\"}", 404),
            new Item("{\"update\":{\"_id\":\"ok2\"}}", "{\"doc\":{\"price\":7}}", 200),
            new Item("{\"delete\":{\"_id\":\"never\"}}", null, 404));
    StringBuilder body = new StringBuilder();
    for (Item it : items) {
      body.append(it.action()).append('\n');
      if (it.source() != null) {
        body.append(it.source()).append('\n');
      }
    }
    try (ServerFixture f = ServerFixture.start(store)) {
      ServerFixture.Response r =
          f.send(
              "POST",
              "/product/_bulk?refresh=true",
              body.toString(),
              "Content-Type",
              "application/x-ndjson");
      assertEquals(200, r.status(), r.body());
      JsonNode json = r.json();
      assertTrue(json.get("errors").asBoolean());
      assertEquals(items.size(), json.get("items").size());
      for (int i = 0; i < items.size(); i++) {
        JsonNode result = json.get("items").get(i).elements().next();
        assertEquals(items.get(i).status(), result.get("status").asInt(), i + ": " + result);
        if (items.get(i).status() >= 400) {
          // A delete of a missing document is 404 "not_found" without an error, as in
          // Elasticsearch.
          assertTrue(
              result.has("error") || "not_found".equals(result.path("result").asText()),
              result.toString());
        }
      }
      assertEquals(
          2,
          f.send("GET", "/product/_count", (String) null).json().get("count").asInt(),
          "ok1+ok2");
      assertEquals(
          7,
          f.send("GET", "/product/_doc/ok2", (String) null)
              .json()
              .get("_source")
              .get("price")
              .asInt());
      assertEquals(
          "first",
          f.send("GET", "/product/_doc/ok1", (String) null)
              .json()
              .get("_source")
              .get("title")
              .asText(),
          "the duplicate create changed nothing");
      // Only a body with no NDJSON line at all fails the whole request.
      assertEquals(
          400, f.send("POST", "/_bulk", "\n\n", "Content-Type", "application/x-ndjson").status());
    }
  }

  /**
   * An action line of 20,000 keys (282 KB) fails its item with a reason capped as a whole answer's
   * is, not echoed back: the answer stays small, and the item after it is applied.
   */
  @ParameterizedTest
  @EnumSource(
      value = TestStore.class,
      names = {"SEGMENTED", "MUTABLE"})
  void anItemsErrorReasonIsCapped(TestStore store) throws Exception {
    StringBuilder action = new StringBuilder("{\"index\":{\"_id\":\"big\"");
    for (int i = 0; i < 20_000; i++) {
      action.append(",\"key").append(i).append("\":").append(i);
    }
    String body =
        action + "}}\n{\"title\":\"t\"}\n{\"index\":{\"_id\":\"after\"}}\n{\"title\":\"u\"}\n";
    assertTrue(body.length() > 250_000, "the request is large: " + body.length());
    try (ServerFixture f = ServerFixture.start(store)) {
      ServerFixture.Response r =
          f.send("POST", "/product/_bulk", body, "Content-Type", "application/x-ndjson");
      assertEquals(200, r.status(), r.body().substring(0, Math.min(500, r.body().length())));
      assertTrue(r.body().length() < 4096, "a bounded answer: " + r.body().length() + " bytes");
      JsonNode items = r.json().get("items");
      assertEquals(400, items.get(0).at("/index/status").asInt(), items.toString());
      assertTrue(items.get(0).at("/index/error/reason").asText().length() < 1024);
      assertEquals(201, items.get(1).at("/index/status").asInt(), items.toString());
    }
  }
}
