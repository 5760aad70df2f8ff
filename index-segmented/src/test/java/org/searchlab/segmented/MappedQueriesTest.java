package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingException;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Rank;
import org.searchlab.core.query.Script;
import org.searchlab.testing.ExactIndex;
import org.searchlab.testing.SearchAssertions;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * Corners of the query translation the random conformance suite rarely reaches, each against the
 * oracle: should-only bools with {@code minimum_should_match} 0, must_not-only and empty bools,
 * {@code min_score} with a boost, most-fields and wildcard {@code multi_match}, terms on numbers,
 * keyword ranges, exists on an object, the kNN {@code similarity} threshold and boost, RRF with its
 * own constant; and the store's refusals (kNN dimensions Lucene cannot index, a format-1
 * directory).
 */
class MappedQueriesTest {
  @TempDir Path tmp;

  private static void feed(SearchIndex index, List<Document> docs) throws IOException {
    List<Operation> ops = new ArrayList<>();
    for (Document d : docs) {
      ops.add(Operation.put(d));
    }
    for (BulkItemResult r : index.bulk(ops)) {
      assertFalse(r.failed(), () -> String.valueOf(r.error()));
    }
    index.refresh();
  }

  @Test
  void cornersMatchTheOracle() throws IOException {
    long seed = TestSeeds.seed("MappedQueriesTest.cornersMatchTheOracle");
    SplittableRandom random = new SplittableRandom(seed);
    CatalogCorpus corpus = new CatalogCorpus(seed);
    List<Document> docs = corpus.documents(400);
    try (SearchIndex index =
            LuceneSegmentedIndex.open(
                tmp.resolve("idx"),
                CatalogCorpus.settings(),
                CatalogCorpus.mapping(),
                SegmentedConfig.DEFAULT);
        ExactIndex oracle =
            ExactIndex.open(
                tmp.resolve("oracle"), CatalogCorpus.settings(), CatalogCorpus.mapping())) {
      feed(index, docs);
      feed(oracle, docs);
      Query body = new Query.Match("body", corpus.text(random, 3), Query.Operator.OR, null, 1f);
      float[] v = corpus.imgQuery(random);
      Map<String, Object> params = Map.of("query_vector", toDoubles(v));
      List<Query> queries =
          List.of(
              new Query.Bool(
                  List.of(),
                  List.of(),
                  List.of(Query.Term.of("brand", "acme"), body),
                  List.of(),
                  "0",
                  1f),
              new Query.Bool(
                  List.of(),
                  List.of(),
                  List.of(body),
                  List.of(Query.Term.of("brand", "acme")),
                  null,
                  2f),
              new Query.Bool(
                  List.of(), List.of(), List.of(), List.of(Query.Term.of("tags", "red")), null, 1f),
              new Query.Bool(List.of(), List.of(), List.of(), List.of(), null, 3f),
              new Query.ScriptScore(
                  new Query.Exists("img", 1f),
                  Script.parse("cosineSimilarity(params.query_vector, 'img') + 1.0", params),
                  2.5f,
                  2f),
              new Query.MultiMatch(
                  corpus.text(random, 2),
                  List.of(new Query.FieldBoost("b*", 2f), new Query.FieldBoost("name", 1f)),
                  Query.MultiMatchType.MOST_FIELDS,
                  0f,
                  Query.Operator.OR,
                  null,
                  1.5f),
              new Query.MultiMatch(
                  corpus.text(random, 2),
                  List.of(new Query.FieldBoost("body", 1f), new Query.FieldBoost("meta.notes", 3f)),
                  Query.MultiMatchType.BEST_FIELDS,
                  0.3f,
                  Query.Operator.AND,
                  null,
                  1f),
              new Query.Terms("stock", List.of(1L, 5L, 100L, 250L, 400L), 1f),
              new Query.Terms("rating", List.of(1.5, 3.0, 4.5), 1f),
              new Query.Range("brand", "b", null, null, "initech", null, 1f),
              new Query.Exists("meta", 1f),
              new Query.Exists("label.keyword", 1f),
              Query.Term.of("body.raw", "nothing"),
              Query.Term.of("released", docs.get(7).value("released")),
              new Query.DisMax(
                  List.of(body, Query.Term.of("tags", "sale"), Query.Term.of("available", true)),
                  0.5f,
                  1f),
              new Query.Ids(Set.of("item-1", "item-2", "item-399", "nope"), 4f));
      for (Query q : queries) {
        SearchRequest req = SearchRequest.builder().query(q).hits(50).build();
        String what = "seed " + seed + ": " + q;
        SearchAssertions.assertSameScores(oracle.search(req), index.search(req), what);
        assertEquals(oracle.search(req).total(), index.search(req).total(), what);
      }
      // kNN: the similarity threshold (after the merge) and the boost.
      for (VectorSimilarity sim : List.of(VectorSimilarity.COSINE, VectorSimilarity.L2_NORM)) {
        String field = sim == VectorSimilarity.COSINE ? "img" : "txt";
        float[] q = field.equals("img") ? v : corpus.txtQuery(random);
        Float threshold = sim == VectorSimilarity.COSINE ? 0.5f : 4f;
        Knn knn = new Knn(field, q, 30, 400, Query.MatchAll.INSTANCE, threshold, 2f, 0);
        SearchRequest req = SearchRequest.builder().addKnn(knn).approximate(false).hits(30).build();
        SearchAssertions.assertSameScores(oracle.search(req), index.search(req), "knn " + sim);
      }
      // RRF with its own constant and window, over the store's own parts (ties at a window's cut
      // are ordered by doc id in the store and by id in the oracle, so the parts are the store's).
      Knn exact = new Knn("img", v, 15, 15, Query.MatchAll.INSTANCE, null, 1f, 0);
      List<org.searchlab.core.Hit> lexical =
          index.search(SearchRequest.builder().query(body).hits(15).build()).hits();
      List<org.searchlab.core.Hit> vector =
          index
              .search(SearchRequest.builder().addKnn(exact).approximate(false).hits(15).build())
              .hits();
      Map<String, Float> fused = new java.util.HashMap<>();
      for (List<org.searchlab.core.Hit> part : List.of(lexical, vector)) {
        for (int i = 0; i < part.size(); i++) {
          fused.merge(part.get(i).id(), 1f / (7 + i + 1), Float::sum);
        }
      }
      List<org.searchlab.core.Hit> expected = new ArrayList<>();
      fused.forEach((id, score) -> expected.add(new org.searchlab.core.Hit(id, score)));
      expected.sort(org.searchlab.testing.ExactCorpus.BY_SCORE);
      SearchRequest rrf =
          SearchRequest.builder()
              .query(body)
              .addKnn(exact)
              .approximate(false)
              .rank(Rank.rrf(7, 15))
              .hits(10)
              .build();
      org.searchlab.core.SearchResult actual = index.search(rrf);
      SearchAssertions.assertSameScores(
          new org.searchlab.core.SearchResult(
              expected.subList(0, Math.min(10, expected.size())),
              org.searchlab.core.TotalHits.exact(expected.size()),
              org.searchlab.core.QueryPlan.EMPTY,
              new org.searchlab.core.Timings(0, 0, 0, 0)),
          actual,
          "rrf, seed " + seed);
      assertEquals(oracle.search(rrf).total(), actual.total(), "rrf total = |query ∪ knn|");
    }
  }

