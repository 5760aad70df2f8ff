package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.PythonEnv;
import org.searchlab.testing.PythonRun;
import org.searchlab.testing.TestSeeds;

/**
 * The official Python client ({@code elasticsearch} 8.x, pinned in {@code qa/python/elasticsearch})
 * against an index of each store kind: {@code helpers.bulk}, {@code mget}, {@code count}, {@code
 * msearch} with a failing item, {@code update_by_query} and {@code delete_by_query}, one script run
 * per store ({@code batch_run.py}). The answers the client returns are checked against what the
 * seeded documents imply.
 */
class EsPythonClientTest {
  private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(3);

  private static PythonEnv python;

  @TempDir Path tmp;

  @BeforeAll
  static void environment() {
    python = PythonEnv.forTool("elasticsearch");
  }

  @Test
  void officialPythonClientOnBothStores() throws Exception {
    long seed = TestSeeds.seed("EsPythonClientTest");
    List<EsBatchApisTest.Doc> docs = EsBatchApisTest.docs(seed);
    ArrayNode json = Json.MAPPER.createArrayNode();
    for (EsBatchApisTest.Doc d : docs) {
      json.addObject().put("_id", d.id()).set("_source", d.source());
    }
    Path docsFile = tmp.resolve("docs.json");
    Files.writeString(docsFile, json.toString());
    Path script = PythonEnv.projectRoot().resolve("qa/python/elasticsearch/batch_run.py");
    try (SearchServer s = EsBatchApisTest.bothKinds(tmp.resolve("data"))) {
      String url = "http://127.0.0.1:" + s.port();
      for (String kind : List.of("segmented", "mutable")) {
        String w = kind + " seed " + seed;
        PythonRun run =
            python.run(
                SCRIPT_TIMEOUT, script.toString(), url, "py-" + kind, kind, docsFile.toString());
        run.requireSuccess();
        check(Json.MAPPER.readTree(run.stdout()), docs, w);
        assertEquals(
            kind,
            EsBatchApisTest.ok(s, "GET", "/py-" + kind + "/_settings", null)
                .at("/py-" + kind + "/settings/index/store")
                .asText(),
            w);
      }
    }
  }

  private static void check(JsonNode out, List<EsBatchApisTest.Doc> docs, String w) {
    assertEquals(docs.size(), out.at("/bulk/ok").asInt(), w + " " + out.get("bulk"));
    assertTrue(out.at("/bulk/errors").isEmpty(), w);

    JsonNode ids = out.get("mget_ids");
    assertEquals(docs.get(3).source(), ids.at("/0/source"), w);
    assertEquals(docs.get(4).source(), ids.at("/1/source"), w);
    assertEquals(false, ids.at("/2/found").asBoolean(true), w);
    JsonNode byDocs = out.get("mget_docs");
    ObjectNode metaN = Json.MAPPER.createObjectNode();
    metaN.putObject("meta").put("n", docs.get(7).n());
    assertEquals(metaN, byDocs.at("/0/source"), w);
    assertEquals("index_not_found_exception", byDocs.at("/1/error").asText(), w);

    Map<String, Long> perGroup = new TreeMap<>();
    docs.forEach(d -> perGroup.merge(d.group(), 1L, Long::sum));
    assertEquals(perGroup.getOrDefault("g1", 0L), out.get("count_g1").asLong(), w);
    List<String> g1 = new ArrayList<>();
    docs.stream().filter(d -> d.group().equals("g1")).forEach(d -> g1.add(d.id()));
    g1.sort(null);
    List<String> got = new ArrayList<>();
    out.at("/msearch/g1_ids").forEach(x -> got.add(x.asText()));
    assertEquals(g1, got, w);
    assertEquals(200, out.at("/msearch/g1_status").asInt(), w);
    assertEquals(404, out.at("/msearch/missing_status").asInt(), w);
    assertEquals("index_not_found_exception", out.at("/msearch/missing_type").asText(), w);
    Map<String, Long> groups = new TreeMap<>();
    out.at("/msearch/groups")
        .fields()
        .forEachRemaining(e -> groups.put(e.getKey(), e.getValue().asLong()));
    assertEquals(perGroup, groups, w);

    long g2 = perGroup.getOrDefault("g2", 0L);
    assertEquals(g2, out.at("/ubq/updated").asLong(), w);
    assertEquals(g2, out.at("/ubq/total").asLong(), w);
    assertEquals(0, out.at("/ubq/conflicts").asLong(), w);
    assertEquals(g2, out.get("count_flag").asLong(), w);

    assertEquals(40, out.at("/dbq/deleted").asLong(), w);
    assertEquals(40, out.at("/dbq/total").asLong(), w);
    assertEquals(5, out.at("/dbq/batches").asLong(), w + ": 40 in batches of 9");
    assertTrue(out.at("/dbq/failures").isEmpty(), w);
    assertEquals(docs.size() - 40, out.get("count_after").asLong(), w);
  }
}
