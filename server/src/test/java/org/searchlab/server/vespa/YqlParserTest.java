package org.searchlab.server.vespa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Filter;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.server.Json;
import org.searchlab.server.ServerLimits;

/** The YQL parser's grammar and error columns, and the translation to core requests. */
class YqlParserTest {
  @Test
  void parsesTheBenchmarkStatements() {
    Yql.Select s =
        YqlParser.parse(
            "select * from product where category contains \"Books\" and"
                + " (({targetHits:100}nearestNeighbor(embedding,q_embedding)) or userQuery())");
    Yql.And and = assertInstanceOf(Yql.And.class, s.where());
    assertEquals(
        new Yql.Contains("category", Yql.Value.of("Books"), false, 29), and.terms().get(0));
    Yql.Or or = assertInstanceOf(Yql.Or.class, and.terms().get(1));
    Yql.NearestNeighbor nn = assertInstanceOf(Yql.NearestNeighbor.class, or.terms().get(0));
    assertEquals(Map.of("targetHits", 100L), nn.annotations());
    assertInstanceOf(Yql.UserQuery.class, or.terms().get(1));

    Yql.Select all =
        YqlParser.parse("SELECT id, title FROM sources * WHERE true LIMIT 5 OFFSET 2;");
    assertEquals(5, all.limit());
    assertEquals(2, all.offset());
    assertTrue(all.sources().isEmpty());
  }

  @Test
  void errorsNameTheColumn() {
    assertColumn("select * from product wher userQuery()", 23, "expected 'where'");
    assertColumn("select * from product where userQuery(", 39, "expected ')'");
    assertColumn("select * from product where title contains 5", 44, "quoted string");
    assertColumn("select * from product where category contains \"x", 47, "not closed");
    assertColumn("select * from product where userQuery() and", 44, "expected a condition");
    assertColumn(
        "select * from product where {targetHits:1}userQuery()", 29, "only on nearestNeighbor");
    assertColumn("select * from product where userQuery() userQuery()", 41, "expected 'and', 'or'");
    assertColumn("select * from product where price < 1.5x", 40, "a number ends at a letter");
    // 100,000 nested parentheses: refused at the 31st, without recursing 100,000 deep.
    String deep =
        "select * from product where " + "(".repeat(100_000) + "true" + ")".repeat(100_000);
    YqlException tooDeep =
        assertThrows(YqlException.class, () -> YqlParser.parse(deep, deep.length(), 30));
    assertEquals(29 + 30, tooDeep.column(), tooDeep.getMessage());
    assertTrue(tooDeep.getMessage().contains("limit of 30"), tooDeep.getMessage());
    YqlParser.parse("select * from product where " + "(".repeat(30) + "true" + ")".repeat(30));
    YqlException tooLong = assertThrows(YqlException.class, () -> YqlParser.parse(deep, 1000, 30));
    assertTrue(tooLong.getMessage().contains("more than the limit of 1000"), tooLong.getMessage());
    assertColumn("", 1, "empty");
    assertColumn("select * from product where rank()", 34, "expected a condition");
    assertColumn("select * from product where f in ()", 35, "expected a string, a number");
    assertColumn("select * from product where range(f, 1, x)", 41, "Infinity");
    assertColumn("select * from product where {bounds:\"half\"}range(f, 1, 2)", 44, "bounds");
    assertColumn("select * from product where f contains text(5)", 45, "quoted string");
    assertColumn("select * from product where 5 < 6", 33, "expected a field name");
    assertColumn("select * from product where fuzzy(f, \"x\")", 29, "not supported");
    assertColumn("select * from product where userInput()", 39, "quoted string or @parameter");
  }

  @Test
  void parsesTheGeneralConstructs() {
    Yql w =
        YqlParser.parse(
                "select * from shop where !(a contains text(\"x y\")) and 5 <= b and c in (1, \"z\","
                    + " @p) and {bounds:\"rightOpen\"}range(d, -Infinity, 10L) and weakAnd(e contains"
                    + " @q, rank(false, f = true)) and {defaultIndex:\"g\"}userInput(@u)")
            .where();
    Yql.And and = assertInstanceOf(Yql.And.class, w);
    Yql.Not not = assertInstanceOf(Yql.Not.class, and.terms().get(0));
    assertEquals(new Yql.Contains("a", Yql.Value.of("x y"), true, 28), not.term());
    assertEquals(
        new Yql.Compare("b", "<=", new java.math.BigDecimal("5"), 51).field(),
        ((Yql.Compare) and.terms().get(1)).field());
    assertEquals(">=", ((Yql.Compare) and.terms().get(1)).op(), "5 <= b is b >= 5");
    Yql.In in = assertInstanceOf(Yql.In.class, and.terms().get(2));
    assertEquals(
        java.util.List.of(
            Yql.Value.of(new java.math.BigDecimal("1")), Yql.Value.of("z"), Yql.Value.ref("p")),
        in.values());
    Yql.Range range = assertInstanceOf(Yql.Range.class, and.terms().get(3));
    assertNull(range.low());
    assertEquals(new java.math.BigDecimal("10"), range.high());
    assertTrue(range.lowInclusive());
    assertTrue(!range.highInclusive());
    Yql.WeakAnd weak = assertInstanceOf(Yql.WeakAnd.class, and.terms().get(4));
    assertEquals(new Yql.Contains("e", Yql.Value.ref("q"), false, 146), weak.terms().get(0));
    Yql.Rank rank = assertInstanceOf(Yql.Rank.class, weak.terms().get(1));
    assertInstanceOf(Yql.False.class, rank.terms().get(0));
    assertEquals(Boolean.TRUE, ((Yql.Compare) rank.terms().get(1)).value());
    Yql.UserInput input = assertInstanceOf(Yql.UserInput.class, and.terms().get(5));
    assertEquals(Yql.Value.ref("u"), input.text());
    assertEquals(Map.of("defaultIndex", "g"), input.annotations());

    Yql.NearestNeighbor nn =
        assertInstanceOf(
            Yql.NearestNeighbor.class,
            YqlParser.parse(
                    "select * from shop where {targetHits:5, distanceThreshold:0.25}"
                        + "nearestNeighbor(v, q)")
                .where());
    assertEquals(Map.of("targetHits", 5L, "distanceThreshold", 0.25), nn.annotations());
  }

