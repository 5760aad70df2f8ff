package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.segmented.SegmentedFaultAccess;
import org.searchlab.testing.FaultyFiles;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * {@code GET /_cluster/health[/{index}]}: the status follows the store (green while it takes
 * writes, red once it stopped after a failure), the shard counts follow the index's settings, the
 * wait conditions Rally sends hold at once, and a wait that cannot be met answers 408 with {@code
 * timed_out} after its timeout, without holding a thread. Bad parameter values are 400 in
 * Elasticsearch's error shape, naming the value.
 */
class ClusterHealthTest {
  private static JsonNode ok(ServerFixture.Response r) {
    assertEquals(200, r.status(), r.body());
    assertEquals("Elasticsearch", r.header("X-Elastic-Product"));
    return r.json();
  }

  private static void assertBadRequest(ServerFixture.Response r, String... words) {
    assertEquals(400, r.status(), r.body());
    JsonNode e = r.json().path("error");
    assertEquals("illegal_argument_exception", e.path("type").asText(), r.body());
    for (String w : words) {
      assertTrue(e.path("reason").asText().contains(w), w + " in " + r.body());
    }
    assertEquals(400, r.json().path("status").asInt());
  }

  @ParameterizedTest
  @EnumSource(
      value = TestStore.class,
      names = {"SEGMENTED", "MUTABLE"})
  void aWritableStoreWithoutReplicasIsGreenWithOneActivePrimary(TestStore store) throws Exception {
    try (ServerFixture f = ServerFixture.start(store)) {
      JsonNode h = ok(f.send("GET", "/_cluster/health", (String) null));
      assertEquals("searchlab", h.path("cluster_name").asText());
      assertEquals("green", h.path("status").asText());
      assertFalse(h.path("timed_out").asBoolean());
      assertEquals(1, h.path("number_of_nodes").asInt());
      assertEquals(1, h.path("number_of_data_nodes").asInt());
      assertEquals(1, h.path("active_primary_shards").asInt());
      assertEquals(1, h.path("active_shards").asInt());
      assertEquals(0, h.path("unassigned_shards").asInt());
      assertEquals(0, h.path("relocating_shards").asInt());
      assertEquals(100.0, h.path("active_shards_percent_as_number").asDouble());
      assertTrue(h.path("indices").isMissingNode(), "level=cluster has no indices");

      // What Rally sends before its first operation, and with wait_for_status.
      JsonNode rally = ok(f.send("GET", "/_cluster/health?wait_for_nodes=%3E%3D1", (String) null));
      assertEquals("green", rally.path("status").asText());
      JsonNode green =
          ok(
              f.send(
                  "GET",
                  "/_cluster/health/product?wait_for_status=green&wait_for_nodes=ge(1)"
                      + "&wait_for_active_shards=all&wait_for_no_relocating_shards=true"
                      + "&wait_for_events=languid&timeout=5s",
                  (String) null));
      assertFalse(green.path("timed_out").asBoolean());

      JsonNode shards = ok(f.send("GET", "/_cluster/health/product?level=shards", (String) null));
      JsonNode index = shards.path("indices").path("product");
      assertEquals("green", index.path("status").asText());
      assertEquals(1, index.path("number_of_shards").asInt());
      assertEquals(0, index.path("number_of_replicas").asInt());
      assertTrue(index.path("shards").path("0").path("primary_active").asBoolean());
      JsonNode indices = ok(f.send("GET", "/_cluster/health?level=indices", (String) null));
      assertTrue(indices.path("indices").path("product").path("shards").isMissingNode());
    }
  }

  @Test
  void aWaitThatCannotBeMetAnswers408WithTimedOutAfterItsTimeout() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      long t0 = System.nanoTime();
      ServerFixture.Response r =
          f.send("GET", "/_cluster/health?wait_for_nodes=%3E%3D2&timeout=300ms", (String) null);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(408, r.status(), r.body());
      assertTrue(r.json().path("timed_out").asBoolean(), r.body());
      assertEquals(
          "green", r.json().path("status").asText(), "the nodes condition failed, not health");
      assertTrue(ms >= 250, "waited " + ms + " ms for a 300 ms timeout");

      // A missing index is red, and waited for until the timeout, as Elasticsearch does.
      ServerFixture.Response missing =
          f.send("GET", "/_cluster/health/nosuch?timeout=100ms", (String) null);
      assertEquals(408, missing.status(), missing.body());
      assertEquals("red", missing.json().path("status").asText());
      assertTrue(missing.json().path("timed_out").asBoolean());
      ServerFixture.Response none =
          f.send("GET", "/_cluster/health/nosuch*?timeout=0", (String) null);
      assertEquals(
          408, none.status(), "a wildcard matching nothing is missing too: " + none.body());

