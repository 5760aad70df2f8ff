package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;

/**
 * {@code GET} and {@code PUT /_cluster/settings}: values stored as strings and answered flat or
 * nested, null resets, transient settings kept in memory and persistent ones in the data directory
 * (they survive a restart, as does the node id), and every bad update refused whole with a 400 that
 * names the key.
 */
class ClusterSettingsApiTest {
  private static JsonNode ok(ServerFixture.Response r) {
    assertEquals(200, r.status(), r.body());
    return r.json();
  }

  private static void assertRefused(
      ServerFixture.Response r, int status, String type, String word) {
    assertEquals(status, r.status(), r.body());
    assertEquals(type, r.json().path("error").path("type").asText(), r.body());
    assertTrue(
        r.json().path("error").path("reason").asText().contains(word), word + " in " + r.body());
  }

  @Test
  void rallysDestructiveRequiresNameRoundTrip() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      JsonNode empty = ok(f.send("GET", "/_cluster/settings?flat_settings=true", (String) null));
      assertEquals(0, empty.path("persistent").size());
      assertTrue(empty.path("transient").isObject(), "Rally reads transient: " + empty);
      assertEquals(0, empty.path("transient").size());

      JsonNode put =
          ok(
              f.send(
                  "PUT",
                  "/_cluster/settings",
                  "{\"transient\":{\"action.destructive_requires_name\":false}}"));
      assertTrue(put.path("acknowledged").asBoolean());
      assertEquals(
          "false",
          put.path("transient").path("action").path("destructive_requires_name").asText(),
          "answered nested, the value a string: " + put);

      JsonNode flat = ok(f.send("GET", "/_cluster/settings?flat_settings=true", (String) null));
      assertEquals(
          "false", flat.path("transient").path("action.destructive_requires_name").textValue());
      JsonNode nested = ok(f.send("GET", "/_cluster/settings", (String) null));
      assertEquals(
          "false",
          nested.path("transient").path("action").path("destructive_requires_name").textValue());

