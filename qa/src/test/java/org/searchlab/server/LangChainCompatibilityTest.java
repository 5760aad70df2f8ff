package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.searchlab.core.query.Query;
import org.searchlab.testing.PythonEnv;
import org.searchlab.testing.PythonRun;
import org.searchlab.testing.TestSeeds;

/**
 * LangChain's {@code ElasticsearchStore} ({@code langchain-elasticsearch} 1.0.0 on the 8.x Python
 * client, unchanged, in its own pinned environment) against a server whose indexes take the store
 * kind under test: the store creates its own index for each retrieval strategy (kNN with cosine and
 * with dot product, hybrid RRF with the defaults and with rank_constant 7 and window 15, BM25 with
 * k1 1.7 and b 0.4, and exact {@code script_score} with cosine, dot product and l2), adds 40 texts
 * with metadata, searches with and without a {@code metadata.category.keyword} filter, deletes
 * three ids, searches, force-merges and searches again ({@code qa/python/langchain-elasticsearch/
 * vectorstore_run.py}). Every ranking must be the exact one (ties in any order): vector scores by
 * Elasticsearch's formulas over the documents' vectors, BM25 by an {@link LangChainOracle} opened
 * with the mapping and settings the server reports, hybrid by Elasticsearch's RRF of the two
 * (within the ties of each list).
 */
class LangChainCompatibilityTest {
  private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(5);
  private static final int K = 10;

  /** Elasticsearch's RRF rank_constant default, and this server's default rank window. */
  private static final int RRF_CONSTANT = 60;

  private static final int RRF_WINDOW = 10;

  private static PythonEnv langchain;

  @TempDir Path tmp;

  @BeforeAll
  static void environment() {
    langchain = PythonEnv.forTool("langchain-elasticsearch");
  }

  @ParameterizedTest
  @ValueSource(strings = {"exact", "segmented", "mutable"})
  void vectorStoreStrategiesAnswerExactly(String kind) throws Exception {
    long seed = TestSeeds.seed("LangChainCompatibilityTest." + kind);
    try (SearchServer server =
        SearchServer.start(
            ServerConfig.builder().port(0).build(),
            tmp.resolve("data"),
            TestKinds.all(),
            kind,
            Optional.empty(),
            Optional.empty())) {
      String url = "http://127.0.0.1:" + server.port();
      Path script =
          PythonEnv.projectRoot().resolve("qa/python/langchain-elasticsearch/vectorstore_run.py");
      PythonRun run =
          langchain.run(SCRIPT_TIMEOUT, script.toString(), url, Long.toString(seed), "lc");
      run.requireSuccess();
      JsonNode out = Json.MAPPER.readTree(run.stdout());
      Http http = new Http(url);
      for (Map.Entry<String, JsonNode> c : iterable(out.get("cases"))) {
        checkCase(kind, c.getKey(), c.getValue(), out, http);
      }
    }
  }