  @Test
  void aVectorFieldWithoutIndexIsScannedExactly() throws IOException {
    long seed = TestSeeds.seed("MappedQueriesTest.aVectorFieldWithoutIndexIsScannedExactly");
    SplittableRandom random = new SplittableRandom(seed);
    Mapping mapping =
        CatalogCorpus.mapping()
            .with(
                "flat",
                new FieldType.DenseVector(
                    3, VectorSimilarity.L2_NORM, false, FieldType.IndexOptions.DEFAULT));
    CatalogCorpus corpus = new CatalogCorpus(seed);
    List<Document> docs = new ArrayList<>();
    for (Document d : corpus.documents(300)) {
      Map<String, Object> source = new java.util.LinkedHashMap<>(d.source());
      if (random.nextInt(5) > 0) {
        source.put(
            "flat", new float[] {(float) random.nextDouble(), (float) random.nextDouble(), 1f});
      }
      docs.add(d.withSource(source));
    }
    try (SearchIndex index =
            LuceneSegmentedIndex.open(
                tmp.resolve("idx"), CatalogCorpus.settings(), mapping, SegmentedConfig.DEFAULT);
        ExactIndex oracle =
            ExactIndex.open(tmp.resolve("oracle"), CatalogCorpus.settings(), mapping)) {
      feed(index, docs);
      feed(oracle, docs);
      // Deleted documents are never scanned.
      for (int i = 0; i < 300; i += 4) {
        index.delete("item-" + i);
        oracle.delete("item-" + i);
      }
      index.refresh();
      for (int q = 0; q < 10; q++) {
        float[] v = {(float) random.nextDouble(), (float) random.nextDouble(), 1f};
        Query filter = q % 2 == 0 ? Query.MatchAll.INSTANCE : Query.Term.of("brand", "acme");
        Knn knn = new Knn("flat", v, 10, 10, filter, q % 3 == 0 ? 0.3f : null, 1.5f, 0);
        SearchRequest req = SearchRequest.builder().addKnn(knn).approximate(false).build();
        SearchAssertions.assertSameScores(oracle.search(req), index.search(req), "seed " + seed);
        assertEquals(oracle.search(req).total(), index.search(req).total());
      }
      SearchRequest approximate =
          SearchRequest.builder()
              .addKnn(
                  new Knn(
                      "flat", new float[] {0, 0, 1}, 10, 10, Query.MatchAll.INSTANCE, null, 1f, 0))
              .build();
      assertThrows(InvalidRequestException.class, () -> index.search(approximate));
    }
  }

