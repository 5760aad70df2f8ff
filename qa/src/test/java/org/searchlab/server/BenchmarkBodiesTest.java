package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Sends the benchmark's six query bodies per dialect verbatim and checks that both dialects return
 * the same ids, and the same ids as the core request they stand for run directly on the store.
 */
class BenchmarkBodiesTest {
  private static final int DOCS = 1500;
  private static final int QUERIES = 8;

  enum Kind {
    LEXICAL(RankProfile.BM25),
    VECTOR(RankProfile.CLOSENESS),
    HYBRID(RankProfile.HYBRID);

    final RankProfile profile;

    Kind(RankProfile profile) {
      this.profile = profile;
    }
  }

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void bothDialectsReturnTheSameIds(TestStore store) throws Exception {
    long seed = TestSeeds.seed("BenchmarkBodiesTest." + store);
    SyntheticCorpus corpus = new SyntheticCorpus(seed, ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.start(store)) {
      List<Document> docs = f.load(corpus, DOCS);
      int nonEmpty = 0;
      for (int q = 0; q < QUERIES; q++) {
        Document src = docs.get((q * 7919) % DOCS);
        String text =
            String.join(
                " ",
                List.of(src.title().split(" "))
                    .subList(0, Math.min(8, src.title().split(" ").length)));
        String cat = src.category();
        float[] vec = src.embedding();
        for (Kind kind : Kind.values()) {
          for (boolean filtered : new boolean[] {false, true}) {
            String what = kind + (filtered ? " filtered" : "") + " query " + q + " '" + text + "'";
            List<String> es =
                esIds(
                    f.send("POST", "/product/_search/", esBody(kind, filtered, text, cat, vec)),
                    what);
            List<String> vespa =
                vespaIds(
                    f.send("POST", "/search/", vespaBody(kind, filtered, text, cat, vec)), what);
            SearchRequest direct =
                SearchRequest.builder()
                    .text(kind == Kind.VECTOR ? null : text)
                    .vector(kind == Kind.LEXICAL ? null : vec)
                    .filter(filtered ? Filter.category(cat) : Filter.ALL)
                    .hits(10)
                    .targetHits(100)
                    .rankProfile(kind.profile)
                    .build();
            List<String> expected = f.index.search(direct).ids();
            assertEquals(expected, es, "Elasticsearch dialect, " + what);
            assertEquals(expected, vespa, "Vespa dialect, " + what);
            nonEmpty += es.isEmpty() ? 0 : 1;
          }
        }
        // The same hybrid query as URL parameters.
        String get =
            "/search/?yql="
                + enc(vespaYql(Kind.HYBRID, true, cat))
                + "&query="
                + enc(text)
                + "&ranking.profile=hybrid&hits=10&presentation.summary=minimal"
                + "&input.query(q_embedding)="
                + enc(ServerFixture.vector(vec));
        List<String> viaGet = vespaIds(f.send("GET", get, (String) null), "GET hybrid " + q);
        List<String> viaPost =
            vespaIds(
                f.send("POST", "/search/", vespaBody(Kind.HYBRID, true, text, cat, vec)), "POST");
        assertEquals(viaPost, viaGet);
      }
      assertEquals(QUERIES * 6, nonEmpty, "every benchmark query should find its own document");

      // A YQL select list shows only those fields, as Vespa hides the others; '*' shows all.
      Document probe = docs.get(0);
      String title = String.join(" ", List.of(probe.title().split(" ")).subList(0, 3));
      JsonNode some =
          f.send(
                  "GET",
                  "/search/?hits=3&query="
                      + enc(title)
                      + "&yql="
                      + enc(
                          "select title, price, documentid, nosuchfield from product where"
                              + " userQuery()"),
                  (String) null)
              .json();
      for (JsonNode c : some.get("root").get("children")) {
        List<String> names = new ArrayList<>();
        c.get("fields").fieldNames().forEachRemaining(names::add);
        assertEquals(List.of("documentid", "title", "price"), names, c.toString());
      }
      JsonNode all =
          f.send(
                  "GET",
                  "/search/?hits=1&query="
                      + enc(title)
                      + "&yql="
                      + enc("select * from product where userQuery()"),
                  (String) null)
              .json();
      JsonNode first = all.get("root").get("children").get(0).get("fields");
      assertTrue(first.has("sddocname") && first.has("description") && first.has("category"));
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  static String esBody(Kind kind, boolean filtered, String text, String cat, float[] vec) {
    String term = "{\"term\":{\"category\":" + quote(cat) + "}}";
    String multiMatch =
        "{\"multi_match\":{\"query\":"
            + quote(text)
            + ",\"fields\":[\"title\",\"description\"],\"type\":\"best_fields\"}}";
    String query =
        "\"query\":{\"bool\":{\"must\":"
            + multiMatch
            + (filtered ? ",\"filter\":[" + term + "]" : "")
            + "}}";
    String knn =
        "\"knn\":{\"field\":\"embedding\",\"query_vector\":"
            + ServerFixture.vector(vec)
            + ",\"num_candidates\":100,\"k\":100"
            + (filtered ? ",\"filter\":[" + term + "]" : "")
            + "}";
    String head = "{\"size\":10,\"_source\":false,";
    return switch (kind) {
      case LEXICAL -> head + query + "}";
      case VECTOR -> head + knn + "}";
      case HYBRID -> head + query + "," + knn + "}";
    };
  }

  static String vespaYql(Kind kind, boolean filtered, String cat) {
    String nn = "({targetHits:100}nearestNeighbor(embedding,q_embedding))";
    String part =
        switch (kind) {
          case LEXICAL -> "userQuery()";
          case VECTOR -> nn;
          case HYBRID -> filtered ? "(" + nn + " or userQuery())" : nn + " or userQuery()";
        };
    return "select * from product where "
        + (filtered ? "category contains \"" + cat + "\" and " : "")
        + part;
  }

  static String vespaBody(Kind kind, boolean filtered, String text, String cat, float[] vec) {
    String profile =
        switch (kind) {
          case LEXICAL -> "bm25";
          case VECTOR -> "closeness";
          case HYBRID -> "hybrid";
        };
    StringBuilder sb = new StringBuilder("{\"yql\":").append(quote(vespaYql(kind, filtered, cat)));
    sb.append(",\"ranking.profile\":\"").append(profile).append("\"");
    sb.append(",\"presentation.summary\":\"minimal\",\"hits\":10");
    if (kind != Kind.VECTOR) {
      sb.append(",\"query\":").append(quote(text));
    }
    if (kind != Kind.LEXICAL) {
      sb.append(",\"input.query(q_embedding)\":").append(ServerFixture.vector(vec));
    }
    return sb.append('}').toString();
  }

  private static String quote(String s) {
    try {
      return Json.MAPPER.writeValueAsString(s);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static List<String> esIds(ServerFixture.Response r, String what) {
    assertEquals(200, r.status(), what + ": " + r.body());
    assertEquals("Elasticsearch", r.header("X-Elastic-Product"));
    List<String> ids = new ArrayList<>();
    for (JsonNode h : r.json().get("hits").get("hits")) {
      assertEquals("product", h.get("_index").asText());
      assertFalse(h.has("_source"), "_source:false must leave sources out");
      ids.add(h.get("_id").asText());
    }
    return ids;
  }

  static List<String> vespaIds(ServerFixture.Response r, String what) {
    assertEquals(200, r.status(), what + ": " + r.body());
    List<String> ids = new ArrayList<>();
    JsonNode children = r.json().get("root").get("children");
    if (children != null) {
      for (JsonNode c : children) {
        String id = c.get("id").asText();
        String prefix = "id:product:product::";
        assertEquals(prefix, id.substring(0, prefix.length()), id);
        ids.add(id.substring(prefix.length()));
      }
    }
    return ids;
  }
}