  private void checkCase(String kind, String name, JsonNode c, JsonNode out, Http http)
      throws Exception {
    String index = c.get("index").asText();
    String where = kind + "/" + name;
    JsonNode docs = out.get("docs");
    List<String> ids = new ArrayList<>();
    docs.forEach(d -> ids.add(d.get("id").asText()));
    assertEquals(ids.toString(), iterableText(c.get("added")).toString(), where + ": added ids");
    assertTrue(c.get("delete_ok").asBoolean(), where + ": delete acknowledged");

    JsonNode settings =
        http.get("/" + index + "/_settings").get(index).get("settings").get("index");
    assertEquals(kind, settings.get("store").asText(), where + ": the index's store kind");
    JsonNode mappings = http.get("/" + index + "/_mapping").get(index).get("mappings");
    boolean lexical = name.startsWith("bm25") || name.startsWith("hybrid");
    if (name.equals("bm25")) {
      assertEquals(
          "custom_bm25", mappings.at("/properties/text/similarity").asText(), where + ": mapping");
      assertEquals("1.7", settings.at("/similarity/custom_bm25/k1").asText(), where);
      assertEquals("0.4", settings.at("/similarity/custom_bm25/b").asText(), where);
    }

    Set<String> deleted = new HashSet<>(iterableText(out.get("deleted")));
    try (LangChainOracle oracle =
        LangChainOracle.open(tmp.resolve("oracle-" + name), mappings, settings)) {
      for (JsonNode d : docs) {
        ObjectNode source = Json.MAPPER.createObjectNode();
        source.put("text", d.get("text").asText()).set("metadata", d.get("metadata"));
        if (!name.equals("bm25")) {
          source.set("vector", d.get("vector"));
        }
        oracle.put(d.get("id").asText(), source);
      }
      oracle.refresh();
      for (String phase : List.of("added", "deleted", "merged")) {
        if (phase.equals("deleted")) {
          for (String id : deleted) {
            oracle.delete(id);
          }
          oracle.refresh();
        } else if (phase.equals("merged")) {
          oracle.forceMerge();
        }
        Set<String> gone = phase.equals("added") ? Set.of() : deleted;
        JsonNode results = c.get("phases").get(phase);
        JsonNode queries = out.get("queries");
        assertEquals(queries.size(), results.size(), where + "/" + phase);
        for (int i = 0; i < queries.size(); i++) {
          JsonNode q = queries.get(i);
          String at = where + "/" + phase + "/query " + i + " " + q.get("text") + q.get("filter");
          List<TieAwareRanking.Scored> actual = scored(results.get(i).get("hits"));
          String category =
              q.get("filter").isNull()
                  ? null
                  : q.get("filter").get(0).get("term").get("metadata.category.keyword").asText();
          List<JsonNode> live = new ArrayList<>();
          for (JsonNode d : docs) {
            if (!gone.contains(d.get("id").asText())
                && (category == null
                    || category.equals(d.get("metadata").get("category").asText()))) {
              live.add(d);
            }
          }
          for (JsonNode h : results.get(i).get("hits")) {
            assertTrue(
                category == null || category.equals(h.get("metadata").get("category").asText()),
                at + ": the filter holds for " + h);
          }
          List<Query> filters =
              category == null
                  ? List.of()
                  : List.of(Query.Term.of("metadata.category.keyword", category));
          String text = q.get("text").asText();
          float[] vector = floats(q.get("vector"));
          if (lexical && phase.equals("deleted") && kind.equals("segmented")) {
            // Until a merge the segmented store counts deleted documents in BM25's statistics,
            // as Elasticsearch does: the scores move, the documents that match do not.
            Set<String> matching = new HashSet<>();
            oracle.match("text", text, filters, 100).forEach(s -> matching.add(s.id()));
            if (name.startsWith("hybrid")) {
              live.forEach(d -> matching.add(d.get("id").asText()));
            }
            for (TieAwareRanking.Scored s : actual) {
              assertTrue(matching.contains(s.id()), at + ": " + s + " matches");
            }
            assertEquals(Math.min(K, matching.size()), actual.size(), at + ": hits");
            continue;
          }
          if (name.startsWith("hybrid")) {
            boolean defaults = name.equals("hybrid");
            int constant = defaults ? RRF_CONSTANT : 7;
            int window = defaults ? RRF_WINDOW : 15;
            List<TieAwareRanking.Scored> lexicalList = oracle.match("text", text, filters, 100);
            List<TieAwareRanking.Scored> knnList =
                byVector(live, vector, (a, b) -> (1 + cosine(a, b)) / 2);
            TieAwareRanking.assertRrf(
                at,
                List.of(lexicalList, knnList),
                List.of(window, Math.min(K, window)),
                constant,
                actual,
                K);
            continue;
          }
          List<TieAwareRanking.Scored> exact =
              switch (name) {
                case "cosine" -> byVector(live, vector, (a, b) -> (1 + cosine(a, b)) / 2);
                case "dot" -> byVector(live, vector, (a, b) -> (1 + dot(a, b)) / 2);
                case "exact-cosine" -> byVector(live, vector, (a, b) -> cosine(a, b) + 1);
                case "exact-dot" ->
                    byVector(live, vector, (a, b) -> 1 / (1 + Math.exp(-dot(a, b))));
                case "exact-l2" -> byVector(live, vector, (a, b) -> 1 / (1 + l2(a, b)));
                case "bm25" -> oracle.match("text", text, filters, 100);
                default -> throw new AssertionError("unknown case " + name);
              };
          TieAwareRanking.assertSameTop(at, exact, actual, K);
        }
      }
    }
  }

  private static List<TieAwareRanking.Scored> byVector(
      List<JsonNode> docs, float[] query, BiFunction<float[], float[], Double> score) {
    List<TieAwareRanking.Scored> out = new ArrayList<>();
    for (JsonNode d : docs) {
      out.add(
          new TieAwareRanking.Scored(
              d.get("id").asText(), score.apply(query, floats(d.get("vector")))));
    }
    out.sort(Comparator.comparingDouble(TieAwareRanking.Scored::score).reversed());
    return out;
  }

  private static double dot(float[] a, float[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += (double) a[i] * b[i];
    }
    return s;
  }

  private static double cosine(float[] a, float[] b) {
    return dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b));
  }

  private static double l2(float[] a, float[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      double d = (double) a[i] - b[i];
      s += d * d;
    }
    return Math.sqrt(s);
  }

  private static float[] floats(JsonNode a) {
    float[] v = new float[a.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) a.get(i).asDouble();
    }
    return v;
  }

  private static List<TieAwareRanking.Scored> scored(JsonNode hits) {
    List<TieAwareRanking.Scored> out = new ArrayList<>();
    for (JsonNode h : hits) {
      out.add(new TieAwareRanking.Scored(h.get("id").asText(), h.get("score").asDouble()));
    }
    return out;
  }

  private static List<String> iterableText(JsonNode a) {
    List<String> out = new ArrayList<>();
    a.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode o) {
    return o::fields;
  }

  /** GETs JSON from the server. */
  private record Http(String base) {
    JsonNode get(String path) throws Exception {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(base + path)).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), path + ": " + r.body());
      return Json.MAPPER.readTree(r.body());
    }
  }
}
