package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.embed.Embedder;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Search bodies of the general translation, end to end through the server over the benchmark's
 * mapping: on every store the bodies the stores run today (the benchmark's shape and the requests
 * {@code ProductShapeBridge} maps onto it: Rally's range, filter-only bools, LangChain-style kNN
 * filter lists, the RRF retriever, {@code _count}); on the exact reference store the queries the
 * two stores will evaluate once they read the general {@code Query} tree (issue 66's store work),
 * and on those stores either the reference's answer or, until then, a 400 that says so.
 */
class EsSearchBodiesTest {
  private static final int DOCS = 300;

  private static SyntheticCorpus corpus(String name) {
    return new SyntheticCorpus(TestSeeds.seed("EsSearchBodiesTest." + name), ServerFixture.DIMS);
  }

  /** Whether {@code text}, analysed, holds the token {@code word} analyses to. */
  private static boolean contains(String text, String word) {
    return TextAnalysis.tokens(text).contains(TextAnalysis.tokens(word).get(0));
  }

  private static JsonNode search(ServerFixture f, String body, String... params) throws Exception {
    StringBuilder path = new StringBuilder("/product/_search");
    for (int i = 0; i < params.length; i += 2) {
      path.append(i == 0 ? '?' : '&').append(params[i]).append('=').append(params[i + 1]);
    }
    ServerFixture.Response r = f.send("POST", path.toString(), body);
    assertEquals(200, r.status(), body + " -> " + r.body());
    return r.json();
  }

  private static List<String> ids(JsonNode answer) {
    List<String> out = new ArrayList<>();
    for (JsonNode h : answer.get("hits").get("hits")) {
      out.add(h.get("_id").asText());
    }
    return out;
  }

  private static Map<String, Float> scores(JsonNode answer) {
    Map<String, Float> out = new LinkedHashMap<>();
    for (JsonNode h : answer.get("hits").get("hits")) {
      out.put(h.get("_id").asText(), h.get("_score").floatValue());
    }
    return out;
  }

  private static TreeSet<String> matching(List<Document> docs, Predicate<Document> p) {
    TreeSet<String> out = new TreeSet<>();
    for (Document d : docs) {
      if (p.test(d)) {
        out.add(d.id());
      }
    }
    return out;
  }

  private static String quote(String s) throws Exception {
    return Json.MAPPER.writeValueAsString(s);
  }

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void bodiesEveryStoreRunsToday(TestStore store) throws Exception {
    SyntheticCorpus corpus = corpus("today");
    try (ServerFixture f = ServerFixture.start(store)) {
      List<Document> docs = f.load(corpus, DOCS);
      Document probe = docs.get(17);
      String cat = quote(probe.category());

      // Rally's range search: constant score 1 for every match.
      JsonNode range = search(f, "{\"size\":300,\"query\":{\"range\":{\"price\":{\"gte\":100}}}}");
      assertEquals(matching(docs, d -> d.price() >= 100), new TreeSet<>(ids(range)), store + "");
      assertTrue(scores(range).values().stream().allMatch(s -> s == 1f), range.toString());

      // A bool of filters only scores 0, as in Elasticsearch; bounds of every form.
      JsonNode filters =
          search(
              f,
              "{\"size\":300,\"query\":{\"bool\":{\"filter\":[{\"term\":{\"category\":"
                  + cat
                  + "}},{\"range\":{\"price\":{\"gt\":\"20\",\"lt\":480.5}}}]}}}");
      TreeSet<String> expected =
          matching(
              docs,
              d -> d.category().equals(probe.category()) && d.price() > 20 && d.price() <= 480);
      assertEquals(expected, new TreeSet<>(ids(filters)));
      assertEquals(expected.size(), filters.get("hits").get("total").get("value").asInt());
      assertTrue(scores(filters).values().stream().allMatch(s -> s == 0f), filters.toString());

      // _count through the same parser.
      ServerFixture.Response count =
          f.send(
              "POST",
              "/product/_count",
              "{\"query\":{\"bool\":{\"filter\":[{\"term\":{\"category\":"
                  + cat
                  + "}},{\"range\":{\"price\":{\"gt\":\"20\",\"lt\":480.5}}}]}}}");
      assertEquals(200, count.status(), count.body());
      assertEquals(expected.size(), count.json().get("count").asInt());

      // LangChain's shape of a kNN search: the filter a list, possibly empty.
      String vector = ServerFixture.vector(probe.embedding());
      for (String filter : List.of("[]", "[{\"term\":{\"category\":" + cat + "}}]")) {
        JsonNode knn =
            search(
                f,
                "{\"knn\":{\"filter\":"
                    + filter
                    + ",\"field\":\"embedding\",\"k\":5,\"num_candidates\":100,\"query_vector\":"
                    + vector
                    + "},\"size\":5,\"_source\":true}",
                "_source_includes",
                "category,title");
        List<String> got = ids(knn);
        assertEquals(probe.id(), got.get(0), "a document is its own nearest neighbour");
        JsonNode source = knn.get("hits").get("hits").get(0).get("_source");
        assertEquals(probe.title(), source.get("title").asText());
        assertFalse(source.has("embedding"), "_source_includes: " + source);
        if (!filter.equals("[]")) {
          for (String id : got) {
            assertEquals(
                probe.category(),
                docs.stream().filter(d -> d.id().equals(id)).findFirst().orElseThrow().category());
          }
        }
      }

      // The RRF retriever and rank.rrf are one request; scores are reciprocal ranks.
      String text = quote(probe.title());
      String mm =
          "{\"multi_match\":{\"query\":" + text + ",\"fields\":[\"title\",\"description\"]}}";
      String knnPart =
          "\"field\":\"embedding\",\"k\":10,\"num_candidates\":50,\"query_vector\":" + vector;
      JsonNode retriever =
          search(
              f,
              "{\"size\":5,\"_source\":false,\"retriever\":{\"rrf\":{\"retrievers\":["
                  + "{\"standard\":{\"query\":"
                  + mm
                  + "}},{\"knn\":{"
                  + knnPart
                  + "}}],\"rank_constant\":60,\"rank_window_size\":10}}}");
      JsonNode rank =
          search(
              f,
              "{\"size\":5,\"_source\":false,\"query\":"
                  + mm
                  + ",\"knn\":{"
                  + knnPart
                  + "},\"rank\":{\"rrf\":{\"window_size\":10}}}");
      assertEquals(scores(rank), scores(retriever));
      assertEquals(probe.id(), ids(retriever).get(0), "first in both parts");
      assertEquals(2f / 61, scores(retriever).get(probe.id()), 1e-6f);

      // URL paging overrides the body.
      assertEquals(3, ids(search(f, "{\"size\":8}", "size", "3")).size());
    }
  }

  @Test
  void generalQueriesOnTheReferenceStore() throws Exception {
    SyntheticCorpus corpus = corpus("exact");
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      List<Document> docs = f.load(corpus, DOCS);
      Document probe = docs.get(5);
      String word = probe.title().split(" ")[0];

      // Rally's match on one field: only that field is searched now.
      JsonNode match =
          search(f, "{\"size\":300,\"query\":{\"match\":{\"title\":" + quote(word) + "}}}");
      assertEquals(matching(docs, d -> contains(d.title(), word)), new TreeSet<>(ids(match)));

      // Rally's bool: a scored match on description, filtered.
      String desc = probe.description().split(" ")[0];
      JsonNode bool =
          search(
              f,
              "{\"size\":300,\"query\":{\"bool\":{\"must\":[{\"match\":{\"description\":"
                  + quote(desc)
                  + "}}],\"filter\":[{\"term\":{\"category\":"
                  + quote(probe.category())
                  + "}},{\"range\":{\"price\":{\"gte\":10,\"lte\":400}}}]}}}");
      assertEquals(
          matching(
              docs,
              d ->
                  contains(d.description(), desc)
                      && d.category().equals(probe.category())
                      && d.price() >= 10
                      && d.price() <= 400),
          new TreeSet<>(ids(bool)));
      assertTrue(scores(bool).values().stream().allMatch(s -> s > 0), "BM25 scores");

      // LangChain's exact strategy: script_score with cosineSimilarity + 1.
      JsonNode script =
          search(
              f,
              "{\"query\":{\"script_score\":{\"query\":{\"match_all\":{}},\"script\":{\"source\":"
                  + "\"cosineSimilarity(params.query_vector, 'embedding') + 1.0\",\"params\":"
                  + "{\"query_vector\":"
                  + ServerFixture.vector(probe.embedding())
                  + "}}}},\"size\":3}");
      assertEquals(probe.id(), ids(script).get(0));
      assertEquals(2f, scores(script).get(probe.id()), 1e-5f);

      // ids, terms, exists and a top-level min_score.
      assertEquals(
          new TreeSet<>(List.of(docs.get(1).id(), docs.get(2).id())),
          new TreeSet<>(
              ids(
                  search(
                      f,
                      "{\"query\":{\"ids\":{\"values\":["
                          + quote(docs.get(1).id())
                          + ","
                          + quote(docs.get(2).id())
                          + ",\"nope\"]}}}"))));
      assertEquals(
          matching(docs, d -> d.category().equals(probe.category())),
          new TreeSet<>(
              ids(
                  search(
                      f,
                      "{\"size\":300,\"query\":{\"terms\":{\"category\":["
                          + quote(probe.category())
                          + ",\"no-such-category\"]}}}"))));
      JsonNode min =
          search(
              f,
              "{\"size\":300,\"min_score\":1.5,\"query\":{\"match\":{\"title\":"
                  + quote(word)
                  + "}}}");
      assertTrue(scores(min).values().stream().allMatch(s -> s >= 1.5f), min.toString());
      assertEquals(scores(match).values().stream().filter(s -> s >= 1.5f).count(), ids(min).size());
    }
  }

  /** Embeds a corpus title as its document's vector. Thread-safe (read-only map). */
  private record TitleEmbedder(Map<String, float[]> vectors, int dimension) implements Embedder {
    @Override
    public String name() {
      return "titles";
    }

    @Override
    public float[] embed(String text) {
      float[] v = vectors.get(text);
      if (v == null) {
        throw new InvalidRequestException("not a title: " + text);
      }
      return v.clone();
    }

    @Override
    public List<float[]> embedAll(List<String> texts) {
      return texts.stream().map(this::embed).toList();
    }

    @Override
    public void close() {}
  }

  @Test
  void severalKnnSearchesEmbedTheirOwnTexts() throws Exception {
    SyntheticCorpus corpus = corpus("embed");
    Map<String, float[]> vectors = new LinkedHashMap<>();
    for (Document d : corpus.documents(DOCS)) {
      vectors.putIfAbsent(d.title(), d.embedding());
    }
    try (ServerFixture f =
        ServerFixture.start(
            TestStore.EXACT,
            ServerConfig.builder().port(0).build(),
            Optional.of(new TitleEmbedder(vectors, ServerFixture.DIMS)))) {
      List<Document> docs = f.load(corpus, DOCS);
      Document a = docs.get(3);
      Document b = docs.get(40);
      String byText =
          "{\"size\":6,\"knn\":[{\"field\":\"embedding\",\"k\":3,\"query_vector_builder\":"
              + "{\"text_embedding\":{\"model_id\":\"titles\",\"model_text\":"
              + quote(a.title())
              + "}}},{\"field\":\"embedding\",\"k\":3,\"query_vector_builder\":"
              + "{\"text_embedding\":{\"model_id\":\"titles\",\"model_text\":"
              + quote(b.title())
              + "}}}]}";
      String byVector =
          "{\"size\":6,\"knn\":[{\"field\":\"embedding\",\"k\":3,\"query_vector\":"
              + ServerFixture.vector(vectors.get(a.title()))
              + "},{\"field\":\"embedding\",\"k\":3,\"query_vector\":"
              + ServerFixture.vector(vectors.get(b.title()))
              + "}]}";
      JsonNode t = search(f, byText);
      assertEquals(scores(search(f, byVector)), scores(t));
      assertTrue(ids(t).contains(a.id()) && ids(t).contains(b.id()), t.toString());
      assertTrue(t.get("searchlab_timing").get("embed_ms").asDouble() > 0, t.toString());
    }
  }

  /**
   * A general query on the two stores: the reference store's answer once the store evaluates the
   * {@code Query} tree, and until then a 400 that says why, never a 500.
   */
  @ParameterizedTest
  @EnumSource(
      value = TestStore.class,
      names = {"SEGMENTED", "MUTABLE"})
  void generalQueriesOnTheStoresAnswerAsTheReferenceOrSayWhyNot(TestStore store) throws Exception {
    SyntheticCorpus corpus = corpus("general");
    String word = corpus.documents(DOCS).get(9).title().split(" ")[0];
    String body =
        "{\"size\":20,\"_source\":false,\"query\":{\"match\":{\"title\":" + quote(word) + "}}}";
    Map<String, Float> reference;
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      f.load(corpus, DOCS);
      reference = scores(search(f, body));
    }
    try (ServerFixture f = ServerFixture.start(store)) {
      f.load(corpus, DOCS);
      ServerFixture.Response r = f.send("POST", "/product/_search", body);
      if (r.status() == 200) {
        assertEquals(reference, scores(r.json()), "the store equals the reference");
      } else {
        assertEquals(400, r.status(), r.body());
        String reason = r.json().get("error").get("reason").asText();
        assertTrue(reason.contains("runs only the benchmark's request shape"), reason);
        assertTrue(reason.contains("issue 66"), reason);
        System.out.println(
            "[es-search] " + store + ": a match on one field is not run yet (" + reason + ")");
      }
    }
  }

  @Test
  void refusalsHaveElasticsearchsErrorShape() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      Object[][] cases = {
        {
          "{\"query\":{\"fuzzy\":{\"title\":\"x\"}}}",
          "parsing_exception",
          "unknown query type [fuzzy]"
        },
        {
          "{\"query\":{\"match\":{\"title\":{\"query\":\"x\",\"analyzer\":\"standard\"}}}}",
          "illegal_argument_exception",
          "[query.match.title.analyzer] is not supported"
        },
        {
          "{\"sort\":[{\"title\":\"asc\"}]}",
          "illegal_argument_exception",
          "Fielddata is disabled on [title]"
        },
        {
          "{\"query\":"
              + "{\"bool\":{\"must\":".repeat(31)
              + "{\"match_all\":{}}"
              + "}}".repeat(31)
              + "}",
          "parsing_exception",
          "deeper than the limit of 30"
        },
        {
          "{\"query\":{\"multi_match\":{\"query\":\"" + "w ".repeat(600) + "\"}}}",
          "illegal_argument_exception",
          "the limit is 1024 (max_clause_count)"
        },
      };
      for (Object[] c : cases) {
        ServerFixture.Response r = f.send("POST", "/product/_search", (String) c[0]);
        assertEquals(400, r.status(), r.body());
        JsonNode e = r.json();
        assertEquals(400, e.get("status").asInt());
        assertEquals(c[1], e.get("error").get("type").asText(), r.body());
        assertEquals(c[1], e.get("error").get("root_cause").get(0).get("type").asText());
        String reason = e.get("error").get("reason").asText();
        assertTrue(reason.contains((String) c[2]), reason);
      }
    }
  }
}
