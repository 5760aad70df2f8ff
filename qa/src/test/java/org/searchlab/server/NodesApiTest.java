package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * {@code GET /_nodes} and {@code GET /_nodes/stats}: one node with a stable id, the JVM's own
 * figures read from its MXBeans (the server runs in this test's JVM, so they can be checked against
 * it), the feed counters under {@code ingest}, the index under {@code indices}, node filters and
 * metric lists as Elasticsearch reads them, and {@code filter_path}.
 */
class NodesApiTest {
  private static JsonNode ok(ServerFixture.Response r) {
    assertEquals(200, r.status(), r.body());
    assertEquals("Elasticsearch", r.header("X-Elastic-Product"));
    return r.json();
  }

  /** The one node of a nodes answer, checking the envelope. */
  private static JsonNode only(JsonNode body) {
    assertEquals(1, body.path("_nodes").path("total").asInt(), body.toString());
    assertEquals(1, body.path("_nodes").path("successful").asInt());
    assertEquals("searchlab", body.path("cluster_name").asText());
    assertEquals(1, body.path("nodes").size(), body.toString());
    return body.path("nodes").elements().next();
  }

  private static long gcCount(JsonNode jvm) {
    long n = 0;
    for (JsonNode c : jvm.path("gc").path("collectors")) {
      assertTrue(c.path("collection_count").asLong() >= 0, c.toString());
      assertTrue(c.path("collection_time_in_millis").asLong() >= 0, c.toString());
      n += c.path("collection_count").asLong();
    }
    return n;
  }

