package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Hit;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.query.Query;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * The oracle reads the documents a text query can match from the postings instead of scoring all of
 * them: its answers must be those of scoring every live document, for {@code match} (either
 * operator), {@code multi_match} (best and most fields, over text and keyword fields), and {@code
 * bool} with and without a scoring {@code must}, on a corpus with replaced and deleted documents.
 */
class ExactQueriesCandidatesTest {
  @Test
  void narrowedAnswersAreTheAnswersOfScoringEveryDocument() {
    long seed = TestSeeds.seed("ExactQueriesCandidatesTest");
    CatalogCorpus data = new CatalogCorpus(seed);
    ExactCorpus corpus = new ExactCorpus(CatalogCorpus.mapping(), TextAnalysis.NAME);
    for (var d : data.documents(400)) {
      corpus.put(d);
    }
    // Replaced and deleted documents leave dead ordinals in the postings.
    for (int i = 0; i < 40; i++) {
      corpus.put(data.document(i * 3));
      corpus.remove("item-" + (i * 7 + 1));
    }
    SplittableRandom r = new SplittableRandom(seed);
    int nonEmpty = 0;
    for (int q = 0; q < 60; q++) {
      String text = data.text(r, 1 + r.nextInt(4));
      List<Query> queries = new ArrayList<>();
      queries.add(Query.Match.of("body", text));
      queries.add(new Query.Match("name", text, Query.Operator.AND, null, 1f));
      queries.add(Query.MultiMatch.bestFields(text, List.of("name", "body", "meta.notes")));
      queries.add(
          new Query.MultiMatch(
              text,
              List.of(new Query.FieldBoost("name", 2f), new Query.FieldBoost("body.raw", 1f)),
              Query.MultiMatchType.MOST_FIELDS,
              0f,
              Query.Operator.OR,
              null,
              1f));
      queries.add(
          Query.Bool.filtered(
              Query.MultiMatch.bestFields(text, List.of("name", "body")),
              List.of(Query.Term.of("brand", CatalogCorpus.BRANDS[r.nextInt(3)]))));
      queries.add(
          new Query.Bool(
              List.of(), List.of(), List.of(Query.Match.of("body", text)), List.of(), null, 1f));
      for (Query query : queries) {
        SearchRequest req = SearchRequest.builder().query(query).hits(10_000).build();
        ExactQueries oracle = new ExactQueries(corpus, corpus.mapping());
        List<Hit> narrowed = oracle.search(req).ranked();
        List<Hit> all = new ArrayList<>();
        for (int ord = 0; ord < corpus.ordinals(); ord++) {
          if (corpus.at(ord) != null) {
            double s = oracle.score(query, ord, 1f);
            if (!Double.isNaN(s)) {
              all.add(new Hit(corpus.at(ord).id(), (float) s));
            }
          }
        }
        all.sort(ExactCorpus.BY_SCORE);
        assertEquals(all, narrowed, query.toString());
        nonEmpty += all.isEmpty() ? 0 : 1;
      }
    }
    assertTrue(nonEmpty > 100, "the queries match something: " + nonEmpty);
  }
}
