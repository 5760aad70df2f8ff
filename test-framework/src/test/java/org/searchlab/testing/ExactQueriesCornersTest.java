package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Hit;
import org.searchlab.core.Operation;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Script;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * Two corners where the oracle follows Elasticsearch's Lucene queries: a bool without a required
 * clause needs one should clause even when {@code minimum_should_match} is 0 (Lucene's pure
 * disjunction), and {@code script_score}'s {@code min_score} is compared with the boosted score
 * (Elasticsearch's MinScoreScorer wraps the scorer that multiplied the boost in).
 */
class ExactQueriesCornersTest {
  @TempDir Path tmp;

  @Test
  void shouldOnlyBoolsAndMinScoreFollowElasticsearch() throws IOException {
    long seed =
        TestSeeds.seed("ExactQueriesCornersTest.shouldOnlyBoolsAndMinScoreFollowElasticsearch");
    CatalogCorpus corpus = new CatalogCorpus(seed);
    try (ExactIndex oracle =
        ExactIndex.open(tmp.resolve("o"), CatalogCorpus.settings(), CatalogCorpus.mapping())) {
      oracle.bulk(corpus.documents(300).stream().map(Operation::put).toList());
      List<Query> should = List.of(Query.Term.of("brand", "acme"), Query.Term.of("tags", "red"));
      long anyOf =
          search(oracle, new Query.Bool(List.of(), List.of(), should, List.of(), null, 1f))
              .total()
              .value();
      SearchResult zero =
          search(oracle, new Query.Bool(List.of(), List.of(), should, List.of(), "0", 1f));
      assertEquals(anyOf, zero.total().value(), "msm 0 still needs one should clause");
      assertTrue(anyOf < 300, "seed " + seed + ": some documents match neither clause");

      float[] v = corpus.imgQuery(new SplittableRandom(seed));
      double[] params = new double[v.length];
      for (int i = 0; i < v.length; i++) {
        params[i] = v[i];
      }
      Script script =
          Script.parse(
              "cosineSimilarity(params.query_vector, 'img') + 1.0", Map.of("query_vector", params));
      Query inner = new Query.Exists("img", 1f);
      SearchResult all = search(oracle, new Query.ScriptScore(inner, script, null, 2f));
      SearchResult floor = search(oracle, new Query.ScriptScore(inner, script, 2.5f, 2f));
      long expected = all.hits().stream().filter(h -> h.score() >= 2.5f).count();
      assertEquals(expected, floor.total().value(), "min_score against the boosted score");
      for (Hit h : floor.hits()) {
        assertTrue(h.score() >= 2.5f, h.toString());
      }
    }
  }

  private static SearchResult search(ExactIndex oracle, Query q) {
    return oracle.search(SearchRequest.builder().query(q).hits(1000).build());
  }
}
