package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * {@code GET [/{index}]/_stats[/{metric}]} in Elasticsearch's shape with values that follow the
 * index (documents, deletes, searches, the store's size on disk, its log), index expressions as
 * Elasticsearch resolves them, and a search over an expression that matches no index: 200 with
 * nothing, as Rally's end-of-race {@code POST /.ml-anomalies-*}{@code /_search} needs.
 */
class IndexStatsApiTest {
  private static JsonNode ok(ServerFixture.Response r) {
    assertEquals(200, r.status(), r.body());
    assertEquals("Elasticsearch", r.header("X-Elastic-Product"));
    return r.json();
  }

  private static JsonNode primaries(JsonNode stats) {
    return stats.path("indices").path("product").path("primaries");
  }

  /**
   * The stats once {@code query_total} reached {@code atLeast}: a request is counted when its
   * answer is written, a moment after the client may have read it.
   */
  private static JsonNode afterQueries(ServerFixture f, long atLeast) throws Exception {
    JsonNode s = null;
    for (int i = 0; i < 200; i++) {
      s = ok(f.send("GET", "/product/_stats", (String) null));
      if (primaries(s).path("search").path("query_total").asLong() >= atLeast) {
        return s;
      }
      Thread.sleep(10);
    }
    return s;
  }

  @ParameterizedTest
  @EnumSource(
      value = TestStore.class,
      names = {"SEGMENTED", "MUTABLE"})
  void statsFollowTheIndex(TestStore store) throws Exception {
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("IndexStatsApiTest." + store), ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.start(store)) {
      JsonNode empty = ok(f.send("GET", "/_stats", (String) null));
      assertEquals(0, primaries(empty).path("docs").path("count").asLong(), empty.toString());
      assertEquals(0, primaries(empty).path("indexing").path("index_total").asLong());

      List<Document> docs = f.load(corpus, 200, 100);
      ServerFixture.Response deleted =
          f.send("DELETE", "/product/_doc/" + docs.get(0).id(), (String) null);
      assertEquals("deleted", deleted.json().path("result").asText(), deleted.body());
      assertEquals(404, f.send("DELETE", "/product/_doc/nosuch", (String) null).status());
      ok(f.send("POST", "/product/_refresh", (String) null));
      for (int i = 0; i < 3; i++) {
        ok(f.send("POST", "/product/_search", "{\"query\":{\"match_all\":{}},\"size\":1}"));
      }
      ok(f.send("GET", "/product/_count", (String) null));

      JsonNode s = afterQueries(f, 4);
      assertEquals(1, s.path("_shards").path("total").asInt());
      assertEquals(1, s.path("_shards").path("successful").asInt());
      JsonNode all = s.path("_all").path("primaries");
      assertEquals(all, s.path("_all").path("total"), "no replica is assigned: total = primaries");
      JsonNode p = primaries(s);
      assertEquals(all, p, "one index: _all is the index");
      assertEquals("green", s.path("indices").path("product").path("health").asText());
      assertEquals("open", s.path("indices").path("product").path("status").asText());
      assertEquals(docs.size() - 1, p.path("docs").path("count").asLong(), p.toString());
      assertEquals(docs.size(), p.path("indexing").path("index_total").asLong());
      assertEquals(
          2, p.path("indexing").path("delete_total").asLong(), "a missing id is a delete too");
      assertEquals(0, p.path("indexing").path("index_failed").asLong());
      assertEquals(4, p.path("search").path("query_total").asLong(), "three searches and a count");
      assertTrue(p.path("store").path("size_in_bytes").asLong() > 0, p.toString());
      assertEquals(1, p.path("shard_stats").path("total_count").asInt());
      assertTrue(p.path("segments").path("count").asInt() >= 1);
      assertTrue(p.path("translog").path("size_in_bytes").asLong() > 0);
      assertTrue(p.path("translog").path("uncommitted_operations").asLong() > 0);
      assertTrue(p.path("refresh").has("total"), "both stores report refreshes");
      assertEquals(store == TestStore.SEGMENTED, p.has("merges"), "only Lucene's store merges");
      assertFalse(p.path("indexing").has("index_time_in_millis"), "not measured, not reported");

      // A flush commits: the log's uncommitted operations go to zero.
      ok(f.send("POST", "/product/_flush", (String) null));
      JsonNode flushed = ok(f.send("GET", "/_stats/translog", (String) null));
      assertEquals(
          0,
          flushed
              .path("_all")
              .path("primaries")
              .path("translog")
              .path("uncommitted_operations")
              .asLong(),
          flushed.toString());
    }
  }

  @Test
  void metricsLevelsAndIndexExpressions() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      JsonNode docs = ok(f.send("GET", "/product/_stats/docs,store", (String) null));
      assertEquals(2, primaries(docs).size(), docs.toString());
      assertTrue(primaries(docs).has("docs") && primaries(docs).has("store"));
      JsonNode merge = ok(f.send("GET", "/_stats/merge", (String) null));
      assertEquals(0, primaries(merge).size(), "the exact store keeps no merge counter: " + merge);
      for (String path :
          List.of("/_all/_stats", "/prod*/_stats", "/*/_stats", "/nosuch*,product/_stats")) {
        assertTrue(ok(f.send("GET", path, (String) null)).path("indices").has("product"), path);
      }
      JsonNode cluster = ok(f.send("GET", "/_stats?level=cluster", (String) null));
      assertTrue(cluster.path("indices").isMissingNode() && cluster.has("_all"));
      JsonNode shards = ok(f.send("GET", "/_stats/_all?level=shards", (String) null));
      JsonNode shard = shards.path("indices").path("product").path("shards").path("0").path(0);
      assertTrue(shard.path("routing").path("primary").asBoolean(), shards.toString());
      assertEquals("STARTED", shard.path("routing").path("state").asText());
      assertTrue(shard.has("docs"));

      JsonNode none = ok(f.send("GET", "/nosuch*/_stats", (String) null));
      assertEquals(0, none.path("indices").size());
      assertEquals(0, none.path("_shards").path("total").asInt());
      assertEquals(0, none.path("_all").path("primaries").path("docs").path("count").asInt());

      String[][] refused = {
        {"/nosuch/_stats", "404", "index_not_found_exception", "no such index [nosuch]"},
        {"/nosuch,product/_stats", "404", "index_not_found_exception", "nosuch"},
        {"/nosuch*/_stats?allow_no_indices=false", "404", "index_not_found_exception", "nosuch*"},
        {"/_stats/docs,bogus", "400", "illegal_argument_exception", "unrecognized metric: [bogus]"},
        {"/_stats?level=node", "400", "illegal_argument_exception", "node"},
        {"/_stats?expand_wildcards=some", "400", "illegal_argument_exception", "some"},
        {"/_stats?human=true&colour=blue", "400", "illegal_argument_exception", "[colour]"},
        {"/_stats/docs/extra", "400", "illegal_argument_exception", "no handler"},
      };
      for (String[] c : refused) {
        ServerFixture.Response r = f.send("GET", c[0], (String) null);
        assertEquals(Integer.parseInt(c[1]), r.status(), c[0] + ": " + r.body());
        assertEquals(c[2], r.json().path("error").path("type").asText(), c[0]);
        assertTrue(
            r.json().path("error").path("reason").asText().contains(c[3]), c[0] + ": " + r.body());
      }
      assertTrue(
          ok(f.send("GET", "/nosuch,product/_stats?ignore_unavailable=true", (String) null))
              .path("indices")
              .has("product"));
    }
  }

  @Test
  void aSearchOverNoIndexIsEmptyNotMissing() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      // Rally's MlBucketProcessingTime at the end of every race.
      String rally =
          "{\"size\":0,\"query\":{\"bool\":{\"must\":[{\"term\":{\"result_type\":\"bucket\"}}]}},"
              + "\"aggs\":{\"jobs\":{\"terms\":{\"field\":\"job_id\"},\"aggs\":{\"min_pt\":{\"min\":"
              + "{\"field\":\"processing_time_ms\"}}}}}}";
      JsonNode s = ok(f.send("POST", "/.ml-anomalies-*/_search", rally));
      assertEquals(0, s.path("hits").path("total").path("value").asInt(), s.toString());
      assertEquals("eq", s.path("hits").path("total").path("relation").asText());
      assertEquals(0, s.path("hits").path("hits").size());
      assertEquals(0, s.path("_shards").path("total").asInt());
      assertFalse(s.path("timed_out").asBoolean());
      assertTrue(s.path("aggregations").isMissingNode(), "no shard, no aggregation");
      assertEquals(
          0, ok(f.send("GET", "/nosuch*,other*/_count", (String) null)).path("count").asInt());
      assertEquals(
          0,
          ok(f.send("GET", "/.ml-anomalies-*/_search", (String) null))
              .path("hits")
              .path("hits")
              .size());

      String[][] refused = {
        {"POST", "/nosuch/_search", "404", "index_not_found_exception"},
        {"POST", "/nosuch,nomatch*/_search", "404", "index_not_found_exception"},
        {
          "POST",
          "/.ml-anomalies-*/_search?allow_no_indices=false",
          "404",
          "index_not_found_exception"
        },
        {"PUT", "/.ml-anomalies-*/_search", "405", "method_not_allowed"},
      };
      for (String[] c : refused) {
        ServerFixture.Response r = f.send(c[0], c[1], "{}");
        assertEquals(Integer.parseInt(c[2]), r.status(), c[1] + ": " + r.body());
        assertEquals(c[3], r.json().path("error").path("type").asText(), c[1]);
      }
      ServerFixture.Response notJson = f.send("POST", "/.ml-anomalies-*/_search", "{\"size\":");
      assertEquals(400, notJson.status(), notJson.body());
      ServerFixture.Response array = f.send("POST", "/.ml-anomalies-*/_search", "[1]");
      assertEquals(400, array.status(), array.body());
    }
  }
}