      // Rally puts back the prior value, null here: a reset.
      ok(
          f.send(
              "PUT",
              "/_cluster/settings",
              "{\"transient\":{\"action.destructive_requires_name\":null}}"));
      assertEquals(
          0, ok(f.send("GET", "/_cluster/settings", (String) null)).path("transient").size());
    }
  }

  @Test
  void nestedBodiesWildcardResetsAndDefaults() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      ok(
          f.send(
              "PUT",
              "/_cluster/settings?flat_settings=true",
              "{\"persistent\":{\"indices\":{\"recovery\":{\"max_bytes_per_sec\":\"50mb\","
                  + "\"max_concurrent_file_chunks\":2}},\"search.max_buckets\":65536}}"));
      JsonNode flat = ok(f.send("GET", "/_cluster/settings?flat_settings", (String) null));
      assertEquals(
          "50mb", flat.path("persistent").path("indices.recovery.max_bytes_per_sec").asText());
      assertEquals(
          "2",
          flat.path("persistent").path("indices.recovery.max_concurrent_file_chunks").asText());
      assertEquals("65536", flat.path("persistent").path("search.max_buckets").asText());
      ok(f.send("PUT", "/_cluster/settings", "{\"persistent\":{\"indices.recovery.*\":null}}"));
      JsonNode after = ok(f.send("GET", "/_cluster/settings?flat_settings=true", (String) null));
      assertEquals(1, after.path("persistent").size(), after.toString());

      JsonNode d = ok(f.send("GET", "/_cluster/settings?include_defaults=true", (String) null));
      JsonNode defaults = d.path("defaults");
      assertEquals("searchlab", defaults.path("cluster").path("name").asText());
      assertEquals("100mb", defaults.path("http").path("max_content_length").asText());
      assertEquals(
          Integer.toString(f.port()),
          defaults.path("http").path("port").asText(),
          "the bound port");
      assertEquals("true", defaults.path("action").path("destructive_requires_name").asText());
    }
  }

  @Test
  void badUpdatesAreRefusedWholeNamingTheKey() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      String path = "/_cluster/settings";
      assertRefused(
          f.send("PUT", path, "{\"transient\":{\"a.b\":\"1\",\"c.d\":[1,2]}}"),
          400,
          "illegal_argument_exception",
          "c.d");
      assertEquals(
          0,
          ok(f.send("GET", path, (String) null)).path("transient").size(),
          "nothing of a refused update is applied");
      assertRefused(
          f.send("PUT", path, "{\"transitory\":{}}"),
          400,
          "x_content_parse_exception",
          "transitory");
      assertRefused(
          f.send("PUT", path, "{}"), 400, "action_request_validation_exception", "no settings");
      assertRefused(
          f.send("PUT", path, "{\"transient\":{}}"),
          400,
          "action_request_validation_exception",
          "no settings");
      assertRefused(
          f.send("PUT", path, "{\"transient\":{\"bad key\":1}}"),
          400,
          "illegal_argument_exception",
          "bad key");
      assertRefused(
          f.send("PUT", path, "{\"transient\":{\"a\":\"" + "v".repeat(5000) + "\"}}"),
          400,
          "illegal_argument_exception",
          "4096");
      assertRefused(
          f.send("PUT", path, "{\"transient\":{\"a.*\":\"x\"}}"),
          400,
          "illegal_argument_exception",
          "wildcard");
      assertRefused(
          f.send("PUT", path, "{\"transient\":" + "{\"a\":".repeat(20) + "1" + "}".repeat(21)),
          400,
          "illegal_argument_exception",
          "nests more than 16");
      StringBuilder many = new StringBuilder("{\"transient\":{");
      for (int i = 0; i < 1001; i++) {
        many.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":1");
      }
      assertRefused(
          f.send("PUT", path, many.append("}}").toString()),
          400,
          "illegal_argument_exception",
          "1000");
      assertRefused(
          f.send("PUT", path, "x".repeat(2 << 20)), 413, "illegal_argument_exception", "1048576");
      assertRefused(
          f.send("PUT", path, "not json"), 400, "illegal_argument_exception", "not valid JSON");
      assertRefused(
          f.send("GET", path + "?flat_settings=maybe", (String) null),
          400,
          "illegal_argument_exception",
          "maybe");
      assertEquals(405, f.send("POST", path, "{}").status());
    }
  }

  @Test
  void persistentSettingsAndTheNodeIdSurviveARestartTransientOnesDoNot() throws Exception {
    Path dir = Files.createTempDirectory("cluster-settings");
    SearchIndex index = TestStore.SEGMENTED.open(dir, new Schema(ServerFixture.DIMS));
    ServerConfig config = ServerConfig.builder().port(0).build();
    String nodeId;
    try {
      try (SearchServer s = SearchServer.start(config, index, Optional.empty(), Optional.of(dir))) {
        ServerFixture.Response put =
            send(
                s,
                "PUT",
                "/_cluster/settings",
                "{\"persistent\":{\"cluster.routing.allocation.enable\":\"primaries\"},"
                    + "\"transient\":{\"action.destructive_requires_name\":false}}");
        assertEquals(200, put.status(), put.body());
        nodeId =
            send(s, "GET", "/_cluster/state/master_node", null).json().path("master_node").asText();
      }
      assertTrue(Files.exists(dir.resolve("_state").resolve("cluster-settings.json")));
      try (SearchServer s = SearchServer.start(config, index, Optional.empty(), Optional.of(dir))) {
        JsonNode after = send(s, "GET", "/_cluster/settings?flat_settings=true", null).json();
        assertEquals(
            "primaries",
            after.path("persistent").path("cluster.routing.allocation.enable").asText());
        assertEquals(0, after.path("transient").size(), after.toString());
        JsonNode nodes = send(s, "GET", "/_nodes/_local/settings", null).json();
        assertTrue(nodes.path("nodes").has(nodeId), "the same node id after a restart: " + nodes);
      }
      // A damaged settings file stops the start with its name, rather than losing the settings.
      Files.writeString(
          dir.resolve("_state").resolve("cluster-settings.json"), "{\"persistent\":[");
      var e =
          org.junit.jupiter.api.Assertions.assertThrows(
              java.io.UncheckedIOException.class,
              () -> SearchServer.start(config, index, Optional.empty(), Optional.of(dir)).close());
      assertTrue(e.getMessage().contains("cluster-settings.json"), e.getMessage());
    } finally {
      index.close();
    }
  }

  private static ServerFixture.Response send(
      SearchServer s, String method, String path, String body) throws Exception {
    var http = java.net.http.HttpClient.newHttpClient();
    var b =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + s.port() + path))
            .method(
                method,
                body == null
                    ? java.net.http.HttpRequest.BodyPublishers.noBody()
                    : java.net.http.HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    var r = http.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    return new ServerFixture.Response(r.statusCode(), r.body(), r.headers());
  }
}
