package org.searchlab.server.vespa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Filter;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.ProductShape;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Query.Bool;
import org.searchlab.core.query.Query.Match;
import org.searchlab.core.query.Query.Operator;
import org.searchlab.core.query.Query.Range;
import org.searchlab.core.query.Query.Term;
import org.searchlab.core.query.Rank;
import org.searchlab.server.Json;
import org.searchlab.server.ServerLimits;
import org.searchlab.server.service.KnnText;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * The exact {@link Query}, {@link Knn} and {@link Rank} each YQL construct translates to over a
 * mapping that is not the benchmark's ({@link CatalogCorpus#mapping()}), the refusals, and the
 * benchmark's statements over the product mapping in exactly the shape the stores' fast paths read.
 */
class VespaQueryTranslatorTest {
  private static final Mapping CATALOG = CatalogCorpus.mapping();
  private static final float[] IMG = new float[CatalogCorpus.IMG_DIMS];
  private static final float[] TXT = new float[CatalogCorpus.TXT_DIMS];

  static {
    IMG[0] = 1;
    TXT[1] = 2;
  }

  private static ObjectNode body(String where, String... params) {
    ObjectNode b = Json.MAPPER.createObjectNode().put("yql", "select * from shop where " + where);
    for (int i = 0; i < params.length; i += 2) {
      b.put(params[i], params[i + 1]);
    }
    return b;
  }

  private static VespaSearch search(ObjectNode body, Mapping mapping, String type) {
    return VespaQueryTranslator.translate(
        VespaQueryTranslator.flatten(body, Map.of()), type, mapping, ServerLimits.DEFAULT);
  }

  private static SearchRequest request(String where, String... params) {
    return search(body(where, params), CATALOG, "shop").request();
  }

  /** The query of a statement with a text condition (so it is not wrapped as unranked). */
  private static Query query(String where, String... params) {
    return request(where, params).query();
  }

  private static Bool bool(List<Query> must, List<Query> filter, List<Query> should) {
    return new Bool(must, filter, should, List.of(), null, 1f);
  }

  private static Match and(String field, String text) {
    return new Match(field, text, Operator.AND, null, 1f);
  }

  private static Range inclusive(String field, long lo, long hi) {
    return new Range(field, null, lo, null, hi, null, 1f);
  }

  private static Query.MultiMatch defaultFieldset(String text, Operator op) {
    return new Query.MultiMatch(
        text,
        List.of(
            new Query.FieldBoost("name", 1f),
            new Query.FieldBoost("body", 1f),
            new Query.FieldBoost("meta.notes", 1f)),
        Query.MultiMatchType.BEST_FIELDS,
        0f,
        op,
        null,
        1f);
  }

  @Test
  void textConditionsScoreAndTheRestFilter() {
    Match name = and("name", "red shoe");
    assertEquals(name, query("name contains \"red shoe\""));
    assertEquals(Match.of("name", "red shoe"), query("name contains text(\"red shoe\")"));
    assertEquals(
        Match.of("body", "from param"),
        query("body contains text(@t)", "t", "from param"),
        "text(@p) reads the parameter");
    assertEquals(defaultFieldset("x y", Operator.AND), query("default contains \"x y\""));
    assertEquals(defaultFieldset("x y", Operator.OR), query("default contains text(\"x y\")"));
    // In an and: the text is a must, the rest filter; integer bounds fold into one range.
    assertEquals(
        bool(
            List.of(name),
            List.of(
                Term.of("brand", "acme"),
                inclusive("stock", 11, 99),
                Term.of("available", "true"),
                new Range("weight", null, null, new BigDecimal("2.5"), null, null, 1f)),
            List.of()),
        query(
            "name contains \"red shoe\" and brand contains \"acme\" and stock > 10 and 100 > stock"
                + " and available contains \"true\" and weight < 2.5"));
    // Beside text in an or, a filter scores 0: a bool of it as a filter.
    assertEquals(
        bool(
            List.of(),
            List.of(),
            List.of(name, bool(List.of(), List.of(Term.of("tags", "red")), List.of()))),
        query("name contains \"red shoe\" or tags contains \"red\""));
    // ! is must_not; weakAnd is an or; rank(a, b) matches a and adds b's score.
    assertEquals(
        new Bool(List.of(name), List.of(), List.of(), List.of(Term.of("brand", "x")), null, 1f),
        query("name contains \"red shoe\" and !(brand contains \"x\")"));
    assertEquals(
        bool(List.of(), List.of(), List.of(name, Match.of("body", "b"))),
        query("{targetHits:10}weakAnd(name contains \"red shoe\", body contains text(\"b\"))"));
    assertEquals(
        bool(List.of(), List.of(Term.of("brand", "acme")), List.of(name)),
        query("rank(brand contains \"acme\", name contains \"red shoe\")"));
    assertEquals(
        bool(List.of(name), List.of(), List.of(Match.of("body", "b"))),
        query("rank(name contains \"red shoe\", body contains text(\"b\"))"));
  }

