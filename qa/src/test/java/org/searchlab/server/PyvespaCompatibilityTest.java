package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.testing.PythonEnv;
import org.searchlab.testing.PythonRun;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * pyvespa 1.2.9, unchanged and in its own pinned environment ({@code qa/python/pyvespa}), against a
 * real server on loopback in front of each store: {@code feed_data_point}, {@code feed_iterable}
 * (puts and {@code assign} updates, gzip bodies above 1 KiB), {@code get_data}, and {@code query}
 * with YQL and a rank profile, which asks for {@code Accept: application/cbor} only (it answered
 * 406 before the Vespa routes spoke CBOR). The script prints what pyvespa returned; each answer is
 * checked against the documents fed and against the same query sent here as JSON.
 *
 * <p>Needs {@code python3} (3.10+, with venv) and PyPI on first use; without Python it fails with
 * what to install ({@link PythonEnv}).
 */
class PyvespaCompatibilityTest {
  private static final int DOCS = 40;
  private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(5);

  private static PythonEnv pyvespa;

  @TempDir Path tmp;

  @BeforeAll
  static void environment() {
    pyvespa = PythonEnv.forTool("pyvespa");
  }

  @ParameterizedTest
  @EnumSource(
      value = TestStore.class,
      names = {"MUTABLE", "SEGMENTED"})
  void pyvespaFeedsGetsAndQueries(TestStore store) throws Exception {
    long seed = TestSeeds.seed("PyvespaCompatibilityTest." + store);
    List<Document> docs = new SyntheticCorpus(seed, ServerFixture.DIMS).documents(DOCS);
    Document updated = docs.get(1);
    Document probe = docs.get(DOCS / 2);
    String category = probe.category();
    long inCategory = docs.stream().filter(d -> category.equals(d.category())).count();

    ObjectNode plan = Json.MAPPER.createObjectNode();
    plan.put("schema", "product").put("refresh", "/_admin/refresh");
    ArrayNode feed = plan.putArray("docs");
    for (Document d : docs) {
      feed.addObject().put("id", d.id()).set("fields", vespaFields(d));
    }
    plan.putArray("updates")
        .addObject()
        .put("id", updated.id())
        .putObject("fields")
        .put(Schema.PRICE, updated.price() + 100);
    plan.putArray("get").add(updated.id()).add("no-such-doc");
    ObjectNode queries = plan.putObject("queries");
    queries
        .putObject("lexical")
        .put("yql", "select * from product where userQuery()")
        .put("query", probe.title())
        .put("ranking", "bm25")
        .put("hits", 10);
    ObjectNode vector = queries.putObject("vector");
    vector.put("yql", "select * from product where {targetHits:10}nearestNeighbor(embedding,q)");
    vector.set("input.query(q)", floats(probe.embedding()));
    vector.putObject("ranking").put("profile", "closeness");
    vector.put("hits", 5);
    ObjectNode hybrid = queries.putObject("hybrid");
    hybrid.put(
        "yql",
        "select * from product where userQuery() or"
            + " ({targetHits:10}nearestNeighbor(embedding,q))");
    hybrid.put("query", probe.title());
    hybrid.set("input.query(q)", floats(probe.embedding()));
    hybrid.put("ranking.profile", "hybrid").put("hits", 5);
    queries
        .putObject("filter")
        .put("yql", "select * from product where category contains \"" + category + "\"")
        .put("hits", DOCS);
    queries.putObject("bad_yql").put("yql", "select * from product where nonsense(");

    try (ServerFixture f = ServerFixture.start(store)) {
      Path planFile = tmp.resolve("plan.json");
      Files.write(planFile, Json.bytes(plan));
      Path script = PythonEnv.projectRoot().resolve("qa/python/pyvespa/roundtrip.py");
      PythonRun run =
          pyvespa
              .run(
                  SCRIPT_TIMEOUT,
                  script.toString(),
                  "http://127.0.0.1:" + f.port(),
                  planFile.toString())
              .requireSuccess();
      JsonNode out = Json.MAPPER.readTree(run.stdout());
      assertEquals("1.2.9", out.get("pyvespa").asText());

      // Writes: every put and the update acknowledged with Vespa's full document id.
      assertWrite(out.get("feed_data_point"), docs.get(0).id());
      JsonNode fed = out.get("feed_iterable");
      assertEquals(DOCS - 1, fed.size(), fed.toString());
      for (Document d : docs.subList(1, DOCS)) {
        assertWrite(fed.get(d.id()), d.id());
      }
      assertWrite(out.get("update").get(updated.id()), updated.id());
      assertEquals(200, out.get("refresh_status").asInt());

      // get_data: the updated document with its tensor; a missing one is a 404, not an error.
      JsonNode got = out.get("get").get(updated.id());
      assertEquals(200, got.get("status").asInt(), got.toString());
      JsonNode fields = got.get("json").get("fields");
      assertEquals(updated.title(), fields.get(Schema.TITLE).asText());
      assertEquals(updated.description(), fields.get(Schema.DESCRIPTION).asText());
      assertEquals(updated.price() + 100, fields.get(Schema.PRICE).asInt());
      assertFloats(updated.embedding(), fields.get(Schema.EMBEDDING).get("values"));
      assertEquals(404, out.get("get").get("no-such-doc").get("status").asInt());

      // query: each answer equals the server's JSON answer to the same body, and makes sense.
      JsonNode results = out.get("queries");
      for (String name : List.of("lexical", "vector", "hybrid", "filter")) {
        JsonNode r = results.get(name);
        assertNotNull(r, name);
        assertFalse(r.has("error"), name + ": " + r);
        assertEquals(200, r.get("status").asInt(), name);
        ServerFixture.Response json = f.send("POST", "/search/", Json.bytes(queries.get(name)));
        assertEquals(200, json.status(), json.body());
        assertSameTree(name, json.json(), r.get("json"));
      }
      JsonNode vectorHits = results.get("vector").get("hits");
      assertEquals(5, vectorHits.size(), vectorHits.toString());
      assertEquals("id:product:product::" + probe.id(), vectorHits.get(0).get("id").asText());
      assertEquals(probe.title(), vectorHits.get(0).get("fields").get(Schema.TITLE).asText());
      assertTrue(
          containsId(results.get("lexical").get("hits"), probe.id()),
          "the lexical hits hold the document whose title was the query");
      assertTrue(
          containsId(results.get("hybrid").get("hits"), probe.id()),
          "hybrid: the probe is the nearest vector and matches every term");
      JsonNode filter = results.get("filter");
      assertEquals(inCategory, filter.get("number_documents_retrieved").asLong());
      assertEquals(inCategory, filter.get("hits").size());
      for (JsonNode h : filter.get("hits")) {
        assertEquals(category, h.get("fields").get(Schema.CATEGORY).asText(), h.toString());
      }
      // An error answer (in CBOR too) reaches the user as pyvespa's error with the server's text.
      String error = results.get("bad_yql").get("error").asText();
      assertTrue(error.contains("nonsense"), error);
    }
  }