  private static void assertColumn(String yql, int column, String part) {
    YqlException e = assertThrows(YqlException.class, () -> YqlParser.parse(yql));
    assertEquals(column, e.column(), e.getMessage());
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }

  @Test
  void translatesToCoreRequests() {
    float[] v = {0.6f, 0.8f};
    SearchRequest hybrid =
        translate(
            "select * from product where category contains \"B\" and price >= 10 and price < 20 and"
                + " ({targetHits:50, hnsw.exploreAdditionalHits:30, approximate:false}"
                + "nearestNeighbor(embedding,q) or userQuery())",
            "hybrid",
            "red shoes",
            v);
    assertEquals(RankProfile.HYBRID, hybrid.rankProfile());
    assertEquals(Filter.category("B").withPrice(new Filter.PriceRange(10, 19)), hybrid.filter());
    assertEquals(50, hybrid.targetHits());
    assertEquals(30, hybrid.exploreAdditionalHits());
    assertEquals(false, hybrid.approximate());
    assertEquals("red shoes", hybrid.text());

    SearchRequest lexical = translate("select * from product where userQuery()", null, "x", null);
    assertEquals(RankProfile.BM25, lexical.rankProfile());
    assertNull(lexical.vector());
    assertEquals(Filter.ALL, lexical.filter());

    InvalidRequestException mismatch =
        assertThrows(
            InvalidRequestException.class,
            () -> translate("select * from product where userQuery()", "closeness", "x", null));
    assertTrue(mismatch.getMessage().contains("needs profile 'bm25'"), mismatch.getMessage());
    YqlException and =
        assertThrows(
            YqlException.class,
            () ->
                translate(
                    "select * from product where userQuery() and {targetHits:5}nearestNeighbor(embedding,q)",
                    null,
                    "x",
                    v));
    assertEquals(45, and.column(), and.getMessage());
    YqlException noTarget =
        assertThrows(
            YqlException.class,
            () ->
                translate(
                    "select * from product where nearestNeighbor(embedding,q)", null, null, v));
    assertTrue(noTarget.getMessage().contains("targetHits"));
    YqlException type =
        assertThrows(
            YqlException.class,
            () -> translate("select * from music where true", null, null, null));
    assertEquals(15, type.column());
  }

  @Test
  void queryTensorForms() {
    Map<String, JsonNode> p = new LinkedHashMap<>();
    assertEquals("red shoes", QueryTensor.parse(TextNode.valueOf("embed(red shoes)"), "t", p));
    assertEquals("a, b", QueryTensor.parse(TextNode.valueOf("embed(minilm, \"a, b\")"), "t", p));
    p.put("q", TextNode.valueOf("from a param"));
    assertEquals("from a param", QueryTensor.parse(TextNode.valueOf("embed(@q)"), "t", p));
    float[] v = (float[]) QueryTensor.parse(TextNode.valueOf("[0.5, 1]"), "t", p);
    assertEquals(2, v.length);
    assertThrows(
        InvalidRequestException.class, () -> QueryTensor.parse(TextNode.valueOf("nope"), "t", p));
  }

  @Test
  void rerankCountIsTheRescoreWindow() {
    String yql = "select * from product where {targetHits:10}nearestNeighbor(embedding,q)";
    var body = Json.MAPPER.createObjectNode().put("yql", yql);
    body.putArray("input.query(q)").add(0.6f).add(0.8f);
    assertEquals(0, translateBody(body).rescoreWindow(), "absent: the store's own oversample");
    body.put("ranking.rerankCount", 40);
    assertEquals(40, translateBody(body).rescoreWindow());
    body.remove("ranking.rerankCount");
    body.put("ranking.secondPhase.rerankCount", "25"); // as a URL parameter would arrive
    assertEquals(25, translateBody(body).rescoreWindow());
    body.put("ranking.secondPhase.rerankCount", 0);
    InvalidRequestException zero =
        assertThrows(InvalidRequestException.class, () -> translateBody(body));
    assertTrue(zero.getMessage().contains("ranking.secondPhase.rerankCount"), zero.getMessage());
  }

  private static SearchRequest translateBody(JsonNode body) {
    return VespaQueryTranslator.translate(
            VespaQueryTranslator.flatten(body, Map.of()),
            "product",
            Mapping.product(2),
            ServerLimits.DEFAULT)
        .request();
  }

  private static SearchRequest translate(String yql, String profile, String query, float[] v) {
    var body = Json.MAPPER.createObjectNode().put("yql", yql);
    if (profile != null) {
      body.put("ranking.profile", profile);
    }
    if (query != null) {
      body.put("query", query);
    }
    if (v != null) {
      var arr = body.putArray("input.query(q)");
      for (float x : v) {
        arr.add(x);
      }
    }
    return VespaQueryTranslator.translate(
            VespaQueryTranslator.flatten(body, Map.of()),
            "product",
            Mapping.product(2),
            ServerLimits.DEFAULT)
        .request();
  }
}