  /**
   * Fields of Elasticsearch's {@code int4_hnsw} and {@code bbq_hnsw} in a mapping (the store's
   * default being floats): the graph search on their codes is rescored with the floats, so every
   * approximate hit carries the exact score the oracle gives the same document.
   */
  @Test
  void int4AndBbqFieldsReturnExactScores() throws IOException {
    long seed = TestSeeds.seed("MappedQueriesTest.int4AndBbqFieldsReturnExactScores");
    SplittableRandom random = new SplittableRandom(seed);
    int dims = 64;
    Map<String, FieldType> fields = new java.util.LinkedHashMap<>();
    for (String[] f : new String[][] {{"q4", "int4_hnsw"}, {"q1", "bbq_hnsw"}}) {
      fields.put(
          f[0],
          new FieldType.DenseVector(
              dims, VectorSimilarity.COSINE, true, new FieldType.IndexOptions(f[1], 0, 0)));
    }
    Mapping mapping = Mapping.of(fields);
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      docs.add(
          new Document(
              "d" + i, Map.of("q4", gaussian(random, dims), "q1", gaussian(random, dims))));
    }
    try (SearchIndex index =
            LuceneSegmentedIndex.open(
                tmp.resolve("idx"), CatalogCorpus.settings(), mapping, SegmentedConfig.DEFAULT);
        ExactIndex oracle =
            ExactIndex.open(tmp.resolve("oracle"), CatalogCorpus.settings(), mapping)) {
      feed(index, docs);
      feed(oracle, docs);
      for (int q = 0; q < 10; q++) {
        for (String field : fields.keySet()) {
          float[] v = gaussian(random, dims);
          Map<String, Float> exact = new java.util.HashMap<>();
          Knn all =
              new Knn(field, v, docs.size(), docs.size(), Query.MatchAll.INSTANCE, null, 1f, 0);
          for (org.searchlab.core.Hit h :
              oracle
                  .search(
                      SearchRequest.builder()
                          .addKnn(all)
                          .approximate(false)
                          .hits(docs.size())
                          .build())
                  .hits()) {
            exact.put(h.id(), h.score());
          }
          Knn knn = new Knn(field, v, 10, 10, Query.MatchAll.INSTANCE, null, 1f, 0);
          List<org.searchlab.core.Hit> hits =
              index.search(SearchRequest.builder().addKnn(knn).hits(10).build()).hits();
          assertEquals(10, hits.size(), field);
          for (org.searchlab.core.Hit h : hits) {
            assertEquals(
                exact.get(h.id()), h.score(), 1e-5, "seed " + seed + ": " + field + " " + h.id());
          }
        }
      }
    }
  }

  private static float[] gaussian(SplittableRandom random, int dims) {
    float[] v = new float[dims];
    for (int i = 0; i < dims; i++) {
      v[i] = (float) random.nextGaussian();
    }
    return v;
  }

  @Test
  void vectorFieldsLuceneCannotIndexAreRefusedBeforeTheMappingChanges() throws IOException {
    try (SearchIndex index =
        LuceneSegmentedIndex.open(
            tmp.resolve("idx"),
            CatalogCorpus.settings(),
            CatalogCorpus.mapping(),
            SegmentedConfig.DEFAULT)) {
      Mapping before = index.mapping();
      assertThrows(
          MappingException.class,
          () ->
              index.putMapping(
                  Mapping.of(
                      Map.of(
                          "big",
                          new FieldType.DenseVector(
                              2048,
                              VectorSimilarity.COSINE,
                              true,
                              FieldType.IndexOptions.DEFAULT)))));
      double[] big = new double[2048];
      java.util.Arrays.fill(big, 0.5);
      InvalidRequestException e =
          assertThrows(
              InvalidRequestException.class,
              () -> index.put(new Document("x", Map.of("dyn", big))));
      assertTrue(e.getMessage().contains("dimensions"), e.getMessage());
      assertEquals(before, index.mapping(), "nothing added");
      assertTrue(index.get("x").isEmpty());
    }
  }

  @Test
  void aBulkItemLuceneRefusesFailsAlone() throws IOException {
    try (SearchIndex index =
        LuceneSegmentedIndex.open(
            tmp.resolve("idx"),
            CatalogCorpus.settings(),
            CatalogCorpus.mapping(),
            SegmentedConfig.DEFAULT)) {
      String huge = "x".repeat(40_000); // over Lucene's 32766-byte term limit
      List<BulkItemResult> results =
          index.bulk(
              List.of(
                  Operation.put(new Document("a", Map.of("brand", "acme"))),
                  Operation.put(new Document("b", Map.of("brand", huge))),
                  Operation.put(new Document("c", Map.of("brand", "hooli")))));
      assertFalse(results.get(0).failed());
      assertTrue(results.get(1).failed());
      assertFalse(results.get(2).failed());
      assertTrue(index.get("b").isEmpty());
      index.refresh();
      assertEquals(2, index.stats().docCount());
    }
  }

  @Test
  void theIndexRefreshIntervalSetsTheStoresSchedule() {
    SegmentedConfig config = SegmentedConfig.DEFAULT;
    assertEquals(
        config, LuceneSegmentedIndex.withRefreshInterval(config, CatalogCorpus.settings()));
    assertEquals(
        SegmentedConfig.REFRESH_DISABLED,
        LuceneSegmentedIndex.withRefreshInterval(config, refreshEvery("-1")).refreshIntervalMs());
    assertEquals(
        250,
        LuceneSegmentedIndex.withRefreshInterval(config, refreshEvery("250ms"))
            .refreshIntervalMs());
    assertEquals(
        3_600_000,
        LuceneSegmentedIndex.withRefreshInterval(config, refreshEvery("2h")).refreshIntervalMs(),
        "clamped to the store's range");
  }

  @Test
  void aDirectoryOfTheBenchmarksFieldsOnlyIsRefused() throws IOException {
    Path dir = tmp.resolve("old");
    try (SearchIndex old = LuceneSegmentedIndex.open(dir, new org.searchlab.core.Schema(8))) {
      old.put(new Document("a", "t", "d", "c", 1, 1f, null));
    }
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                LuceneSegmentedIndex.open(
                    dir,
                    CatalogCorpus.settings(),
                    CatalogCorpus.mapping(),
                    SegmentedConfig.DEFAULT));
    assertTrue(e.getMessage().contains("feed the documents again"), e.getMessage());
  }

  @Test
  void aWholeNumberOfAnIndexFalseFieldIsRewrittenInPlace() throws IOException {
    Path dir = tmp.resolve("dv");
    SegmentedConfig config =
        SegmentedConfig.builder().partialUpdateMode(PartialUpdateMode.DOCVALUES).build();
    Document doc = new Document("p1", "red shoe", "a shoe", "shoes", 10, 4.5f, null);
    Document updated;
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(
            dir, org.searchlab.core.mapping.IndexSettings.DEFAULT, Mapping.product(8), config)) {
      index.put(doc);
      index.put(new Document("p2", "blue shoe", "a shoe", "shoes", 30, 3f, null));
      index.refresh();
      org.searchlab.core.PartialUpdate u =
          org.searchlab.core.PartialUpdate.of("p1").with("price", 25L);
      index.update(u);
      updated = u.applyTo(doc);
      assertEquals(1L, index.stats().counters().get("docvalues_updates"), "rewritten in place");
      assertEquals(updated, index.get("p1").orElseThrow(), "real-time get");
      index.refresh();
      assertEquals(updated, index.get("p1").orElseThrow(), "the source read over the doc values");
      SearchRequest byPrice =
          SearchRequest.builder()
              .filter(
                  org.searchlab.core.Filter.ALL.withPrice(
                      new org.searchlab.core.Filter.PriceRange(20, 26)))
              .fetchDocuments(true)
              .build();
      var both = index.searcher().searchBothWays(byPrice);
      for (var r : both) {
        assertEquals(List.of("p1"), r.ids());
        assertEquals(updated, r.hits().get(0).document());
      }
      // A fraction, or a field that is indexed, re-indexes the document.
      index.update(org.searchlab.core.PartialUpdate.of("p1").with("title", "green shoe"));
      assertEquals(1L, index.stats().counters().get("docvalues_updates"));
      updated =
          org.searchlab.core.PartialUpdate.of("p1").with("title", "green shoe").applyTo(updated);
    }
    try (LuceneSegmentedIndex reopened =
        LuceneSegmentedIndex.open(
            dir, org.searchlab.core.mapping.IndexSettings.DEFAULT, Mapping.product(8), config)) {
      assertEquals(updated, reopened.get("p1").orElseThrow(), "after a reopen");
    }
  }

  private static org.searchlab.core.mapping.IndexSettings refreshEvery(String interval) {
    return org.searchlab.core.mapping.IndexSettings.parse(
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
            .objectNode()
            .put("refresh_interval", interval));
  }

  private static double[] toDoubles(float[] v) {
    double[] d = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      d[i] = v[i];
    }
    return d;
  }
}
