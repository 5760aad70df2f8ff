package org.searchlab.server.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.searchlab.server.es.EsParse.search;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.ProductShape;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Query.Bool;
import org.searchlab.core.query.Query.Match;
import org.searchlab.core.query.Query.Term;
import org.searchlab.core.query.Rank;
import org.searchlab.core.query.Script;

/**
 * The search bodies LangChain's {@code ElasticsearchStore} (langchain-elasticsearch 1.0.0) and
 * Rally 2.13 send, as recorded against the server (the tools' notes): each strategy's body, key for
 * key and with the URL parameters they send, and the exact request it becomes. The recorded query
 * vectors had 384 numbers; here they have the first three of the recording, which changes nothing
 * the parser reads.
 */
class EsToolBodiesTest {
  private static final String LC_V1 =
      "[-0.024518518356971157, -0.10167117026549438, 0.0390569938188245]";
  private static final float[] V1 = {
    -0.024518518356971157f, -0.10167117026549438f, 0.0390569938188245f
  };
  private static final String LC_V2 =
      "[0.007858727193937803, -0.014684842208802736, 0.0350929108339495]";
  private static final float[] V2 = {
    0.007858727193937803f, -0.014684842208802736f, 0.0350929108339495f
  };
  private static final Query CLOTHES = Term.of("metadata.category.keyword", "clothes");
  private static final String[] LC_PARAMS = {"_source_includes", "metadata,text"};
  private static final EsSourceFilter LC_SOURCE =
      new EsSourceFilter(true, List.of("metadata", "text"), List.of());

  // ----------------------------------------------------------------------------------------------
  // LangChain

  @Test
  void langChainDenseVectorStrategy() {
    EsSearch filtered =
        search(
            "{\"knn\": {\"filter\": [{\"term\": {\"metadata.category.keyword\": \"clothes\"}}],"
                + " \"field\": \"vector\", \"k\": 2, \"num_candidates\": 50, \"query_vector\": "
                + LC_V1
                + "}, \"size\": 2, \"_source\": true}",
            LC_PARAMS);
    SearchRequest r = filtered.request();
    assertNull(r.query());
    assertEquals(List.of(new Knn("vector", V1, 2, 50, CLOTHES, null, 1f, 0)), r.knn());
    assertEquals(Rank.SUM, r.rank());
    assertEquals(2, r.hits());
    assertEquals(LC_SOURCE, filtered.source());

    EsSearch unfiltered =
        search(
            "{\"knn\": {\"filter\": [], \"field\": \"vector\", \"k\": 3, \"num_candidates\": 50,"
                + " \"query_vector\": "
                + LC_V2
                + "}, \"size\": 3, \"_source\": true}",
            LC_PARAMS);
    assertEquals(
        List.of(new Knn("vector", V2, 3, 50, Query.MatchAll.INSTANCE, null, 1f, 0)),
        unfiltered.request().knn());
  }

  @Test
  void langChainHybridStrategyWithRrf() {
    String body =
        "{\"retriever\": {\"rrf\": {\"retrievers\": ["
            + "{\"standard\": {\"query\": {\"bool\": {\"must\": [{\"match\": {\"text\": {\"query\":"
            + " \"red\"}}}], \"filter\": [{\"term\": {\"metadata.category.keyword\":"
            + " \"clothes\"}}]}}}},"
            + " {\"knn\": {\"filter\": [{\"term\": {\"metadata.category.keyword\": \"clothes\"}}],"
            + " \"field\": \"vector\", \"k\": 2, \"num_candidates\": 50, \"query_vector\": "
            + LC_V1
            + "}}]%s}}, \"size\": 2, \"_source\": true}";
    EsSearch s = search(String.format(body, ""), LC_PARAMS);
    SearchRequest r = s.request();
    assertEquals(
        new Bool(
            List.of(Match.of("text", "red")), List.of(CLOTHES), List.of(), List.of(), null, 1f),
        r.query());
    assertEquals(List.of(new Knn("vector", V1, 2, 50, CLOTHES, null, 1f, 0)), r.knn());
    assertEquals(Rank.rrf(60, 10), r.rank());
    assertEquals(2, r.hits());
    assertEquals(LC_SOURCE, s.source());
    assertEquals("hybrid", s.queryType());
    // DenseVectorStrategy(hybrid=True, rrf={...}) with either window name.
    assertEquals(
        Rank.rrf(20, 40),
        search(String.format(body, ", \"rank_constant\": 20, \"rank_window_size\": 40"), LC_PARAMS)
            .request()
            .rank());
    assertEquals(
        Rank.rrf(20, 40),
        search(String.format(body, ", \"rank_constant\": 20, \"window_size\": 40"), LC_PARAMS)
            .request()
            .rank());
  }

