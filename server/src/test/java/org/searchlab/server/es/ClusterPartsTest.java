package org.searchlab.server.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.searchlab.server.ApiException;
import org.searchlab.server.Json;

/**
 * The parts of the cluster routes that need no server: index expressions and their globs, {@code
 * filter_path}, time values, the rendering of settings, node-count conditions and byte sizes.
 */
class ClusterPartsTest {
  private static final List<String> NAMES = List.of("logs-1", "logs-2", "product", ".hidden");
  private static final IndexExpression.Options DEFAULTS = IndexExpression.Options.LENIENT_WILDCARDS;

  private static JsonNode json(String s) throws Exception {
    return Json.MAPPER.readTree(s);
  }

  @Test
  void globsMatchStarsOnlyAndHideDotNames() {
    assertTrue(IndexExpression.glob("*", ""));
    assertTrue(IndexExpression.glob("a*b*c", "aXXbYYc"));
    assertTrue(IndexExpression.glob("a*b*c", "abc"));
    assertFalse(IndexExpression.glob("a*b*c", "acb"));
    assertFalse(IndexExpression.glob("a?c", "abc"), "? is not special");
    assertTrue(IndexExpression.glob("a?c", "a?c"));
    assertTrue(IndexExpression.glob("**a", "xxa"));
    assertFalse(IndexExpression.matches("*", ".hidden"));
    assertTrue(IndexExpression.matches(".*", ".hidden"));
    // Many stars against a long near-miss: the walk stays bounded.
    assertFalse(IndexExpression.glob("*a".repeat(200) + "b", "a".repeat(5000)));
  }

  @Test
  void expressionsResolveAsElasticsearchDoes() {
    assertEquals(List.of("logs-1", "logs-2", "product", ".hidden"), NAMES);
    assertEquals(
        List.of(".hidden", "logs-1", "logs-2", "product"),
        IndexExpression.resolve("_all", NAMES, DEFAULTS));
    assertEquals(
        List.of("logs-1", "logs-2", "product"), IndexExpression.resolve("*", NAMES, DEFAULTS));
    assertEquals(
        List.of("logs-2", "product"),
        IndexExpression.resolve("logs-*,-logs-1,product", NAMES, DEFAULTS));
    assertEquals(List.of(), IndexExpression.resolve(".ml-anomalies-*", NAMES, DEFAULTS));
    assertEquals(List.of(), IndexExpression.resolve("x*,y*", NAMES, DEFAULTS));
    ApiException missing =
        assertThrows(
            ApiException.class, () -> IndexExpression.resolve("logs-*,nosuch", NAMES, DEFAULTS));
    assertEquals(404, missing.status());
    assertEquals("index_not_found_exception", missing.type());
    assertTrue(missing.getMessage().contains("[nosuch]"));
    assertThrows(
        ApiException.class,
        () -> IndexExpression.resolve("-logs-1", NAMES, DEFAULTS),
        "an exclusion before any wildcard is a name");
    assertEquals(
        List.of("product"),
        IndexExpression.resolve(
            "nosuch,product", NAMES, new IndexExpression.Options(true, true, true)));
    assertThrows(
        ApiException.class,
        () ->
            IndexExpression.resolve("x*", NAMES, new IndexExpression.Options(false, false, true)));
    assertEquals(
        List.of(),
        IndexExpression.resolve("logs-*", NAMES, new IndexExpression.Options(false, true, false)),
        "expand_wildcards=none");
    assertThrows(ApiException.class, () -> IndexExpression.resolve("a,,b", NAMES, DEFAULTS));
    assertTrue(IndexExpression.isMulti("a,b") && IndexExpression.isMulti("a*"));
    assertFalse(IndexExpression.isMulti("product"));
  }