      // Waits run off the threads: more waiting requests than search threads, all answered.
      int n = ServerConfig.DEFAULT.searchThreads() * 3;
      List<java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>>> waits =
          new java.util.ArrayList<>();
      for (int i = 0; i < n; i++) {
        waits.add(
            f.http.sendAsync(
                java.net.http.HttpRequest.newBuilder(
                        f.uri("/_cluster/health?wait_for_nodes=2&timeout=1s"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()));
      }
      JsonNode meanwhile = ok(f.send("POST", "/product/_search", "{\"size\":1}"));
      assertEquals(0, meanwhile.path("hits").path("total").path("value").asInt());
      for (var w : waits) {
        assertEquals(408, w.get().statusCode(), w.get().body());
      }
    }
  }

  @Test
  void badParameterValuesAre400NamingTheValue() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      assertBadRequest(
          f.send("GET", "/_cluster/health?wait_for_status=purple", (String) null), "purple");
      assertBadRequest(f.send("GET", "/_cluster/health?timeout=soon", (String) null), "soon");
      assertBadRequest(f.send("GET", "/_cluster/health?timeout=11m", (String) null), "11m", "300s");
      assertBadRequest(f.send("GET", "/_cluster/health?level=nodes", (String) null), "nodes");
      assertBadRequest(
          f.send("GET", "/_cluster/health?wait_for_nodes=%3E%3Dtwo", (String) null), ">=two");
      assertBadRequest(
          f.send("GET", "/_cluster/health?wait_for_active_shards=some", (String) null), "some");
      assertBadRequest(
          f.send("GET", "/_cluster/health?wait_for_no_relocating_shards=yes", (String) null),
          "yes");
      assertBadRequest(
          f.send("GET", "/_cluster/health?wait_for_satus=green", (String) null),
          "unrecognized parameter: [wait_for_satus]");
      assertBadRequest(f.send("GET", "/_cluster/healthz", (String) null), "no handler");
      assertEquals(405, f.send("POST", "/_cluster/health", "{}").status());

      // A long value is quoted only in part.
      String longValue = "x".repeat(5000);
      ServerFixture.Response r =
          f.send("GET", "/_cluster/health?wait_for_status=" + longValue, (String) null);
      assertBadRequest(r, "more characters");
      assertTrue(r.body().length() < 2000, r.body().length() + " bytes of error");
    }
  }

  @Test
  void aStoreThatStoppedAfterAFailureIsRed() throws Exception {
    Path dir = Files.createTempDirectory("health-red");
    FaultyFiles faults = new FaultyFiles();
    var index =
        SegmentedFaultAccess.open(dir, new Schema(ServerFixture.DIMS), faults, new AtomicBoolean());
    List<Document> docs =
        new SyntheticCorpus(TestSeeds.seed("ClusterHealthTest.red"), ServerFixture.DIMS)
            .documents(2);
    try (ServerFixture f = ServerFixture.serve(dir, index)) {
      assertEquals(
          "green", ok(f.send("GET", "/_cluster/health", (String) null)).path("status").asText());
      faults.writeBudget.set(0); // the disk is full: the write-ahead log stops the store
      String doc = Json.MAPPER.writeValueAsString(ServerFixture.source(docs.get(0)));
      assertEquals(503, f.send("PUT", "/product/_doc/" + docs.get(0).id(), doc).status());
      faults.writeBudget.set(Long.MAX_VALUE);

      JsonNode h = ok(f.send("GET", "/_cluster/health?level=shards", (String) null));
      assertEquals("red", h.path("status").asText());
      assertEquals(0, h.path("active_primary_shards").asInt());
      assertEquals(1, h.path("unassigned_primary_shards").asInt());
      assertEquals(0.0, h.path("active_shards_percent_as_number").asDouble());
      assertFalse(
          h.path("indices")
              .path("product")
              .path("shards")
              .path("0")
              .path("primary_active")
              .asBoolean());
      ServerFixture.Response yellow =
          f.send("GET", "/_cluster/health?wait_for_status=yellow&timeout=100ms", (String) null);
      assertEquals(408, yellow.status(), yellow.body());
      assertEquals("red", yellow.json().path("status").asText());
      // The index stats say the same.
      assertEquals(
          "red",
          ok(f.send("GET", "/_stats", (String) null))
              .path("indices")
              .path("product")
              .path("health")
              .asText());
    }
  }
}
