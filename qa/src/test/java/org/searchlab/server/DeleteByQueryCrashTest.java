package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.ForkedJvm;
import org.searchlab.testing.TestSeeds;

/**
 * An acknowledged {@code _delete_by_query} survives SIGKILL: a child server with an index of each
 * store kind is fed, answers a {@code _delete_by_query}, and is killed at once (no flush, no
 * close); a server reopened over the same folder must have none of the deleted documents and every
 * other one, with its source, on both stores.
 */
class DeleteByQueryCrashTest {
  @TempDir Path tmp;

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private JsonNode ok(int port, String method, String path, String body) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.ofString(body == null ? "" : body))
            .header(
                "Content-Type",
                path.contains("_bulk") ? "application/x-ndjson" : "application/json");
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertTrue(r.statusCode() == 200, method + " " + path + ": " + r.statusCode() + " " + r.body());
    return Json.MAPPER.readTree(r.body());
  }

  @Tag("sigkill")
  @Test
  void acknowledgedDeletesSurviveSigkill() throws Exception {
    long seed = TestSeeds.seed("DeleteByQueryCrashTest");
    List<EsBatchApisTest.Doc> docs = EsBatchApisTest.docs(seed);
    List<String> kinds = List.of("segmented", "mutable");
    Path data = tmp.resolve("data");
    try (ForkedJvm child = ForkedJvm.start(ByQueryCrashChild.class, data.toString())) {
      String line = child.readLine(); // the server's log goes to stdout too
      while (line != null && !line.startsWith("port ")) {
        line = child.readLine();
      }
      assertNotNull(line, "the child server ended before it served");
      int port = Integer.parseInt(line.substring("port ".length()).trim());
      for (String kind : kinds) {
        String index = "kill-" + kind;
        ok(port, "PUT", "/" + index, EsBatchApisTest.indexBody(kind));
        StringBuilder bulk = new StringBuilder();
        for (EsBatchApisTest.Doc d : docs) {
          bulk.append("{\"index\":{\"_id\":\"").append(d.id()).append("\"}}\n");
          bulk.append(d.source()).append('\n');
        }
        JsonNode fed = ok(port, "POST", "/" + index + "/_bulk?refresh=true", bulk.toString());
        assertTrue(!fed.get("errors").asBoolean(), fed.toString());
        // group g1 and every n below 30, in batches of 16
        JsonNode dbq =
            ok(
                port,
                "POST",
                "/" + index + "/_delete_by_query?scroll_size=16",
                "{\"query\":{\"bool\":{\"should\":[{\"term\":{\"group\":\"g1\"}},"
                    + "{\"range\":{\"n\":{\"lt\":30}}}]}}}");
        assertEquals(deleted(docs).size(), dbq.get("deleted").asInt(), kind + " " + dbq);
      }
      child.kill(); // SIGKILL right after the answers: nothing flushed, nothing closed
    }
    try (SearchServer s = EsBatchApisTest.bothKinds(data)) {
      for (String kind : kinds) {
        String index = "kill-" + kind;
        String w = kind + " seed " + seed;
        StringBuilder ids = new StringBuilder("{\"ids\":[");
        for (EsBatchApisTest.Doc d : docs) {
          ids.append(ids.charAt(ids.length() - 1) == '[' ? "" : ",")
              .append('"')
              .append(d.id())
              .append('"');
        }
        JsonNode got = ok(s.port(), "POST", "/" + index + "/_mget", ids.append("]}").toString());
        List<String> gone = deleted(docs);
        for (int i = 0; i < docs.size(); i++) {
          EsBatchApisTest.Doc d = docs.get(i);
          JsonNode item = got.at("/docs/" + i);
          if (gone.contains(d.id())) {
            assertEquals(
                false, item.get("found").asBoolean(), w + ": deleted " + d.id() + " is back");
          } else {
            assertEquals(d.source(), item.get("_source"), w + ": " + d.id() + " kept");
          }
        }
        ok(s.port(), "POST", "/" + index + "/_refresh", null);
        assertEquals(
            docs.size() - gone.size(),
            ok(s.port(), "GET", "/" + index + "/_count", null).get("count").asInt(),
            w);
      }
    }
  }

  private static List<String> deleted(List<EsBatchApisTest.Doc> docs) {
    return docs.stream()
        .filter(d -> d.group().equals("g1") || d.n() < 30)
        .map(EsBatchApisTest.Doc::id)
        .toList();
  }
}