  @Test
  void langChainHybridStrategyWithoutRrfSums() {
    EsSearch s =
        search(
            "{\"knn\": {\"filter\": [{\"term\": {\"metadata.category.keyword\": \"clothes\"}}],"
                + " \"field\": \"vector\", \"k\": 2, \"num_candidates\": 50, \"query_vector\": "
                + LC_V1
                + "}, \"query\": {\"bool\": {\"must\": [{\"match\": {\"text\": {\"query\":"
                + " \"red\"}}}], \"filter\": [{\"term\": {\"metadata.category.keyword\":"
                + " \"clothes\"}}]}}, \"size\": 2, \"_source\": true}",
            LC_PARAMS);
    assertEquals(
        new Bool(
            List.of(Match.of("text", "red")), List.of(CLOTHES), List.of(), List.of(), null, 1f),
        s.request().query());
    assertEquals(List.of(new Knn("vector", V1, 2, 50, CLOTHES, null, 1f, 0)), s.request().knn());
    assertEquals(Rank.SUM, s.request().rank());
  }

  @Test
  void langChainBm25Strategy() {
    EsSearch filtered =
        search(
            "{\"query\": {\"bool\": {\"must\": [{\"match\": {\"text\": {\"query\": \"red\"}}}],"
                + " \"filter\": [{\"term\": {\"metadata.category.keyword\": \"clothes\"}}]}},"
                + " \"size\": 2, \"_source\": true}",
            LC_PARAMS);
    assertEquals(
        new Bool(
            List.of(Match.of("text", "red")), List.of(CLOTHES), List.of(), List.of(), null, 1f),
        filtered.request().query());
    assertEquals(List.of(), filtered.request().knn());
    EsSearch unfiltered =
        search(
            "{\"query\": {\"bool\": {\"must\": [{\"match\": {\"text\": {\"query\": \"red shoe\"}}}],"
                + " \"filter\": []}}, \"size\": 3, \"_source\": true}",
            LC_PARAMS);
    assertEquals(
        new Bool(List.of(Match.of("text", "red shoe")), List.of(), List.of(), List.of(), null, 1f),
        unfiltered.request().query());
    assertEquals(3, unfiltered.request().hits());
  }