  @Test
  void filterPathKeepsAndDropsLikeElasticsearch() throws Exception {
    JsonNode body =
        json(
            "{\"nodes\":{\"n1\":{\"name\":\"a\",\"build_hash\":\"h\",\"jvm\":{\"mem\":{\"heap\":1}},"
                + "\"roles\":[\"data\"]}},\"cluster_name\":\"c\",\"list\":[{\"x\":1,\"y\":2},3]}");
    assertEquals(
        "{\"nodes\":{\"n1\":{\"build_hash\":\"h\"}}}",
        FilterPath.apply(body, "**.build_hash").toString());
    assertEquals(
        "{\"nodes\":{\"n1\":{\"name\":\"a\"}},\"cluster_name\":\"c\"}",
        FilterPath.apply(body, "nodes.*.name,cluster_name").toString());
    assertEquals(
        "{\"nodes\":{\"n1\":{\"jvm\":{\"mem\":{\"heap\":1}}}}}",
        FilterPath.apply(body, "nodes.n*.jvm").toString());
    assertEquals("{\"list\":[{\"x\":1}]}", FilterPath.apply(body, "list.x").toString());
    assertEquals("{}", FilterPath.apply(body, "nothing.here").toString());
    JsonNode dropped = FilterPath.apply(body, "-nodes.*.jvm,-list");
    assertFalse(dropped.path("nodes").path("n1").has("jvm"));
    assertTrue(dropped.path("nodes").path("n1").has("roles") && !dropped.has("list"));
    assertEquals(
        "{\"nodes\":{\"n1\":{\"name\":\"a\"}}}",
        FilterPath.apply(body, "nodes,-nodes.*.build_hash,-**.jvm,-**.roles").toString());
    assertEquals(body, FilterPath.apply(body, null));
    assertThrows(ApiException.class, () -> FilterPath.apply(body, "a..b"));
  }

  @Test
  void timeValuesHaveUnitsAndBounds() {
    assertEquals(Duration.ofSeconds(30), EsParams.parseTime("30s", "timeout"));
    assertEquals(Duration.ofMillis(500), EsParams.parseTime("500ms", "timeout"));
    assertEquals(Duration.ofMinutes(2), EsParams.parseTime("2m", "timeout"));
    assertEquals(Duration.ofNanos(7000), EsParams.parseTime("7micros", "timeout"));
    assertEquals(Duration.ZERO, EsParams.parseTime("0", "timeout"));
    for (String bad : List.of("30", "1.5s", "-1s", "s", "30 s", "99999999999999s", "1w")) {
      ApiException e =
          assertThrows(ApiException.class, () -> EsParams.parseTime(bad, "timeout"), bad);
      assertEquals(400, e.status());
      assertTrue(e.getMessage().contains("[timeout]"), e.getMessage());
    }
  }

  @Test
  void settingsRenderFlatOrNested() {
    Map<String, String> s = new TreeMap<>();
    s.put("a.b.c", "1");
    s.put("a.b.d", "2");
    s.put("a.e", "3");
    s.put("x", "4");
    assertEquals(
        "{\"a\":{\"b\":{\"c\":\"1\",\"d\":\"2\"},\"e\":\"3\"},\"x\":\"4\"}",
        ClusterSettings.render(s, false).toString());
    assertEquals(
        "{\"a.b.c\":\"1\",\"a.b.d\":\"2\",\"a.e\":\"3\",\"x\":\"4\"}",
        ClusterSettings.render(s, true).toString());
    // A key that is both a value and a prefix: the longer one stays flat below the shared part.
    Map<String, String> clash = new TreeMap<>(Map.of("a.b", "1", "a.b.c", "2"));
    assertEquals(
        "{\"a\":{\"b\":\"1\",\"b.c\":\"2\"}}", ClusterSettings.render(clash, false).toString());
  }

  @Test
  void nodeCountsAndByteSizes() {
    assertTrue(ClusterHealth.NodeCount.parse(">=1").holds(1));
    assertFalse(ClusterHealth.NodeCount.parse(">1").holds(1));
    assertTrue(ClusterHealth.NodeCount.parse("le(1)").holds(1));
    assertTrue(ClusterHealth.NodeCount.parse("lt(2)").holds(1));
    assertTrue(ClusterHealth.NodeCount.parse("1").holds(1));
    assertFalse(ClusterHealth.NodeCount.parse("2").holds(1));
    for (String bad : List.of("", ">=", "ge(1", "gt()", "one", "-1", ">=-1")) {
      assertThrows(ApiException.class, () -> ClusterHealth.NodeCount.parse(bad), bad);
    }
    assertEquals("100mb", EsNodes.byteSize(100 << 20));
    assertEquals("1gb", EsNodes.byteSize(1 << 30));
    assertEquals("3kb", EsNodes.byteSize(3072));
    assertEquals("1000b", EsNodes.byteSize(1000));
  }
}