  @Test
  void valuesAndRanges() {
    // Filters alone: unranked, every match scoring 1.
    assertEquals(new Query.ConstantScore(inclusive("meta.rank", 7, 7), 1f), query("meta.rank = 7"));
    assertEquals(
        new Query.ConstantScore(Term.of("weight", new BigDecimal("7.5")), 1f),
        query("weight = 7.5"));
    assertEquals(
        new Query.ConstantScore(inclusive("stock", 1, 0), 1f),
        query("stock = 7.5"),
        "no integer is 7.5");
    assertEquals(
        new Query.ConstantScore(inclusive("meta.rank", 3, Long.MAX_VALUE), 1f),
        query("meta.rank >= 3L"));
    assertEquals(
        new Query.ConstantScore(inclusive("stock", Integer.MIN_VALUE, 4), 1f),
        query("range(stock, -Infinity, 4.5)"));
    assertEquals(
        new Query.ConstantScore(inclusive("stock", 2, 9), 1f),
        query("{bounds:\"open\"}range(stock, 1, 10)"));
    assertEquals(
        new Query.ConstantScore(
            new Range("weight", new BigDecimal("1"), null, null, null, null, 1f), 1f),
        query("{bounds:\"leftOpen\"}range(weight, 1, Infinity)"));
    assertEquals(
        new Query.ConstantScore(inclusive("stock", 1, 0), 1f),
        query("stock > 10 and stock < 5"),
        "bounds that exclude every value: the empty range");
    assertEquals(
        new Query.ConstantScore(
            new Query.Terms("brand", List.of("acme", new BigDecimal("5"), "globex", "hooli"), 1f),
            1f),
        query("brand in (\"acme\", 5, @b)", "b", "globex, \"hooli\""));
    assertEquals(Query.MatchAll.INSTANCE, query("true"));
    assertEquals(new Query.ConstantScore(Query.MatchNone.INSTANCE, 1f), query("false"));
    assertEquals(Query.MatchAll.INSTANCE, query("true and true"));
    assertEquals(
        new Query.ConstantScore(
            new Bool(
                List.of(),
                List.of(Query.MatchAll.INSTANCE),
                List.of(),
                List.of(Term.of("brand", "acme")),
                null,
                1f),
            1f),
        query("!(brand contains \"acme\")"));
    assertEquals(RankProfile.UNRANKED, request("true").rankProfile());
  }

  @Test
  void userQueryAndUserInput() {
    assertEquals(defaultFieldset("a b", Operator.OR), query("userQuery()", "query", "a b"));
    assertEquals(
        defaultFieldset("a b", Operator.AND),
        query("userQuery()", "query", "a b", "model.type", "all"));
    assertEquals(
        Match.of("body", "a b"),
        query("userQuery()", "query", "a b", "model.defaultIndex", "body"));
    assertEquals(
        Match.of("name", "a b"), query("userQuery()", "query", "a b", "default-index", "name"));
    assertEquals(defaultFieldset("c", Operator.OR), query("userInput(\"c\")"));
    assertEquals(
        new Match("body", "d e", Operator.AND, null, 1f),
        query("{defaultIndex:\"body\", grammar:\"all\"}userInput(@u)", "u", "d e"));
    assertThrows(
        InvalidRequestException.class,
        () -> query("userQuery()", "query", "a", "model.type", "phrase"));
  }