  @Test
  void langChainScriptScoreStrategies() {
    String cosine = "cosineSimilarity(params.query_vector, 'vector') + 1.0";
    String dot =
        "\n            double value = dotProduct(params.query_vector, 'vector');\n"
            + "            return sigmoid(1, Math.E, -value);\n            ";
    String l2 = "1 / (1 + l2norm(params.query_vector, 'vector'))";
    Query filter = new Bool(List.of(), List.of(CLOTHES), List.of(), List.of(), null, 1f);
    for (String source : List.of(cosine, dot, l2)) {
      String json = org.searchlab.server.Json.MAPPER.valueToTree(source).toString();
      EsSearch s =
          search(
              "{\"query\": {\"script_score\": {\"query\": {\"bool\": {\"filter\": [{\"term\":"
                  + " {\"metadata.category.keyword\": \"clothes\"}}]}}, \"script\": {\"source\": "
                  + json
                  + ", \"params\": {\"query_vector\": "
                  + LC_V1
                  + "}}}}, \"size\": 2, \"_source\": true}",
              LC_PARAMS);
      Script script = Script.parse(source, Map.of("query_vector", toDoubles(V1)));
      assertEquals(new Query.ScriptScore(filter, script, null, 1f), s.request().query(), source);
      assertEquals(List.of(), s.request().knn());
      EsSearch all =
          search(
              "{\"query\": {\"script_score\": {\"query\": {\"match_all\": {}}, \"script\":"
                  + " {\"source\": "
                  + json
                  + ", \"params\": {\"query_vector\": "
                  + LC_V2
                  + "}}}}, \"size\": 3, \"_source\": true}",
              LC_PARAMS);
      assertEquals(
          new Query.ScriptScore(
              Query.MatchAll.INSTANCE,
              Script.parse(source, Map.of("query_vector", toDoubles(V2))),
              null,
              1f),
          all.request().query());
    }
  }

  private static double[] toDoubles(float[] v) {
    double[] d = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      d[i] = v[i];
    }
    return d;
  }

  // ----------------------------------------------------------------------------------------------
  // Rally

  @Test
  void rallyTrackSearches() {
    assertEquals(
        Match.of("title", "red shoe"),
        search("{\"query\": {\"match\": {\"title\": \"red shoe\"}}}").request().query());

    SearchRequest bool =
        search(
                "{\"size\": 5, \"query\": {\"bool\": {\"must\": [{\"match\": {\"description\":"
                    + " \"wool jacket\"}}], \"filter\": [{\"term\": {\"category\": \"clothes\"}},"
                    + " {\"range\": {\"price\": {\"gte\": 10, \"lte\": 400}}}]}}}")
            .request();
    assertEquals(
        new Bool(
            List.of(Match.of("description", "wool jacket")),
            List.of(
                Term.of("category", "clothes"),
                new Query.Range("price", null, 10L, null, 400L, null, 1f)),
            List.of(),
            List.of(),
            null,
            1f),
        bool.query());
    assertEquals(5, bool.hits());

    EsSearch range = search("{\"query\": {\"range\": {\"price\": {\"gte\": 100}}}}");
    assertEquals(
        new Query.Range("price", null, 100L, null, null, null, 1f), range.request().query());
    assertEquals("unranked", range.queryType());

    float[] rv = {-0.072119f, 0.019485f, 0.038199f};
    EsSearch knn =
        search(
            "{\"size\": 10, \"_source\": [\"title\"], \"knn\": {\"field\": \"embedding\","
                + " \"query_vector\": [-0.072119, 0.019485, 0.038199], \"k\": 10,"
                + " \"num_candidates\": 50, \"filter\": {\"term\": {\"category\": \"shoes\"}}}}");
    assertEquals(
        List.of(new Knn("embedding", rv, 10, 50, Term.of("category", "shoes"), null, 1f, 0)),
        knn.request().knn());
    assertEquals(new EsSourceFilter(true, List.of("title"), List.of()), knn.source());
    assertEquals(
        "shoes",
        ProductShape.of(knn.request()).orElseThrow().filter().category(),
        "the knn body keeps the stores' fast path");
  }

  @Test
  void rallysMlTelemetrySearchParsesWithItsAggregations() {
    // Rally's MlBucketProcessingTime sends this to .ml-anomalies-*; an index pattern that matches
    // nothing answers 200 before the body is read, and on an index the body is a terms aggregation.
    SearchRequest r =
        EsParse.request(
            "{\"size\": 0, \"query\": {\"bool\": {\"must\": [{\"term\": {\"result_type\":"
                + " \"bucket\"}}]}}, \"aggs\": {\"jobs\": {\"terms\": {\"field\": \"job_id\"}}}}");
    assertEquals(
        org.searchlab.core.agg.Aggregation.Terms.of("job_id"), r.aggregations().get("jobs"));
  }
}
