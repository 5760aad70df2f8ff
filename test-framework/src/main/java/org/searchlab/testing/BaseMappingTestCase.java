// Over 500 lines: the second half of the conformance suite, every part of the mapping contract
// (types, dynamic mapping, every query type, kNN per similarity, fusion, scripts, updates, errors,
// durability) against the oracle, kept in one suite so that every store runs exactly the same.
package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Hit;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingException;
import org.searchlab.core.mapping.NumberType;
import org.searchlab.core.mapping.VectorSimilarity;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Rank;
import org.searchlab.core.query.Script;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * The conformance suite over a mapping other than the benchmark's ({@link CatalogCorpus}): every
 * store subclasses it beside {@link BaseSearchIndexTestCase} and passes it unchanged. It checks,
 * against the {@link ExactIndex} oracle over the same mapping: the mapping documents grow by
 * dynamic mapping; every query type on every field type (scores within {@link
 * SearchAssertions#SCORE_TOLERANCE}, ties in any order, and totals); kNN on a {@code cosine} and an
 * {@code l2_norm} field (recall@10 ≥ {@value #MIN_RECALL}, tie-aware, and exact scores); fusion by
 * sum and by reciprocal rank; {@code script_score}; partial updates of every kind of field;
 * deletes; the mapping and the documents surviving a reopen; {@code PUT _mapping}; and bad
 * documents refused with Elasticsearch's error types, nothing applied. Seeds are printed; {@code
 * -Dtests.seed} reproduces one.
 */
public abstract class BaseMappingTestCase {
  protected static final double MIN_RECALL = 0.95;
  protected static final float TOLERANCE = SearchAssertions.SCORE_TOLERANCE;

  @TempDir protected Path tmp;
  protected long seed;
  protected SplittableRandom random;
  protected CatalogCorpus corpus;
  private final List<SearchIndex> opened = new ArrayList<>();

  /**
   * Opens the store under test in {@code dir} with {@code mapping} and {@code settings}, creating
   * it or reopening what an earlier call left there.
   */
  protected abstract SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException;

  @BeforeEach
  void seedTest(TestInfo info) {
    seed = TestSeeds.seed(getClass().getSimpleName() + "." + info.getDisplayName());
    random = new SplittableRandom(seed);
    corpus = new CatalogCorpus(seed);
  }

  @AfterEach
  void closeAll() throws IOException {
    for (SearchIndex i : opened) {
      try {
        i.close();
      } catch (IllegalStateException alreadyClosed) {
        // closed by the test itself
      }
    }
  }

  private SearchIndex open(Path dir) throws IOException {
    SearchIndex index = openIndex(dir, CatalogCorpus.settings(), CatalogCorpus.mapping());
    opened.add(index);
    return index;
  }

  private ExactIndex oracle(List<Document> docs) throws IOException {
    ExactIndex o =
        ExactIndex.open(
            tmp.resolve("oracle-" + opened.size()),
            CatalogCorpus.settings(),
            CatalogCorpus.mapping());
    opened.add(o);
    feed(o, docs);
    return o;
  }

  private static void feed(SearchIndex index, List<Document> docs) throws IOException {
    for (int from = 0; from < docs.size(); from += 400) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : docs.subList(from, Math.min(docs.size(), from + 400))) {
        ops.add(Operation.put(d));
      }
      for (BulkItemResult r : index.bulk(ops)) {
        assertFalse(r.failed(), () -> "bulk item failed: " + r.error());
      }
    }
    index.refresh();
  }

  // ---------------------------------------------------------------------------------------------
  // The mapping

  @Test
  public void dynamicMappingGrowsAsTheOraclesDoes() throws IOException {
    List<Document> docs = corpus.documents(300);
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, docs);
    ExactIndex oracle = oracle(docs);
    assertEquals(oracle.mapping(), index.mapping(), "seed " + seed);
    Mapping m = index.mapping();
    assertTrue(m.leaf("label") instanceof FieldType.Text, "a string becomes text");
    assertTrue(m.leaf("label.keyword") instanceof FieldType.Keyword, "with a keyword subfield");
    assertEquals(
        new FieldType.Numeric(NumberType.FLOAT, true, true),
        m.leaf("extra.score"),
        "a fraction becomes a float");
  }

  @Test
  public void mappingAndDocumentsSurviveAReopen() throws IOException {
    List<Document> docs = corpus.documents(200);
    Path dir = tmp.resolve("idx");
    SearchIndex index = open(dir);
    feed(index, docs);
    index.putMapping(Mapping.of(Map.of("added", FieldType.Keyword.PLAIN)));
    index.put(withField(corpus.document(500), "added", "yes"));
    Mapping before = index.mapping();
    index.close();
    SearchIndex reopened = open(dir);
    assertEquals(before, reopened.mapping());
    for (Document d : docs.subList(0, 20)) {
      assertEquals(d, reopened.get(d.id()).orElseThrow(), "source of " + d.id());
    }
    SearchResult r =
        reopened.search(SearchRequest.builder().query(Query.Term.of("added", "yes")).build());
    assertEquals(List.of("item-500"), r.ids());
  }

  @Test
  public void putMappingAddsFieldsAndRefusesChanges() throws IOException {
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, corpus.documents(50));
    Mapping grown =
        index.putMapping(
            Mapping.of(
                Map.of("sku", FieldType.Keyword.PLAIN, "name", FieldType.Text.of("standard"))));
    assertTrue(grown.leaf("sku") instanceof FieldType.Keyword);
    Mapping before = index.mapping();
    MappingException type =
        assertThrows(
            MappingException.class,
            () ->
                index.putMapping(
                    Mapping.of(
                        Map.of("stock", new FieldType.Numeric(NumberType.LONG, true, true)))));
    assertEquals("illegal_argument_exception", type.type());
    assertThrows(
        MappingException.class,
        () ->
            index.putMapping(
                Mapping.of(
                    Map.of(
                        "img",
                        new FieldType.DenseVector(
                            CatalogCorpus.IMG_DIMS + 1,
                            VectorSimilarity.COSINE,
                            true,
                            new FieldType.IndexOptions("hnsw", 16, 100))))));
    assertEquals(before, index.mapping(), "a refused update changes nothing");
  }

  @Test
  public void badDocumentsAreRefusedAndNothingIsApplied() throws IOException {
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, corpus.documents(30));
    Mapping before = index.mapping();
    long count = index.stats().docCount();
    Document good = corpus.document(99);
    List<Document> bad =
        List.of(
            withField(good, "stock", "many"),
            withField(good, "stock", 5_000_000_000L),
            withField(good, "released", "last tuesday"),
            withField(good, "available", "perhaps"),
            withField(good, "img", new double[] {1, 2, 3}),
            good.withSource(zeroCosine(good)),
            withField(good, "meta", Map.of("origin", "de", "unknown", 1L)),
            withField(good, "brand", Map.of("nested", "object")),
            withField(good, "_id", "x"),
            // A new field with a bad value of a mapped one: the new field must not be added.
            withField(withField(good, "brand_new_field", 1L), "stock", "many"));
    for (Document d : bad) {
      InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> index.put(d));
      assertTrue(
          e.type().equals(MappingException.PARSING) || e.type().equals(MappingException.STRICT),
          () -> d + " -> " + e.type() + ": " + e.getMessage());
      List<BulkItemResult> r = index.bulk(List.of(Operation.put(d), Operation.put(good)));
      assertTrue(r.get(0).failed(), "the bad item fails alone");
      assertFalse(r.get(1).failed(), "the good item in the same bulk is applied");
    }
    assertEquals(
        MappingException.STRICT,
        assertThrows(
                InvalidRequestException.class,
                () -> index.put(withField(good, "meta", Map.of("origin", "de", "x", "y"))))
            .type());
    assertThrows(
        InvalidRequestException.class,
        () -> index.update(PartialUpdate.of("item-1").with("stock", "many")));
    assertEquals(before.leaf("brand_new_field"), index.mapping().leaf("brand_new_field"));
    assertEquals(null, index.mapping().leaf("brand_new_field"), "nothing half-applied");
    index.refresh();
    assertEquals(count + 1, index.stats().docCount());
    assertTrue(index.get("item-99").isPresent());
  }

  private static Map<String, Object> zeroCosine(Document d) {
    Map<String, Object> s = new LinkedHashMap<>(d.source());
    s.put("img", new double[CatalogCorpus.IMG_DIMS]);
    return s;
  }

  private static Document withField(Document d, String field, Object value) {
    Map<String, Object> s = new LinkedHashMap<>(d.source());
    s.put(field, value);
    return new Document(d.id(), s);
  }

  // ---------------------------------------------------------------------------------------------
  // Queries: equal to the oracle

  @Test
  public void everyQueryTypeEqualsTheOracle() throws IOException {
    List<Document> docs = corpus.documents(1200);
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, docs);
    ExactIndex oracle = oracle(docs);
    int n = 0;
    for (int q = 0; q < 160; q++) {
      Query query = randomQuery(random, 0);
      int k = q % 4 == 0 ? 50 : 10;
      SearchRequest req = SearchRequest.builder().query(query).hits(k).build();
      SearchResult expected = oracle.search(req);
      SearchResult actual = index.search(req);
      SearchAssertions.assertSameScores(expected, actual, "seed " + seed + " " + query);
      assertEquals(expected.total(), actual.total(), "total of " + query);
      n++;
    }
    assertEquals(160, n);
  }

  @Test
  public void filtersCountAndMatchExactly() throws IOException {
    List<Document> docs = corpus.documents(800);
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, docs);
    ExactIndex oracle = oracle(docs);
    for (int q = 0; q < 60; q++) {
      Query f = randomFilter(random, 0);
      Query query = q % 2 == 0 ? new Query.ConstantScore(f, 1f) : boolFilter(f);
      SearchRequest req =
          SearchRequest.builder().query(query).hits(SearchRequest.MAX_WINDOW).build();
      SearchResult expected = oracle.search(req);
      SearchResult actual = index.search(req);
      assertEquals(expected.total(), actual.total(), "seed " + seed + " total of " + f);
      assertEquals(Set.copyOf(expected.ids()), Set.copyOf(actual.ids()), "ids of " + f);
      for (Hit h : actual.hits()) {
        assertEquals(q % 2 == 0 ? 1f : 0f, h.score(), "score of a filter-only query " + f);
      }
    }
  }

  private static Query boolFilter(Query f) {
    return new Query.Bool(List.of(), List.of(f), List.of(), List.of(), null, 1f);
  }

  /** A random scored query over the catalog's fields, at most three levels deep. */
  protected Query randomQuery(SplittableRandom r, int depth) {
    int kind = depth >= 2 ? r.nextInt(6) : r.nextInt(9);
    float boost = r.nextInt(4) == 0 ? 0.5f + r.nextInt(4) : 1f;
    return switch (kind) {
      case 0 ->
          new Query.Match(
              textField(r), corpus.text(r, 1 + r.nextInt(4)), Query.Operator.OR, null, boost);
      case 1 ->
          new Query.Match(
              textField(r),
              corpus.text(r, 2),
              r.nextBoolean() ? Query.Operator.AND : Query.Operator.OR,
              r.nextBoolean() ? "2" : "50%",
              boost);
      case 2 ->
          new Query.MultiMatch(
              corpus.text(r, 1 + r.nextInt(4)),
              List.of(
                  new Query.FieldBoost("name", 1 + r.nextInt(3)),
                  new Query.FieldBoost("body", 1f),
                  new Query.FieldBoost(r.nextBoolean() ? "meta.notes" : "extra.note", 0.5f)),
              r.nextBoolean() ? Query.MultiMatchType.BEST_FIELDS : Query.MultiMatchType.MOST_FIELDS,
              r.nextBoolean() ? 0f : 0.3f,
              Query.Operator.OR,
              null,
              boost);
      case 3 -> new Query.Term(r.nextBoolean() ? "brand" : "tags", keyword(r), boost);
      case 4 -> new Query.Term("body", corpus.text(r, 1).toLowerCase(java.util.Locale.ROOT), boost);
      case 5 -> new Query.Match("label", corpus.text(r, 1), Query.Operator.OR, null, boost);
      case 6 -> {
        List<Query> must = new ArrayList<>();
        List<Query> should = new ArrayList<>();
        for (int i = r.nextInt(2); i > 0; i--) {
          must.add(randomQuery(r, depth + 1));
        }
        for (int i = 1 + r.nextInt(3); i > 0; i--) {
          should.add(randomQuery(r, depth + 1));
        }
        List<Query> filter = r.nextBoolean() ? List.of(randomFilter(r, depth + 1)) : List.of();
        List<Query> not = r.nextInt(3) == 0 ? List.of(randomFilter(r, depth + 1)) : List.of();
        String msm = should.size() > 1 && r.nextBoolean() ? "1" : null;
        yield new Query.Bool(must, filter, should, not, msm, boost);
      }
      case 7 ->
          new Query.DisMax(
              List.of(randomQuery(r, depth + 1), randomQuery(r, depth + 1)),
              r.nextBoolean() ? 0f : 0.5f,
              boost);
      default -> new Query.ConstantScore(randomFilter(r, depth + 1), boost);
    };
  }

  private static String textField(SplittableRandom r) {
    return switch (r.nextInt(4)) {
      case 0 -> "name";
      case 1 -> "body";
      case 2 -> "meta.notes";
      default -> "extra.note";
    };
  }

  private static String keyword(SplittableRandom r) {
    return r.nextBoolean()
        ? CatalogCorpus.BRANDS[r.nextInt(CatalogCorpus.BRANDS.length)]
        : CatalogCorpus.TAGS[r.nextInt(CatalogCorpus.TAGS.length)];
  }

  /** A random filter over the catalog's exact-value fields. */
  protected Query randomFilter(SplittableRandom r, int depth) {
    int kind = depth >= 2 ? r.nextInt(10) : r.nextInt(12);
    return switch (kind) {
      case 0 ->
          Query.Term.of("brand", CatalogCorpus.BRANDS[r.nextInt(CatalogCorpus.BRANDS.length)]);
      case 1 ->
          new Query.Terms(
              "tags",
              List.of(
                  CatalogCorpus.TAGS[r.nextInt(CatalogCorpus.TAGS.length)],
                  CatalogCorpus.TAGS[r.nextInt(CatalogCorpus.TAGS.length)]),
              1f);
      case 2 ->
          new Query.Range(
              "stock", null, (long) r.nextInt(200), null, (long) 150 + r.nextInt(300), null, 1f);
      case 3 ->
          new Query.Range(
              "weight", r.nextDouble() * 30, null, 40.0 + r.nextDouble() * 60, null, null, 1f);
      case 4 -> new Query.Range("rating", null, 2.5, null, r.nextBoolean() ? 4.0 : null, null, 1f);
      case 5 -> {
        long from = CatalogCorpus.EPOCH_2020 + r.nextLong(3L * 365 * 86_400_000L);
        yield new Query.Range(
            "released",
            null,
            org.searchlab.core.mapping.Dates.format(from),
            from + 400L * 86_400_000L,
            null,
            null,
            1f);
      }
      case 6 -> Query.Term.of("available", r.nextBoolean());
      case 7 ->
          new Query.Exists(r.nextBoolean() ? "rating" : r.nextBoolean() ? "extra" : "img", 1f);
      case 8 ->
          Query.Term.of(
              "meta.origin", CatalogCorpus.ORIGINS[r.nextInt(CatalogCorpus.ORIGINS.length)]);
      case 9 -> new Query.Range("extra.score", 10.0 + r.nextInt(50), null, null, 80.0, null, 1f);
      case 10 ->
          new Query.Bool(
              List.of(),
              List.of(randomFilter(r, depth + 1)),
              List.of(randomFilter(r, depth + 1), randomFilter(r, depth + 1)),
              r.nextBoolean() ? List.of(randomFilter(r, depth + 1)) : List.of(),
              "1",
              1f);
      default -> {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 30; i++) {
          ids.add("item-" + r.nextInt(1500));
        }
        yield new Query.Ids(ids, 1f);
      }
    };
  }

  // ---------------------------------------------------------------------------------------------
  // kNN on both vector fields

  @Test
  public void knnOnACosineAndAnL2FieldFindsTheNeighbours() throws IOException {
    List<Document> docs = corpus.documents(1500);
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, docs);
    ExactIndex oracle = oracle(docs);
    for (String field : List.of("img", "txt")) {
      for (boolean filtered : List.of(false, true)) {
        double recall = 0;
        int n = 60;
        for (int q = 0; q < n; q++) {
          float[] v = field.equals("img") ? corpus.imgQuery(random) : corpus.txtQuery(random);
          Query filter = filtered ? randomFilter(random, 2) : Query.MatchAll.INSTANCE;
          Knn knn = new Knn(field, v, 10, 100, filter, null, 1f, 0);
          SearchRequest req = SearchRequest.builder().addKnn(knn).hits(10).build();
          SearchResult expected = oracle.search(req);
          SearchResult actual = index.search(req);
          // Every hit passes the filter, and its score is its exact score.
          Map<String, Float> exact = exactScores(oracle, knn);
          for (Hit h : actual.hits()) {
            Float s = exact.get(h.id());
            assertNotNull(s, () -> "seed " + seed + ": hit " + h.id() + " does not pass " + filter);
            assertEquals(s, h.score(), 1e-5, "the exact score of " + h.id() + " on " + field);
          }
          recall += tieAwareRecall(expected.hits(), actual.hits(), 10);
        }
        recall /= n;
        System.out.printf(
            "[recall] %s %s filtered=%s recall@10=%.4f%n",
            getClass().getSimpleName(), field, filtered, recall);
        assertTrue(recall >= MIN_RECALL, field + " recall@10 " + recall + ", seed " + seed);
      }
    }
  }

  /** The exact score of every document passing the kNN search's filter. */
  private static Map<String, Float> exactScores(ExactIndex oracle, Knn knn) throws IOException {
    SearchRequest all =
        SearchRequest.builder()
            .addKnn(new Knn(knn.field(), knn.vector(), 10_000, 10_000, knn.filter(), null, 1f, 0))
            .hits(10_000)
            .build();
    Map<String, Float> out = new HashMap<>();
    for (Hit h : oracle.search(all).hits()) {
      out.put(h.id(), h.score());
    }
    return out;
  }

  /**
   * The share of the expected top {@code k} a result reaches, counting a hit as correct when its
   * exact score reaches the exact k-th score: ties at the cut may be any of the tied documents.
   */
  protected static double tieAwareRecall(List<Hit> expected, List<Hit> actual, int k) {
    int n = Math.min(k, expected.size());
    if (n == 0) {
      return 1;
    }
    float kth = expected.get(n - 1).score();
    int good = 0;
    for (int i = 0; i < Math.min(k, actual.size()); i++) {
      if (actual.get(i).score() >= kth - 1e-6f) {
        good++;
      }
    }
    return Math.min(1.0, good / (double) n);
  }

  @Test
  public void exactKnnAndScriptScoreAreExact() throws IOException {
    List<Document> docs = corpus.documents(600);
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, docs);
    ExactIndex oracle = oracle(docs);
    for (int q = 0; q < 20; q++) {
      float[] v = corpus.imgQuery(random);
      SearchRequest exact =
          SearchRequest.builder()
              .addKnn(new Knn("img", v, 10, 10, Query.MatchAll.INSTANCE, null, 1f, 0))
              .approximate(false)
              .build();
      SearchAssertions.assertSameScores(oracle.search(exact), index.search(exact), "exact knn");
      Map<String, Object> params = Map.of("query_vector", toDoubles(v));
      String source =
          q % 3 == 0
              ? "cosineSimilarity(params.query_vector, 'img') + 1.0"
              : q % 3 == 1
                  ? "double d = dotProduct(params.query_vector, 'img'); return sigmoid(1, Math.E, -d);"
                  : "_score + 1 / (1 + l2norm(params.query_vector, 'img'))";
      Query inner =
          q % 2 == 0
              ? new Query.Exists("img", 1f)
              : new Query.Bool(
                  List.of(
                      new Query.Match("body", corpus.text(random, 2), Query.Operator.OR, null, 1f)),
                  List.of(new Query.Exists("img", 1f)),
                  List.of(),
                  List.of(),
                  null,
                  1f);
      Query script = new Query.ScriptScore(inner, Script.parse(source, params), null, 1f);
      SearchRequest req = SearchRequest.builder().query(script).hits(20).build();
      SearchAssertions.assertSameScores(oracle.search(req), index.search(req), source);
      assertEquals(oracle.search(req).total(), index.search(req).total());
    }
  }

  private static double[] toDoubles(float[] v) {
    double[] d = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      d[i] = v[i];
    }
    return d;
  }

  @Test
  public void hybridSumsAndFusesWithTheStoresOwnNeighbours() throws IOException {
    List<Document> docs = corpus.documents(1000);
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, docs);
    ExactIndex oracle = oracle(docs);
    int rrfChecked = 0;
    for (int q = 0; q < 40; q++) {
      Query text =
          new Query.Match(
              "body", corpus.text(random, 1 + random.nextInt(3)), Query.Operator.OR, null, 1f);
      Query filter = q % 3 == 0 ? randomFilter(random, 2) : Query.MatchAll.INSTANCE;
      Query query =
          filter instanceof Query.MatchAll ? text : Query.Bool.filtered(text, List.of(filter));
      Knn knn =
          new Knn(
              q % 2 == 0 ? "img" : "txt",
              q % 2 == 0 ? corpus.imgQuery(random) : corpus.txtQuery(random),
              20,
              60,
              filter,
              null,
              1f,
              0);
      List<Hit> vector = index.search(SearchRequest.builder().addKnn(knn).hits(20).build()).hits();
      List<Hit> lexical =
          oracle
              .search(SearchRequest.builder().query(query).hits(SearchRequest.MAX_WINDOW).build())
              .hits();
      // Sum: every lexical match (oracle scores) ∪ the store's kNN hits, scores added.
      Map<String, Float> sum = new HashMap<>();
      for (Hit h : lexical) sum.put(h.id(), h.score());
      for (Hit h : vector) sum.merge(h.id(), h.score(), Float::sum);
      SearchRequest hybrid = SearchRequest.builder().query(query).addKnn(knn).hits(10).build();
      SearchResult actual = index.search(hybrid);
      List<Hit> expectedRanking = ranking(sum);
      SearchAssertions.assertSameScores(
          result(expectedRanking.subList(0, Math.min(10, expectedRanking.size()))),
          actual,
          "hybrid sum, seed " + seed);
      assertEquals(sum.size(), actual.total().value(), "hybrid total = |query ∪ knn|");
      // RRF over the store's own lists, where no two scores are nearly but not exactly equal: a
      // store orders exact ties the same way in every search, but two sums of one score in
      // different orders may differ in their last bits and swap two ranks.
      List<Hit> lex20 = index.search(SearchRequest.builder().query(query).hits(20).build()).hits();
      if (hasNearTies(lex20) || hasNearTies(vector)) {
        continue;
      }
      int constant = 20 + random.nextInt(60);
      Map<String, Float> fused = new HashMap<>();
      for (List<Hit> part : List.of(lex20, vector)) {
        for (int i = 0; i < part.size(); i++) {
          fused.merge(part.get(i).id(), 1f / (constant + i + 1), Float::sum);
        }
      }
      SearchRequest rrf = hybrid.toBuilder().rank(Rank.rrf(constant, 20)).build();
      List<Hit> expectedRrf = ranking(fused);
      SearchAssertions.assertSameScores(
          result(expectedRrf.subList(0, Math.min(10, expectedRrf.size()))),
          index.search(rrf),
          "rrf, seed " + seed);
      rrfChecked++;
    }
    assertTrue(rrfChecked >= 10, "only " + rrfChecked + " RRF queries without ties");
  }

  private static List<Hit> ranking(Map<String, Float> scores) {
    List<Hit> out = new ArrayList<>();
    scores.forEach((id, s) -> out.add(new Hit(id, s)));
    out.sort(ExactCorpus.BY_SCORE);
    return out;
  }

  private static SearchResult result(List<Hit> hits) {
    return new SearchResult(
        hits,
        org.searchlab.core.TotalHits.exact(hits.size()),
        org.searchlab.core.QueryPlan.EMPTY,
        new org.searchlab.core.Timings(0, 0, 0, 0));
  }

  private static boolean hasNearTies(List<Hit> hits) {
    for (int i = 1; i < hits.size(); i++) {
      float d = Math.abs(hits.get(i).score() - hits.get(i - 1).score());
      if (d > 0 && d <= TOLERANCE) {
        return true;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  @Test
  public void partialUpdatesOfEveryKindOfField() throws IOException {
    List<Document> docs = corpus.documents(400);
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, docs);
    Map<String, Document> live = new HashMap<>();
    for (Document d : docs) {
      live.put(d.id(), d);
    }
    for (int i = 0; i < 120; i++) {
      Document d = docs.get(random.nextInt(docs.size()));
      PartialUpdate u =
          switch (i % 6) {
            case 0 -> PartialUpdate.of(d.id()).with("stock", (long) random.nextInt(1000) + 10_000);
            case 1 -> PartialUpdate.of(d.id()).with("brand", "renamed").with("available", false);
            case 2 -> PartialUpdate.of(d.id()).with("body", corpus.text(random, 6));
            case 3 -> PartialUpdate.of(d.id()).with("meta", Map.of("rank", 7L));
            case 4 -> PartialUpdate.of(d.id()).with("img", toDoubles(corpus.imgQuery(random)));
            default ->
                PartialUpdate.of(d.id()).with("fresh", "new dynamic text").with("rating", null);
          };
      index.update(u);
      Document now = live.get(d.id());
      live.put(d.id(), u.applyTo(now));
    }
    index.refresh();
    ExactIndex oracle = oracle(new ArrayList<>(live.values()));
    for (Document d : docs.subList(0, 50)) {
      Document expected = oracle.get(d.id()).orElseThrow();
      assertEquals(expected, index.get(d.id()).orElseThrow(), "source after updates");
    }
    for (int q = 0; q < 40; q++) {
      Query query =
          q % 2 == 0
              ? randomQuery(random, 1)
              : new Query.ConstantScore(randomFilter(random, 1), 1f);
      SearchRequest req = SearchRequest.builder().query(query).hits(20).build();
      SearchResult expected = oracle.search(req);
      SearchResult actual = index.search(req);
      // Counts, not scores: replaced versions stay in a segmented store's statistics until merged.
      assertEquals(expected.total(), actual.total(), "seed " + seed + ", after updates: " + query);
    }
    SearchResult renamed =
        index.search(
            SearchRequest.builder()
                .query(new Query.ConstantScore(Query.Term.of("brand", "renamed"), 1f))
                .hits(1000)
                .build());
    long expectedRenamed =
        live.values().stream().filter(x -> "renamed".equals(x.source().get("brand"))).count();
    assertEquals(expectedRenamed, renamed.total().value());
  }

  @Test
  public void deletedDocumentsAreNeverReturned() throws IOException {
    List<Document> docs = corpus.documents(600);
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, docs);
    Set<String> deleted = new HashSet<>();
    for (Document d : docs) {
      if (random.nextInt(3) == 0) {
        index.delete(d.id());
        deleted.add(d.id());
      }
    }
    index.refresh();
    assertEquals(docs.size() - deleted.size(), index.stats().docCount());
    for (int q = 0; q < 40; q++) {
      SearchRequest.Builder b = SearchRequest.builder().hits(50);
      switch (q % 3) {
        case 0 -> b.query(randomQuery(random, 1));
        case 1 -> b.query(new Query.ConstantScore(randomFilter(random, 1), 1f));
        default ->
            b.addKnn(
                new Knn(
                    "txt", corpus.txtQuery(random), 50, 100, Query.MatchAll.INSTANCE, null, 1f, 0));
      }
      for (Hit h : index.search(b.build()).hits()) {
        assertFalse(deleted.contains(h.id()), () -> "returned deleted " + h.id());
      }
    }
  }

  @Test
  public void hitsCarryTheirSourceAsStored() throws IOException {
    List<Document> docs = corpus.documents(100);
    SearchIndex index = open(tmp.resolve("idx"));
    feed(index, docs);
    ExactIndex oracle = oracle(docs);
    SearchRequest req =
        SearchRequest.builder()
            .query(new Query.Match("body", corpus.text(random, 3), Query.Operator.OR, null, 1f))
            .fetchDocuments(true)
            .hits(20)
            .build();
    for (Hit h : index.search(req).hits()) {
      assertEquals(oracle.get(h.id()).orElseThrow(), h.document(), "the hit's document");
    }
  }
}
