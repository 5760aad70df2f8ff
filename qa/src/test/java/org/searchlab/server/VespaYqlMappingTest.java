package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * The Vespa dialect over an index that is not the benchmark's: {@code PUT /shop} with {@link
 * CatalogCorpus}'s mapping, documents fed through {@code /document/v1}, then YQL statements
 * compared with the equivalent Elasticsearch bodies on the same index (same hits, order, scores and
 * totals), the summaries, and Vespa's error shape, on every store.
 */
class VespaYqlMappingTest {
  private static final int DOCS = 120;

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void yqlMatchesTheEquivalentElasticsearchBody(TestStore store) throws Exception {
    long seed = TestSeeds.seed("VespaYqlMappingTest");
    System.out.println("VespaYqlMappingTest seed " + seed + " store " + store);
    CatalogCorpus corpus = new CatalogCorpus(seed);
    try (ServerFixture f = ServerFixture.owned(store)) {
      f.createIndex("shop", CatalogCorpus.mapping());

      List<Document> docs = corpus.documents(DOCS);
      for (Document d : docs) {
        ObjectNode put = Json.MAPPER.createObjectNode();
        put.set("fields", Json.MAPPER.valueToTree(d.source()));
        ServerFixture.Response r =
            f.send("POST", "/document/v1/shop/shop/docid/" + d.id(), put.toString());
        assertEquals(200, r.status(), r.body());
      }
      assertEquals(200, f.send("POST", "/shop/_refresh", (String) null).status());

      Document probe = docs.get(3);
      String[] nameWords = ((String) probe.source().get("name")).split(" ");
      String w1 = nameWords[0];
      String w2 = nameWords[nameWords.length - 1];
      String[] bodyWords = ((String) probe.source().get("body")).split(" ");
      String bodyWord = bodyWords[1];
      String bodyPair = bodyWord + " " + bodyWords[bodyWords.length - 1];
      long stock = ((Number) probe.source().get("stock")).longValue();
      boolean available = (Boolean) probe.source().get("available");
      Document withVectors =
          docs.stream()
              .skip(5)
              .filter(d -> d.source().get("img") != null && d.source().get("txt") != null)
              .findFirst()
              .orElseThrow();
      float[] img = (float[]) withVectors.source().get("img");
      float[] txt = (float[]) withVectors.source().get("txt");
      String imgJson = ServerFixture.vector(img);
      String txtJson = ServerFixture.vector(txt);
      String brand = (String) probe.source().get("brand");
      // The default fieldset: every indexed text field, those dynamic mapping added included.
      String mm =
          "{\"multi_match\":{\"query\":"
              + quote(w1 + " " + bodyWord)
              + ",\"fields\":[\"name\",\"body\",\"meta.notes\",\"label\",\"extra.note\"],"
              + "\"type\":\"best_fields\"}}";

      List<Case> cases = new ArrayList<>();
      cases.add(
          new Case(
              "name contains " + quote(w1 + " " + w2),
              Map.of(),
              "\"query\":{\"match\":{\"name\":{\"query\":"
                  + quote(w1 + " " + w2)
                  + ",\"operator\":\"and\"}}}"));
      cases.add(
          new Case(
              "body contains text(" + quote(bodyWord + " " + w1) + ")",
              Map.of(),
              "\"query\":{\"match\":{\"body\":" + quote(bodyWord + " " + w1) + "}}"));
      cases.add(
          new Case(
              "default contains text(" + quote(w1 + " " + bodyWord) + ")",
              Map.of(),
              "\"query\":" + mm));
      cases.add(new Case("userQuery()", Map.of("query", w1 + " " + bodyWord), "\"query\":" + mm));
      cases.add(
          new Case(
              "userQuery()",
              Map.of("query", bodyPair, "model.defaultIndex", "body", "model.type", "all"),
              "\"query\":{\"match\":{\"body\":{\"query\":"
                  + quote(bodyPair)
                  + ",\"operator\":\"and\"}}}"));
      cases.add(
          new Case(
              "body contains text("
                  + quote(bodyWord + " " + w1)
                  + ") and brand contains "
                  + quote(brand)
                  + " and stock > "
                  + (stock - 60)
                  + " and stock <= "
                  + (stock + 60),
              Map.of(),
              "\"query\":{\"bool\":{\"must\":[{\"match\":{\"body\":"
                  + quote(bodyWord + " " + w1)
                  + "}}],\"filter\":[{\"term\":{\"brand\":"
                  + quote(brand)
                  + "}},{\"range\":{\"stock\":{\"gt\":"
                  + (stock - 60)
                  + ",\"lte\":"
                  + (stock + 60)
                  + "}}}]}}"));
      cases.add(
          new Case(
              "body contains text(" + quote(bodyWord) + ") or tags contains \"red\"",
              Map.of(),
              "\"query\":{\"bool\":{\"should\":[{\"match\":{\"body\":"
                  + quote(bodyWord)
                  + "}},{\"bool\":{\"filter\":[{\"term\":{\"tags\":\"red\"}}]}}]}}"));
      cases.add(
          new Case(
              "default contains text("
                  + quote(w1 + " " + bodyWord)
                  + ") and !(available = "
                  + !available
                  + ")",
              Map.of(),
              "\"query\":{\"bool\":{\"must\":["
                  + mm
                  + "],\"must_not\":[{\"term\":{\"available\":"
                  + !available
                  + "}}]}}"));
      cases.add(
          new Case(
              "brand in (\"acme\", \"globex\") and weight < 50.5",
              Map.of(),
              "\"query\":{\"constant_score\":{\"filter\":{\"bool\":{\"filter\":[{\"terms\":"
                  + "{\"brand\":[\"acme\",\"globex\"]}},{\"range\":{\"weight\":{\"lt\":50.5}}}]}}}}"));
      cases.add(
          new Case(
              "range(meta.rank, 1000, 500000) and meta.origin contains \"de\"",
              Map.of(),
              "\"query\":{\"constant_score\":{\"filter\":{\"bool\":{\"filter\":[{\"range\":"
                  + "{\"meta.rank\":{\"gte\":1000,\"lte\":500000}}},{\"term\":{\"meta.origin\":"
                  + "\"de\"}}]}}}}"));
      cases.add(
          new Case(
              "rank(body contains text("
                  + quote(bodyWord)
                  + "), name contains text("
                  + quote(w1)
                  + "))",
              Map.of(),
              "\"query\":{\"bool\":{\"must\":[{\"match\":{\"body\":"
                  + quote(bodyWord)
                  + "}}],\"should\":[{\"match\":{\"name\":"
                  + quote(w1)
                  + "}}]}}"));
      cases.add(
          new Case(
              "{targetHits:10}nearestNeighbor(img, qi)",
              Map.of("input.query(qi)", imgJson),
              "\"knn\":{\"field\":\"img\",\"k\":10,\"num_candidates\":10,\"query_vector\":"
                  + imgJson
                  + "}"));
      cases.add(
          new Case(
              "brand contains "
                  + quote(brand)
                  + " and {targetHits:5, hnsw.exploreAdditionalHits:20}nearestNeighbor(txt, qt)",
              Map.of("input.query(qt)", txtJson),
              "\"knn\":{\"field\":\"txt\",\"k\":5,\"num_candidates\":25,\"query_vector\":"
                  + txtJson
                  + ",\"filter\":{\"term\":{\"brand\":"
                  + quote(brand)
                  + "}}}"));
      cases.add(
          new Case(
              "{targetHits:10, distanceThreshold:3.5}nearestNeighbor(txt, qt)",
              Map.of("input.query(qt)", txtJson),
              "\"knn\":{\"field\":\"txt\",\"k\":10,\"num_candidates\":10,\"similarity\":3.5,"
                  + "\"query_vector\":"
                  + txtJson
                  + "}"));
      cases.add(
          new Case(
              "tags contains \"red\" and ({targetHits:10}nearestNeighbor(img, qi) or name contains"
                  + " text("
                  + quote(w1 + " " + w2)
                  + "))",
              Map.of("input.query(qi)", imgJson),
              "\"query\":{\"bool\":{\"must\":[{\"match\":{\"name\":"
                  + quote(w1 + " " + w2)
                  + "}}],\"filter\":[{\"term\":{\"tags\":\"red\"}}]}},\"knn\":{\"field\":\"img\","
                  + "\"k\":10,\"num_candidates\":10,\"query_vector\":"
                  + imgJson
                  + ",\"filter\":{\"term\":{\"tags\":\"red\"}}}"));
      cases.add(
          new Case(
              "{targetHits:8}nearestNeighbor(img, qi) or {targetHits:8}nearestNeighbor(txt, qt)",
              Map.of("input.query(qi)", imgJson, "input.query(qt)", txtJson),
              "\"knn\":[{\"field\":\"img\",\"k\":8,\"num_candidates\":8,\"query_vector\":"
                  + imgJson
                  + "},{\"field\":\"txt\",\"k\":8,\"num_candidates\":8,\"query_vector\":"
                  + txtJson
                  + "}]"));
      cases.add(
          new Case(
              "{targetHits:20}nearestNeighbor(img, qi) or userQuery()",
              Map.of(
                  "input.query(qi)",
                  imgJson,
                  "query",
                  w1 + " " + bodyWord,
                  "ranking",
                  "rrf",
                  "ranking.globalPhase.rerankCount",
                  "30"),
              "\"query\":"
                  + mm
                  + ",\"knn\":{\"field\":\"img\",\"k\":20,\"num_candidates\":20,\"query_vector\":"
                  + imgJson
                  + "},\"rank\":{\"rrf\":{\"window_size\":30}}"));

      for (Case c : cases) {
        JsonNode es = search(f, store, "POST", "/shop/_search", "{\"size\":20," + c.es + "}");
        JsonNode vespa = search(f, store, "POST", "/search/", c.vespaBody(20));
        List<String> esIds = new ArrayList<>();
        List<Float> esScores = new ArrayList<>();
        for (JsonNode h : es.at("/hits/hits")) {
          esIds.add(h.get("_id").asText());
          esScores.add(h.get("_score").floatValue());
        }
        List<String> vIds = new ArrayList<>();
        List<Float> vScores = new ArrayList<>();
        for (JsonNode h : vespa.at("/root/children")) {
          String id = h.get("id").asText();
          vIds.add(id.substring(id.lastIndexOf("::") + 2));
          vScores.add(h.get("relevance").floatValue());
        }
        assertFalse(esIds.isEmpty(), c.yql + " matches something: " + es);
        assertEquals(esIds, vIds, c.yql);
        assertEquals(esScores, vScores, c.yql);
        assertEquals(
            es.at("/hits/total/value").asLong(),
            vespa.at("/root/fields/totalCount").asLong(),
            c.yql);
      }

      // Summaries: the document's source, vectors as Vespa 8 renders tensors; select limits.
      String get =
          "/search/?hits=1&yql="
              + enc("select * from shop where name contains " + quote(w1 + " " + w2));
      JsonNode top = search(f, store, "GET", get, null).at("/root/children/0/fields");
      assertEquals("shop", top.get("sddocname").asText());
      String topId = top.get("documentid").asText();
      Document hit =
          docs.stream()
              .filter(d -> topId.endsWith("::" + d.id()))
              .findFirst()
              .orElseThrow(() -> new AssertionError(topId));
      assertEquals(hit.source().get("name"), top.get("name").asText());
      assertEquals(hit.source().get("brand"), top.get("brand").asText());
      if (hit.source().get("img") instanceof float[] v) {
        assertEquals("tensor<float>(x[" + v.length + "])", top.at("/img/type").asText());
        assertEquals(v.length, top.at("/img/values").size());
        assertEquals(v[0], top.at("/img/values/0").floatValue());
      }
      JsonNode selected =
          search(
                  f,
                  store,
                  "GET",
                  "/search/?hits=3&yql="
                      + enc("select documentid, brand, stock from shop where true"),
                  null)
              .at("/root/children");
      assertEquals(3, selected.size());
      for (JsonNode c : selected) {
        List<String> names = new ArrayList<>();
        c.get("fields").fieldNames().forEachRemaining(names::add);
        assertEquals(List.of("documentid", "brand", "stock"), names, c.toString());
      }

      // Vespa's error shape and words for a field the mapping does not have.
      ServerFixture.Response unknown =
          f.send(
              "GET",
              "/search/?yql=" + enc("select * from shop where nope contains \"x\""),
              (String) null);
      assertEquals(400, unknown.status(), unknown.body());
      JsonNode error = unknown.json().at("/root/errors/0");
      assertEquals(4, error.get("code").asInt());
      assertEquals(
          "Could not create query from YQL: Field 'nope' does not exist",
          error.get("message").asText());
      ServerFixture.Response profile =
          f.send(
              "POST",
              "/search/",
              "{\"yql\":\"select * from shop where name contains \\\"x\\\"\","
                  + "\"ranking.profile\":\"closeness\"}");
      assertEquals(400, profile.status(), profile.body());
      assertTrue(
          profile.json().at("/root/errors/0/message").asText().contains("needs profile 'bm25'"),
          profile.body());
    }
  }

  /** A YQL where clause, its request parameters, and the equivalent Elasticsearch body's parts. */
  private record Case(String yql, Map<String, String> params, String es) {
    String vespaBody(int hits) throws Exception {
      ObjectNode b =
          Json.MAPPER
              .createObjectNode()
              .put("yql", "select * from shop where " + yql)
              .put("hits", hits);
      Map<String, String> sorted = new LinkedHashMap<>(params);
      for (Map.Entry<String, String> e : sorted.entrySet()) {
        if (e.getKey().startsWith("input.query(")) {
          b.set(e.getKey(), Json.MAPPER.readTree(e.getValue()));
        } else {
          b.put(e.getKey(), e.getValue());
        }
      }
      return b.toString();
    }
  }

  /** A search's answer, which must be 200. */
  private static JsonNode search(
      ServerFixture f, TestStore store, String method, String path, String body) throws Exception {
    ServerFixture.Response r = f.send(method, path, body);
    assertEquals(200, r.status(), path + " " + body + " -> " + r.body());
    return r.json();
  }

  private static String quote(String s) {
    try {
      return Json.MAPPER.writeValueAsString(s);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