  @Test
  void nodeInfoDescribesThisJvmAndServer() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.SEGMENTED)) {
      JsonNode body = ok(f.send("GET", "/_nodes", (String) null));
      String id = body.path("nodes").fieldNames().next();
      assertTrue(id.matches("[A-Za-z0-9_-]{22}"), id);
      JsonNode n = only(body);
      assertEquals("searchlab", n.path("name").asText());
      assertEquals("8.15.2", n.path("version").asText());
      assertEquals("searchlab", n.path("build_hash").asText());
      assertEquals("127.0.0.1", n.path("ip").asText());
      assertTrue(n.path("roles").toString().contains("\"data\""), n.path("roles").toString());
      JsonNode jvm = n.path("jvm");
      assertEquals(System.getProperty("java.version"), jvm.path("version").asText());
      assertEquals(System.getProperty("java.vm.vendor"), jvm.path("vm_vendor").asText());
      assertEquals(ProcessHandle.current().pid(), jvm.path("pid").asLong());
      assertEquals(
          Runtime.getRuntime().maxMemory(), jvm.path("mem").path("heap_max_in_bytes").asLong());
      assertEquals(
          java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime(),
          jvm.path("start_time_in_millis").asLong());
      assertTrue(jvm.path("gc_collectors").size() > 0);
      assertEquals(
          Runtime.getRuntime().availableProcessors(),
          n.path("os").path("available_processors").asInt());
      assertEquals(System.getProperty("os.arch"), n.path("os").path("arch").asText());
      assertEquals(ProcessHandle.current().pid(), n.path("process").path("id").asLong());
      assertEquals("127.0.0.1:" + f.port(), n.path("http").path("publish_address").asText());
      assertEquals(
          ServerConfig.DEFAULT_MAX_CONTENT_LENGTH,
          n.path("http").path("max_content_length_in_bytes").asInt());
      JsonNode settings = n.path("settings");
      assertEquals("searchlab", settings.path("cluster").path("name").asText());
      assertEquals(f.dir.toAbsolutePath().toString(), settings.path("path").path("data").asText());
      assertEquals(
          Integer.toString(ServerConfig.DEFAULT.searchThreads()),
          settings.path("thread_pool").path("search").path("size").asText());
      assertEquals(0, n.path("plugins").size());
      assertEquals(0, n.path("ingest").path("processors").size());

      // The id is kept in the data directory.
      assertEquals(
          id, java.nio.file.Files.readString(f.dir.resolve("_state").resolve("node.id")).trim());

      // Filters and metrics as Elasticsearch reads /_nodes/{x} and /_nodes/{x}/{y}.
      for (String path :
          List.of(
              "/_nodes/_all",
              "/_nodes/_local",
              "/_nodes/_master",
              "/_nodes/" + id,
              "/_nodes/searchlab",
              "/_nodes/search*",
              "/_nodes/127.0.0.1",
              "/_nodes/data:true",
              "/_nodes/nosuch,_local")) {
        assertEquals(
            id, ok(f.send("GET", path, (String) null)).path("nodes").fieldNames().next(), path);
      }
      JsonNode jvmOnly = only(ok(f.send("GET", "/_nodes/jvm,os", (String) null)));
      assertTrue(jvmOnly.has("jvm") && jvmOnly.has("os"));
      assertFalse(jvmOnly.has("settings") || jvmOnly.has("http"), jvmOnly.toString());
      JsonNode localOs = only(ok(f.send("GET", "/_nodes/_local/os", (String) null)));
      assertTrue(localOs.has("os") && !localOs.has("jvm"));
      JsonNode none = ok(f.send("GET", "/_nodes/nosuch", (String) null));
      assertEquals(0, none.path("_nodes").path("total").asInt());
      assertEquals(0, none.path("nodes").size());
      assertEquals(0, ok(f.send("GET", "/_nodes/ingest:true", (String) null)).path("nodes").size());
      JsonNode flat = only(ok(f.send("GET", "/_nodes/settings?flat_settings=true", (String) null)));
      assertEquals("searchlab", flat.path("settings").path("cluster.name").asText());

      // What Rally asks for the build hash.
      JsonNode hash = ok(f.send("GET", "/_nodes?filter_path=**.build_hash", (String) null));
      assertEquals("{\"nodes\":{\"" + id + "\":{\"build_hash\":\"searchlab\"}}}", hash.toString());
      JsonNode without =
          ok(f.send("GET", "/_nodes?filter_path=-nodes.*.jvm,-nodes.*.os", (String) null));
      assertFalse(only(without).has("jvm"));
      assertTrue(only(without).has("process"));

      // The cluster state Rally samples: who the master is.
      JsonNode state = ok(f.send("GET", "/_cluster/state/master_node", (String) null));
      assertEquals(id, state.path("master_node").asText());
    }
  }

  @Test
  void jvmStatsAreThisJvmsAndMove() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      JsonNode first = only(ok(f.send("GET", "/_nodes/stats/jvm", (String) null)));
      assertFalse(first.has("os"), "only the metric asked for");
      JsonNode jvm = first.path("jvm");
      JsonNode mem = jvm.path("mem");
      assertTrue(mem.path("heap_used_in_bytes").asLong() > 0, mem.toString());
      assertTrue(
          mem.path("heap_committed_in_bytes").asLong() >= mem.path("heap_used_in_bytes").asLong());
      assertEquals(Runtime.getRuntime().maxMemory(), mem.path("heap_max_in_bytes").asLong());
      assertTrue(mem.path("non_heap_used_in_bytes").asLong() > 0);
      assertTrue(mem.path("pools").size() > 0, mem.toString());
      for (JsonNode pool : mem.path("pools")) {
        assertTrue(pool.path("peak_used_in_bytes").asLong() >= 0, pool.toString());
      }
      assertTrue(jvm.path("threads").path("count").asInt() > 0);
      assertTrue(jvm.path("classes").path("current_loaded_count").asLong() > 0);
      assertTrue(jvm.path("buffer_pools").has("direct"), jvm.path("buffer_pools").toString());
      long uptime = jvm.path("uptime_in_millis").asLong();
      assertTrue(uptime > 0);
      long collections = gcCount(jvm);

      System.gc(); // this JVM is the server's: a collection it must count
      Thread.sleep(20);
      JsonNode later =
          only(ok(f.send("GET", "/_nodes/_local/stats/jvm", (String) null))).path("jvm");
      assertTrue(gcCount(later) > collections, "collections: " + collections + " -> " + later);
      assertTrue(later.path("uptime_in_millis").asLong() > uptime);

      JsonNode os =
          only(ok(f.send("GET", "/_nodes/stats/os,process,fs,thread_pool", (String) null)));
      assertTrue(os.path("os").path("mem").path("total_in_bytes").asLong() > 0, os.toString());
      assertTrue(os.path("process").path("open_file_descriptors").asLong() > 0, os.toString());
      assertTrue(os.path("process").path("max_file_descriptors").asLong() > 0);
      assertTrue(os.path("process").path("cpu").path("total_in_millis").asLong() > 0);
      assertTrue(os.path("fs").path("total").path("total_in_bytes").asLong() > 0, os.toString());
      JsonNode search = os.path("thread_pool").path("search");
      assertEquals(
          ServerConfig.DEFAULT.searchThreads(), search.path("threads").asInt(), os.toString());
      assertTrue(search.path("completed").asLong() >= 1, "the jvm stats ran on a search thread");
      assertTrue(os.path("thread_pool").has("write"));
    }
  }

  @Test
  void ingestAndIndicesStatsFollowTheFeed() throws Exception {
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("NodesApiTest.ingest"), ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.start(TestStore.SEGMENTED)) {
      JsonNode before = only(ok(f.send("GET", "/_nodes/stats/ingest", (String) null)));
      assertEquals(
          0, before.path("ingest").path("total").path("count").asLong(), before.toString());
      assertEquals(0, before.path("ingest").path("pipelines").size());
      List<Document> docs = f.load(corpus, 120, 50);
      // One bad item: refused, counted as failed.
      String bad = "{\"index\":{\"_id\":\"bad\"}}\n{\"title\":\"x\",\"embedding\":[1]}\n";
      ServerFixture.Response r =
          f.send("POST", "/product/_bulk", bad, "Content-Type", "application/x-ndjson");
      assertTrue(r.json().path("errors").asBoolean(), r.body());
      JsonNode after = only(ok(f.send("GET", "/_nodes/stats/ingest,indices", (String) null)));
      JsonNode total = after.path("ingest").path("total");
      assertEquals(docs.size() + 1, total.path("count").asLong(), total.toString());
      assertEquals(1, total.path("failed").asLong());
      JsonNode indices = after.path("indices");
      assertEquals(docs.size(), indices.path("docs").path("count").asLong(), indices.toString());
      assertEquals(docs.size(), indices.path("indexing").path("index_total").asLong());
      assertEquals(1, indices.path("indexing").path("index_failed").asLong());

      JsonNode docsOnly =
          only(ok(f.send("GET", "/_nodes/stats/indices/docs?level=shards", (String) null)));
      assertFalse(docsOnly.path("indices").has("indexing"), docsOnly.toString());
      JsonNode shard = docsOnly.path("indices").path("shards").path("product").path(0).path("0");
      assertTrue(shard.path("routing").path("primary").asBoolean(), docsOnly.toString());
      assertEquals(docs.size(), shard.path("docs").path("count").asLong());
    }
  }

  @Test
  void badMetricsAndParametersAre400() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      Map<String, String> cases =
          Map.of(
              "/_nodes/stats/jvm,cpu", "unrecognized metric: [cpu]",
              "/_nodes/_local/bogus", "unrecognized metric: [bogus]",
              "/_nodes/stats/jvm/docs", "index metrics but not the indices metric",
              "/_nodes/stats/indices/docs,bogus", "unrecognized metric: [bogus]",
              "/_nodes/stats?level=cluster", "cluster",
              "/_nodes?flat_settings=2", "[2]",
              "/_nodes/stats/_all,jvm", "_all and individual metrics",
              "/_nodes?filter_path=a..b", "empty segment",
              "/_nodes/hot_threads", "no handler",
              "/_nodes/stats?verbose=true", "unrecognized parameter: [verbose]");
      for (Iterator<Map.Entry<String, String>> it = cases.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, String> c = it.next();
        ServerFixture.Response r = f.send("GET", c.getKey(), (String) null);
        assertEquals(400, r.status(), c.getKey() + ": " + r.body());
        assertEquals("illegal_argument_exception", r.json().path("error").path("type").asText());
        assertTrue(
            r.json().path("error").path("reason").asText().contains(c.getValue()),
            c.getKey() + ": " + r.body());
      }
      assertEquals(405, f.send("DELETE", "/_nodes", (String) null).status());
    }
  }
}
