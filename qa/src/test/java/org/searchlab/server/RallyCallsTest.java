package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The cluster-level requests Rally 2.13 makes around a {@code benchmark-only} race, sent as its
 * Elasticsearch 8 client and aiohttp send them (vendor media types, {@code
 * application/octet-stream} on body-less POSTs), each checked for the fields Rally reads (its
 * {@code telemetry.py}, {@code driver/runner.py}, {@code client/factory.py}): an HTTP error or a
 * missing field here aborts a race.
 */
class RallyCallsTest {
  private static final String[] ACCEPT = {
    "Accept", "application/vnd.elasticsearch+json; compatible-with=8"
  };
  private static final String[] BODY = {
    "Accept",
    "application/vnd.elasticsearch+json; compatible-with=8",
    "Content-Type",
    "application/vnd.elasticsearch+json; compatible-with=8"
  };
  private static final String[] EMPTY_POST = {
    "Accept",
    "application/vnd.elasticsearch+json; compatible-with=8",
    "Content-Type",
    "application/octet-stream"
  };

  private static JsonNode get(ServerFixture f, String path) throws Exception {
    ServerFixture.Response r = f.send("GET", path, (String) null, ACCEPT);
    assertEquals(200, r.status(), path + ": " + r.body());
    assertEquals("Elasticsearch", r.header("X-Elastic-Product"), path);
    return r.json();
  }

  private static JsonNode send(ServerFixture f, String method, String path, String body)
      throws Exception {
    ServerFixture.Response r =
        body == null
            ? f.send(method, path, new byte[0], EMPTY_POST)
            : f.send(method, path, body, BODY);
    assertEquals(200, r.status(), path + ": " + r.body());
    return r.json();
  }

  private static JsonNode theNode(JsonNode body) {
    assertEquals(1, body.path("nodes").size(), body.toString());
    JsonNode n = body.path("nodes").elements().next();
    assertTrue(n.path("name").isTextual(), body.toString());
    return n;
  }

  @Test
  void aBenchmarkOnlyRaceFindsWhatItReads() throws Exception {
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("RallyCallsTest"), ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.start(TestStore.SEGMENTED)) {
      // client/factory.py wait_for_rest_layer; driver.py cluster info.
      assertTrue(get(f, "/").path("version").path("number").asText().startsWith("8."));
      JsonNode health = get(f, "/_cluster/health?wait_for_nodes=%3E%3D1");
      assertTrue(health.has("status") && health.has("relocating_shards"), health.toString());

      // Telemetry at the start: ExternalEnvironmentInfo, JvmStatsSummary, IngestPipelineStats.
      JsonNode all = theNode(get(f, "/_nodes/stats/_all"));
      assertTrue(all.has("host"));
      JsonNode info = theNode(get(f, "/_nodes/_all"));
      for (String[] path :
          new String[][] {
            {"os", "name"},
            {"os", "version"},
            {"os", "available_processors"},
            {"jvm", "vm_vendor"},
            {"jvm", "version"}
          }) {
        assertTrue(info.path(path[0]).has(path[1]), String.join(".", path) + " in " + info);
      }
      assertTrue(info.path("plugins").isArray() && info.path("attributes").isObject());
      JsonNode hash = get(f, "/_nodes?filter_path=**.build_hash");
      assertEquals(
          "searchlab",
          hash.path("nodes").elements().next().path("build_hash").asText(),
          hash.toString());
      JsonNode jvm = theNode(get(f, "/_nodes/stats/jvm")).path("jvm");
      assertTrue(jvm.path("gc").path("collectors").size() > 0, jvm.toString());
      jvm.path("gc")
          .path("collectors")
          .forEach(
              c -> {
                assertTrue(c.path("collection_time_in_millis").isNumber(), c.toString());
                assertTrue(c.path("collection_count").isNumber(), c.toString());
              });
      jvm.path("mem")
          .path("pools")
          .forEach(p -> assertTrue(p.path("peak_used_in_bytes").isNumber(), p.toString()));
      JsonNode ingest = get(f, "/_nodes/stats/ingest");
      assertEquals("searchlab", ingest.path("cluster_name").asText());
      JsonNode in = theNode(ingest).path("ingest");
      assertTrue(in.path("total").isObject() && in.path("pipelines").isObject(), in.toString());
      // IndexStats at the start.
      assertTrue(get(f, "/_stats/_all?level=shards").path("_all").has("primaries"));

      // A delete-index step reads and writes the transient setting around the delete.
      JsonNode settings = get(f, "/_cluster/settings?flat_settings=true");
      assertTrue(settings.path("transient").isObject(), settings.toString());
      send(
          f,
          "PUT",
          "/_cluster/settings",
          "{\"transient\":{\"action.destructive_requires_name\":false}}");
      assertEquals(404, f.send("HEAD", "/rally-scratch", (String) null, ACCEPT).status());
      send(
          f,
          "PUT",
          "/_cluster/settings",
          "{\"transient\":{\"action.destructive_requires_name\":null}}");

      f.load(corpus, 60, 20);
      // refresh, and force-merge in polling mode (Elasticsearch ≥ 8.1: a task).
      send(f, "POST", "/product/_refresh", null);
      String task =
          send(f, "POST", "/product/_forcemerge?max_num_segments=1&wait_for_completion=false", null)
              .path("task")
              .asText();
      JsonNode t = get(f, "/_tasks/" + task);
      for (int i = 0; i < 600 && !t.path("completed").asBoolean(); i++) {
        Thread.sleep(50);
        t = get(f, "/_tasks/" + task);
      }
      assertTrue(t.path("completed").asBoolean(), t.toString());
      assertTrue(get(f, "/_tasks?actions=indices%3Aadmin%2Fforcemerge").path("nodes").isObject());
      // index-stats and node-stats operations.
      assertTrue(get(f, "/_all/_stats/_all").path("_all").has("primaries"));

      // MasterNodeStats samples the master and its os.
      String master = get(f, "/_cluster/state/master_node").path("master_node").asText();
      assertTrue(theNode(get(f, "/_nodes/" + master + "/os")).has("os"));

      // At the end: MlBucketProcessingTime searches a pattern that matches no index.
      JsonNode ml =
          send(
              f,
              "POST",
              "/.ml-anomalies-*/_search",
              "{\"size\":0,\"query\":{\"bool\":{\"must\":[{\"term\":{\"result_type\":\"bucket\"}}]}},"
                  + "\"aggs\":{\"jobs\":{\"terms\":{\"field\":\"job_id\"}}}}");
      assertEquals(0, ml.path("hits").path("total").path("value").asInt());
      // IndexStats at the end.
      JsonNode end = get(f, "/_stats/_all?level=shards");
      JsonNode p = end.path("_all").path("primaries");
      for (Map.Entry<String, String> e :
          Map.of("segments", "count", "store", "size_in_bytes", "merges", "total").entrySet()) {
        assertTrue(p.path(e.getKey()).has(e.getValue()), e + " in " + p);
      }
      assertTrue(
          end.path("indices")
              .path("product")
              .path("shards")
              .path("0")
              .path(0)
              .path("routing")
              .path("primary")
              .asBoolean(),
          end.toString());
      assertEquals(60, p.path("docs").path("count").asInt());
    }
  }
}