  @Test
  void nearestNeighborAndHybrid() {
    ObjectNode b =
        body(
            "brand contains \"acme\" and stock < 100 and ({targetHits:5,"
                + " hnsw.exploreAdditionalHits:20, distanceThreshold:0.5}nearestNeighbor(img, qi)"
                + " or {targetHits:3, approximate:false}nearestNeighbor(txt, qt) or name contains"
                + " text(\"red\"))");
    b.set("input.query(qi)", Json.MAPPER.valueToTree(IMG));
    b.put("input.query(qt)", "embed(e5, \"a text\")");
    b.put("ranking.rerankCount", 40);
    SearchRequest r = search(b, CATALOG, "shop").request();
    List<Query> filters =
        List.of(Term.of("brand", "acme"), inclusive("stock", Integer.MIN_VALUE, 99));
    Query filter = bool(List.of(), filters, List.of());
    assertEquals(
        List.of(
            new Knn("img", IMG, 5, 25, filter, (float) Math.cos(0.5), 1f, 40),
            new Knn("txt", null, 3, 3, filter, null, 1f, 40)),
        r.knn());
    assertEquals(bool(List.of(Match.of("name", "red")), filters, List.of()), r.query());
    assertEquals(Rank.SUM, r.rank());
    assertFalse(r.approximate());
    assertEquals(RankProfile.HYBRID, r.rankProfile());
    assertEquals(List.of(new KnnText(1, "a text")), search(b, CATALOG, "shop").embedTexts());

    // distanceThreshold in the field's similarity: l2_norm keeps the distance.
    ObjectNode l2 = body("{targetHits:2, distanceThreshold:1.5}nearestNeighbor(txt, q)");
    l2.set("input.query(q)", Json.MAPPER.valueToTree(TXT));
    SearchRequest knnOnly = search(l2, CATALOG, "shop").request();
    assertNull(knnOnly.query());
    assertEquals(
        List.of(new Knn("txt", TXT, 2, 2, Query.MatchAll.INSTANCE, 1.5f, 1f, 0)), knnOnly.knn());

    // Nested ands are one conjunction.
    ObjectNode nestedAnd =
        body("brand contains \"acme\" and (stock < 100 and {targetHits:2}nearestNeighbor(txt, q))");
    nestedAnd.set("input.query(q)", Json.MAPPER.valueToTree(TXT));
    assertEquals(
        List.of(new Knn("txt", TXT, 2, 2, filter, null, 1f, 0)),
        search(nestedAnd, CATALOG, "shop").request().knn());

    // A filter beside nearestNeighbor() in an or adds its matches with score 0.
    ObjectNode union = body("{targetHits:2}nearestNeighbor(txt, q) or brand contains \"acme\"");
    union.set("input.query(q)", Json.MAPPER.valueToTree(TXT));
    VespaSearch withFilter = search(union, CATALOG, "shop");
    assertEquals(
        bool(List.of(), List.of(Term.of("brand", "acme")), List.of()),
        withFilter.request().query());
    assertEquals("vector", withFilter.queryType(), "the closeness profile");

    // ranking=rrf: reciprocal rank fusion over the global phase's rerank count.
    ObjectNode rrf = body("{targetHits:2}nearestNeighbor(txt, q) or userQuery()", "query", "x");
    rrf.set("input.query(q)", Json.MAPPER.valueToTree(TXT));
    rrf.put("ranking", "rrf").put("ranking.globalPhase.rerankCount", 50);
    assertEquals(Rank.rrf(60, 50), search(rrf, CATALOG, "shop").request().rank());
  }

  @Test
  void refusals() {
    InvalidRequestException unknown =
        assertThrows(InvalidRequestException.class, () -> query("nope contains \"x\""));
    assertEquals(
        "Could not create query from YQL: Field 'nope' does not exist", unknown.getMessage());
    assertThrows(InvalidRequestException.class, () -> query("price < 5"), "not in this mapping");
    assertThrows(
        InvalidRequestException.class,
        () -> query("userQuery()", "query", "x", "model.defaultIndex", "nope"));
    ObjectNode nnAndText = body("name contains \"x\" and {targetHits:2}nearestNeighbor(txt, q)");
    nnAndText.set("input.query(q)", Json.MAPPER.valueToTree(TXT));
    YqlException e = assertThrows(YqlException.class, () -> search(nnAndText, CATALOG, "shop"));
    assertTrue(e.getMessage().contains("filters only"), e.getMessage());
    ObjectNode nested = body("!({targetHits:2}nearestNeighbor(txt, q))");
    nested.set("input.query(q)", Json.MAPPER.valueToTree(TXT));
    e = assertThrows(YqlException.class, () -> search(nested, CATALOG, "shop"));
    assertTrue(e.getMessage().contains("only at the top level"), e.getMessage());
    ObjectNode notVector = body("{targetHits:2}nearestNeighbor(name, q)");
    notVector.set("input.query(q)", Json.MAPPER.valueToTree(TXT));
    e = assertThrows(YqlException.class, () -> search(notVector, CATALOG, "shop"));
    assertTrue(e.getMessage().contains("not a tensor"), e.getMessage());
    e = assertThrows(YqlException.class, () -> query("img contains \"x\""));
    assertTrue(e.getMessage().contains("dense_vector"), e.getMessage());
    e = assertThrows(YqlException.class, () -> query("name contains @missing"));
    assertTrue(e.getMessage().contains("@missing"), e.getMessage());
    InvalidRequestException profile =
        assertThrows(
            InvalidRequestException.class,
            () -> query("name contains \"x\"", "ranking.profile", "unranked"));
    assertTrue(profile.getMessage().contains("needs profile 'bm25'"), profile.getMessage());
  }