  /** A document's fields as a Vespa put carries them, the tensor in its {@code values} form. */
  private static ObjectNode vespaFields(Document d) {
    ObjectNode o = ServerFixture.source(d);
    o.remove(Schema.ID);
    ObjectNode tensor = Json.MAPPER.createObjectNode();
    tensor.set("values", floats(d.embedding()));
    o.set(Schema.EMBEDDING, tensor);
    return o;
  }

  private static ArrayNode floats(float[] v) {
    ArrayNode a = Json.MAPPER.createArrayNode();
    for (float x : v) {
      a.add(x);
    }
    return a;
  }

  private static void assertWrite(JsonNode r, String id) {
    assertNotNull(r, id);
    assertEquals(200, r.get("status").asInt(), r.toString());
    assertEquals("id:product:product::" + id, r.get("json").get("id").asText(), r.toString());
  }

  private static void assertFloats(float[] expected, JsonNode actual) {
    assertEquals(expected.length, actual.size(), actual.toString());
    for (int i = 0; i < expected.length; i++) {
      assertEquals(expected[i], (float) actual.get(i).asDouble(), "component " + i);
    }
  }

  private static boolean containsId(JsonNode hits, String id) {
    for (JsonNode h : hits) {
      if (h.get("id").asText().equals("id:product:product::" + id)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Equal trees, numbers compared as floats: CBOR carries the server's single-precision scores and
   * fields exactly, and Python prints them widened to doubles ({@code 4.7f} as {@code
   * 4.699999809265137}), while the JSON text prints the float's shortest form.
   */
  private static void assertSameTree(String where, JsonNode expected, JsonNode actual) {
    if (expected.isNumber()) {
      assertTrue(actual.isNumber(), where + ": " + actual + " is not a number");
      assertEquals((float) expected.asDouble(), (float) actual.asDouble(), where);
    } else if (expected.isObject()) {
      assertTrue(actual.isObject(), where + ": " + actual + " is not an object");
      assertEquals(fieldNames(expected), fieldNames(actual), where);
      for (Iterator<Map.Entry<String, JsonNode>> it = expected.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        assertSameTree(where + "." + e.getKey(), e.getValue(), actual.get(e.getKey()));
      }
    } else if (expected.isArray()) {
      assertTrue(actual.isArray(), where + ": " + actual + " is not an array");
      assertEquals(expected.size(), actual.size(), where);
      for (int i = 0; i < expected.size(); i++) {
        assertSameTree(where + "[" + i + "]", expected.get(i), actual.get(i));
      }
    } else if (!expected.equals(actual)) {
      fail(where + ": expected " + expected + ", got " + actual);
    }
  }

  private static java.util.Set<String> fieldNames(JsonNode o) {
    java.util.Set<String> names = new java.util.TreeSet<>();
    o.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
