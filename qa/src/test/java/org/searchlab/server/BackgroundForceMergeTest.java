package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * {@code POST /product/_forcemerge?wait_for_completion=false} and the task API: the merge answers a
 * task id at once and runs on the write executor; {@code GET /_tasks/{id}} reports it running, then
 * completed with the response a synchronous merge gives; at most one merge per index waits for a
 * thread (a repeat with the same parameters gets its id, other parameters 429); a wait for the task
 * that runs out is 429 {@code timeout_exception}. The store's {@code forceMerge} is held on a latch
 * so that "running" is seen for certain.
 */
class BackgroundForceMergeTest {
  /**
   * A store whose force-merges wait until {@link #release} opens: a proxy over a real store, so
   * that it delegates every method the contract has, now or later.
   */
  static final class HeldMerges {
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch entered = new CountDownLatch(1);
    final AtomicInteger merges = new AtomicInteger();
    final AtomicInteger flushes = new AtomicInteger();
    final SearchIndex index;

    HeldMerges(SearchIndex in) {
      this.index =
          (SearchIndex)
              Proxy.newProxyInstance(
                  SearchIndex.class.getClassLoader(),
                  new Class<?>[] {SearchIndex.class},
                  (proxy, method, args) -> {
                    switch (method.getName()) {
                      case "forceMerge" -> {
                        entered.countDown();
                        if (!release.await(60, TimeUnit.SECONDS)) {
                          throw new IOException("never released");
                        }
                        merges.incrementAndGet();
                      }
                      case "flush" -> flushes.incrementAndGet();
                      case "close" -> release.countDown();
                      default -> {}
                    }
                    try {
                      return method.invoke(in, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
    }
  }

  private static JsonNode ok(ServerFixture.Response r) {
    assertEquals(200, r.status(), r.body());
    return r.json();
  }

  private static JsonNode awaitCompleted(ServerFixture f, String task) throws Exception {
    JsonNode t =
        ok(
            f.send(
                "GET", "/_tasks/" + task + "?wait_for_completion=true&timeout=60s", (String) null));
    assertTrue(t.path("completed").asBoolean(), t.toString());
    return t;
  }

  @Test
  void aBackgroundMergeIsATaskThatRunsThenCompletes() throws Exception {
    Path dir = Files.createTempDirectory("bg-merge");
    HeldMerges held = new HeldMerges(TestStore.SEGMENTED.open(dir, new Schema(ServerFixture.DIMS)));
    SearchIndex index = held.index;
    // One write thread, so that a second merge waits in the queue behind the first.
    ServerConfig config = ServerConfig.builder().port(0).writeThreads(1).build();
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("BackgroundForceMergeTest"), ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.serve(dir, index, config)) {
      List<Document> docs = corpus.documents(90);
      for (int from = 0; from < docs.size(); from += 30) {
        StringBuilder bulk = new StringBuilder();
        for (Document d : docs.subList(from, from + 30)) {
          bulk.append("{\"index\":{\"_id\":\"").append(d.id()).append("\"}}\n");
          bulk.append(Json.MAPPER.writeValueAsString(ServerFixture.source(d))).append('\n');
        }
        f.bulkAndRefresh(bulk.toString()); // a refresh each: three segments
      }
      assertTrue(index.stats().segmentCount() > 1, "segments to merge");
      String nodeId =
          ok(f.send("GET", "/_cluster/state/master_node", (String) null))
              .path("master_node")
              .asText();

      JsonNode started =
          ok(
              f.send(
                  "POST",
                  "/product/_forcemerge?wait_for_completion=false&max_num_segments=1",
                  (String) null));
      String task = started.path("task").asText();
      assertTrue(task.startsWith(nodeId + ":"), task);
      assertTrue(held.entered.await(30, TimeUnit.SECONDS), "the merge started on a write thread");

      JsonNode running = ok(f.send("GET", "/_tasks/" + task, (String) null));
      assertFalse(running.path("completed").asBoolean(), running.toString());
      JsonNode info = running.path("task");
      assertEquals(nodeId, info.path("node").asText());
      assertEquals(Long.parseLong(task.substring(task.indexOf(':') + 1)), info.path("id").asLong());
      assertEquals("indices:admin/forcemerge", info.path("action").asText());
      assertEquals(
          "Force-merge indices [product], maxSegments[1], onlyExpungeDeletes[false], flush[true]",
          info.path("description").asText());
      assertTrue(info.path("running_time_in_nanos").asLong() > 0);
      assertFalse(info.path("cancellable").asBoolean());
      assertTrue(running.path("response").isMissingNode());

      // Rally's other way to wait: list the force-merge tasks until none runs.
      JsonNode listed =
          ok(f.send("GET", "/_tasks?actions=indices:admin/forcemerge", (String) null));
      assertTrue(listed.path("nodes").path(nodeId).path("tasks").has(task), listed.toString());
      assertEquals(
          0,
          ok(f.send("GET", "/_tasks?actions=cluster:*", (String) null)).path("nodes").size(),
          "no task matches another action");
      JsonNode flat = ok(f.send("GET", "/_tasks?group_by=none", (String) null));
      assertEquals(1, flat.path("tasks").size(), flat.toString());

      // While it runs, a second merge may wait; a third like it joins the second; an unlike one is
      // 429.
      String second =
          ok(f.send(
                  "POST",
                  "/product/_forcemerge?wait_for_completion=false&max_num_segments=1",
                  (String) null))
              .path("task")
              .asText();
      assertNotEquals(task, second);
      assertEquals(
          second,
          ok(f.send("POST", "/product/_forcemerge?wait_for_completion=false", (String) null))
              .path("task")
              .asText(),
          "max_num_segments defaults to 1, so this is the same merge");
      ServerFixture.Response other =
          f.send(
              "POST",
              "/product/_forcemerge?wait_for_completion=false&max_num_segments=2",
              (String) null);
      assertEquals(429, other.status(), other.body());
      assertEquals(
          "es_rejected_execution_exception", other.json().path("error").path("type").asText());
      assertTrue(other.json().path("error").path("reason").asText().contains(second), other.body());

      // A wait that runs out before the merge ends.
      ServerFixture.Response waited =
          f.send(
              "GET", "/_tasks/" + task + "?wait_for_completion=true&timeout=100ms", (String) null);
      assertEquals(429, waited.status(), waited.body());
      assertEquals("timeout_exception", waited.json().path("error").path("type").asText());

      held.release.countDown();
      JsonNode done = awaitCompleted(f, task);
      JsonNode shards = done.path("response").path("_shards");
      assertEquals(1, shards.path("total").asInt(), done.toString());
      assertEquals(1, shards.path("successful").asInt());
      assertEquals(0, shards.path("failed").asInt());
      assertTrue(done.path("error").isMissingNode());
      long total = done.path("task").path("running_time_in_nanos").asLong();
      Thread.sleep(5);
      assertEquals(
          total,
          ok(f.send("GET", "/_tasks/" + task, (String) null))
              .path("task")
              .path("running_time_in_nanos")
              .asLong(),
          "a finished task's running time stays");
      awaitCompleted(f, second);
      assertEquals(
          2, held.merges.get(), "two merges ran: the first, and the one the others joined");
      assertTrue(held.flushes.get() >= 2, "flush=true commits after each merge");
      assertEquals(1, index.stats().segmentCount());
      assertEquals(
          0,
          ok(f.send("GET", "/_tasks?actions=indices:admin/forcemerge", (String) null))
              .path("nodes")
              .size(),
          "Rally's polling ends: no force-merge runs");
      assertEquals(
          docs.size(), ok(f.send("GET", "/product/_count", (String) null)).path("count").asInt());
      assertEquals(
          1,
          ok(f.send("GET", "/_stats/merge", (String) null))
              .path("_all")
              .path("primaries")
              .path("merges")
              .path("total")
              .asInt(),
          "the index's merge counter saw it");
    }
  }

  @Test
  void aSynchronousMergeCommitsUnlessFlushIsFalse() throws Exception {
    Path dir = Files.createTempDirectory("sync-merge");
    HeldMerges held = new HeldMerges(TestStore.SEGMENTED.open(dir, new Schema(ServerFixture.DIMS)));
    held.release.countDown();
    ServerConfig config = ServerConfig.builder().port(0).build();
    try (ServerFixture f = ServerFixture.serve(dir, held.index, config)) {
      ok(f.send("POST", "/product/_forcemerge?max_num_segments=1", (String) null));
      assertEquals(1, held.merges.get());
      assertEquals(1, held.flushes.get(), "flush=true, the default, commits after the merge");
      ok(f.send("POST", "/product/_forcemerge?max_num_segments=1&flush=false", (String) null));
      assertEquals(2, held.merges.get());
      assertEquals(1, held.flushes.get(), "flush=false leaves the merge uncommitted");
    }
  }

  @Test
  void badRequestsAndUnknownTasks() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      String nodeId =
          ok(f.send("GET", "/_cluster/state/master_node", (String) null))
              .path("master_node")
              .asText();
      String[][] cases = {
        {
          "POST",
          "/product/_forcemerge?wait_for_completion=false&max_num_segments=0",
          "400",
          "max_num_segments 0"
        },
        {"POST", "/product/_forcemerge?wait_for_completion=false&max_num_segments=x", "400", "'x'"},
        {
          "POST",
          "/product/_forcemerge?wait_for_completion=false&only_expunge_deletes=true",
          "400",
          "only_expunge_deletes"
        },
        {"POST", "/product/_forcemerge?wait_for_completion=false&flush=later", "400", "later"},
        {
          "POST",
          "/product/_forcemerge?wait_for_completion=false&mode=fast",
          "400",
          "unrecognized parameter: [mode]"
        },
        {"POST", "/nosuch/_forcemerge?wait_for_completion=false", "404", "no such index [nosuch]"},
        {"GET", "/product/_forcemerge?wait_for_completion=false", "405", "allowed: [POST]"},
        {"GET", "/_tasks/garbage", "400", "malformed task id garbage"},
        {"GET", "/_tasks/" + nodeId + ":x", "400", "malformed task id"},
        {"GET", "/_tasks/othernode:1", "404", "othernode"},
        {"GET", "/_tasks/" + nodeId + ":99999", "404", "isn't running"},
        {"GET", "/_tasks?group_by=tree", "400", "tree"},
        {"GET", "/_tasks?wait_for_completion=true", "400", "not supported"},
        {"GET", "/_tasks/" + nodeId + ":1?timeout=forever", "400", "forever"},
        {"GET", "/_tasks/a/b", "400", "no handler"},
      };
      for (String[] c : cases) {
        ServerFixture.Response r = f.send(c[0], c[1], (String) null);
        assertEquals(Integer.parseInt(c[2]), r.status(), c[1] + ": " + r.body());
        assertTrue(
            r.json().path("error").path("reason").asText().contains(c[3]), c[1] + ": " + r.body());
      }
      // Wildcards that match nothing merge nothing, successfully.
      String none =
          ok(f.send("POST", "/nosuch*/_forcemerge?wait_for_completion=false", (String) null))
              .path("task")
              .asText();
      JsonNode t = awaitCompleted(f, none);
      assertEquals(0, t.path("response").path("_shards").path("total").asInt(), t.toString());
      // Without wait_for_completion=false the merge stays synchronous, answered by the dialect.
      JsonNode sync = ok(f.send("POST", "/product/_forcemerge", (String) null));
      assertTrue(sync.path("task").isMissingNode(), sync.toString());
      assertEquals(1, sync.path("_shards").path("successful").asInt());
    }
  }
}