  /**
   * Every statement the benchmark sends (bench's {@code VespaDialect}: lexical, vector and hybrid,
   * each with and without the category filter, with and without exploration) plus the price filters
   * of the server's tests, translated over the product mapping, is the request {@link
   * SearchRequest}'s shorthand builds: the shape the stores' fast paths recognise.
   */
  @Test
  void benchmarkStatementsKeepTheProductShape() {
    Mapping product = Mapping.product(2);
    float[] v = {0.6f, 0.8f};
    String nn100 = "({targetHits:100}nearestNeighbor(embedding,q_embedding))";
    String nnExplore =
        "({targetHits:10, hnsw.exploreAdditionalHits:90}nearestNeighbor(embedding,q_embedding))";
    for (String nn : List.of(nn100, nnExplore)) {
      int k = nn == nn100 ? 100 : 10;
      for (boolean filtered : List.of(false, true)) {
        String cat = filtered ? "category contains \"Books\" and " : "";
        Filter filter = filtered ? Filter.category("Books") : Filter.ALL;
        assertShape(
            product,
            cat + "userQuery()",
            "bm25",
            "red shoes",
            null,
            0,
            SearchRequest.builder().text("red shoes").filter(filter).rankProfile(RankProfile.BM25));
        assertShape(
            product,
            cat + nn,
            "closeness",
            null,
            v,
            0,
            SearchRequest.builder()
                .vector(v)
                .filter(filter)
                .targetHits(k)
                .exploreAdditionalHits(100 - k)
                .rankProfile(RankProfile.CLOSENESS));
        assertShape(
            product,
            cat + (filtered ? "(" + nn + " or userQuery())" : nn + " or userQuery()"),
            "hybrid",
            "red shoes",
            v,
            100,
            SearchRequest.builder()
                .text("red shoes")
                .vector(v)
                .filter(filter)
                .targetHits(k)
                .exploreAdditionalHits(100 - k)
                .rescoreWindow(100)
                .rankProfile(RankProfile.HYBRID));
      }
    }
    assertShape(
        product,
        "true",
        null,
        null,
        null,
        0,
        SearchRequest.builder().rankProfile(RankProfile.UNRANKED));
    assertShape(
        product,
        "category contains \"B\" and price >= 10 and price < 20.5",
        null,
        null,
        null,
        0,
        SearchRequest.builder()
            .filter(Filter.category("B").withPrice(new Filter.PriceRange(10, 20)))
            .rankProfile(RankProfile.UNRANKED));
    assertShape(
        product,
        "category contains \"B\" and price > 5 and ({targetHits:7}nearestNeighbor(embedding,q_embedding) or userQuery())",
        null,
        "x",
        v,
        0,
        SearchRequest.builder()
            .text("x")
            .vector(v)
            .targetHits(7)
            .filter(Filter.category("B").withPrice(new Filter.PriceRange(6, Integer.MAX_VALUE)))
            .rankProfile(RankProfile.HYBRID));
    // In another order the clauses keep it, and the shape is the same.
    ObjectNode swapped =
        Json.MAPPER
            .createObjectNode()
            .put(
                "yql",
                "select * from product where price > 5 and category contains \"B\" and"
                    + " userQuery()")
            .put("query", "x");
    assertEquals(
        new Filter("B", new Filter.PriceRange(6, Integer.MAX_VALUE)),
        ProductShape.of(search(swapped, product, "product").request()).orElseThrow().filter());
  }

  private static void assertShape(
      Mapping product,
      String where,
      String profile,
      String text,
      float[] v,
      int rerank,
      SearchRequest.Builder expected) {
    ObjectNode b =
        Json.MAPPER.createObjectNode().put("yql", "select * from product where " + where);
    if (profile != null) {
      b.put("ranking.profile", profile);
    }
    if (text != null) {
      b.put("query", text);
    }
    if (v != null) {
      b.set("input.query(q_embedding)", Json.MAPPER.valueToTree(v));
    }
    if (rerank > 0) {
      b.put("ranking.rerankCount", rerank);
    }
    SearchRequest got = search(b, product, "product").request();
    assertTrue(ProductShape.of(got).isPresent(), where + " -> " + got);
    assertEquals(expected.build(), got, where);
  }
}
