package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Numeric range filters compare exactly at every bound: integral and fractional, negative, at and
 * beyond {@code Integer.MAX_VALUE}, {@code Long.MAX_VALUE} and past any long, with {@code
 * gt/gte/lt/lte} in the Elasticsearch dialect and {@code > >= < <= =} in YQL, on both stores. The
 * oracle is {@link BigDecimal} comparison of each document's price with the bound; before this,
 * {@code gt 2147483647} and {@code > 9223372036854775807} wrapped around and matched everything.
 */
class RangeBoundsTest {
  private static final int[] PRICES = {
    Integer.MIN_VALUE,
    Integer.MIN_VALUE + 1,
    -101,
    -100,
    -1,
    0,
    1,
    99,
    100,
    101,
    Integer.MAX_VALUE - 1,
    Integer.MAX_VALUE
  };

  private static final List<String> BOUNDS =
      List.of(
          "-9223372036854775809",
          "-9223372036854775808",
          "-2147483649",
          "-2147483648",
          "-2147483647.5",
          "-100.5",
          "-100",
          "-1e20",
          "-0.5",
          "0",
          "0.25",
          "99.99",
          "100",
          "100.0",
          "1e2",
          "100.5",
          "2147483646.5",
          "2147483647",
          "2147483647.5",
          "2147483648",
          "9223372036854775807",
          "9223372036854775808",
          "1e20");

  private static final Map<String, String> YQL_OP =
      Map.of("gt", ">", "gte", ">=", "lt", "<", "lte", "<=");

  @ParameterizedTest
  @EnumSource(
      value = TestStore.class,
      names = {"SEGMENTED", "MUTABLE"})
  void everyBoundIsExactInBothDialects(TestStore store) throws Exception {
    try (ServerFixture f = ServerFixture.start(store)) {
      StringBuilder bulk = new StringBuilder();
      for (int i = 0; i < PRICES.length; i++) {
        bulk.append("{\"index\":{\"_id\":\"p").append(i).append("\"}}\n");
        bulk.append("{\"title\":\"priced\",\"price\":").append(PRICES[i]).append("}\n");
      }
      f.bulkAndRefresh(bulk.toString());
      int cases = 0;
      for (String bound : BOUNDS) {
        BigDecimal b = new BigDecimal(bound);
        for (String op : List.of("gt", "gte", "lt", "lte")) {
          TreeSet<String> expected = expected(p -> compare(p, b, op));
          String es =
              "{\"size\":50,\"_source\":false,\"query\":{\"bool\":{\"filter\":[{\"range\":"
                  + "{\"price\":{\""
                  + op
                  + "\":"
                  + bound
                  + "}}}]}}}";
          assertEquals(expected, esIds(f, es), "es " + op + " " + bound);
          String yql = "select * from sources * where price " + YQL_OP.get(op) + " " + bound;
          assertEquals(expected, vespaIds(f, yql), "yql " + yql);
          cases += 2;
        }
        TreeSet<String> equal = expected(p -> new BigDecimal(p).compareTo(b) == 0);
        assertEquals(
            equal, vespaIds(f, "select * from sources * where price = " + bound), "= " + bound);
        // Two bounds from the list: their intersection, possibly empty.
        String other = BOUNDS.get((BOUNDS.indexOf(bound) * 7 + 3) % BOUNDS.size());
        BigDecimal o = new BigDecimal(other);
        TreeSet<String> between = expected(p -> compare(p, b, "gte") && compare(p, o, "lt"));
        String es =
            "{\"size\":50,\"_source\":false,\"query\":{\"range\":{\"price\":{\"gte\":\""
                + bound
                + "\",\"lt\":"
                + other
                + "}}}}";
        assertEquals(between, esIds(f, es), "es [" + bound + ", " + other + ")");
        assertEquals(
            between,
            vespaIds(
                f, "select * from sources * where price >= " + bound + " and price < " + other),
            "yql [" + bound + ", " + other + ")");
        cases += 3;
      }
      System.out.println("[range] " + store + ": " + cases + " bound cases, all exact");
    }
  }

  private static boolean compare(int price, BigDecimal bound, String op) {
    int c = new BigDecimal(price).compareTo(bound);
    return switch (op) {
      case "gt" -> c > 0;
      case "gte" -> c >= 0;
      case "lt" -> c < 0;
      default -> c <= 0;
    };
  }

  private static TreeSet<String> expected(IntPredicate matches) {
    TreeSet<String> out = new TreeSet<>();
    for (int i = 0; i < PRICES.length; i++) {
      if (matches.test(PRICES[i])) {
        out.add("p" + i);
      }
    }
    return out;
  }

  private static TreeSet<String> esIds(ServerFixture f, String body) throws Exception {
    ServerFixture.Response r = f.send("POST", "/product/_search", body);
    assertEquals(200, r.status(), body + " -> " + r.body());
    TreeSet<String> out = new TreeSet<>();
    for (JsonNode h : r.json().get("hits").get("hits")) {
      out.add(h.get("_id").asText());
    }
    return out;
  }

  private static TreeSet<String> vespaIds(ServerFixture f, String yql) throws Exception {
    ServerFixture.Response r =
        f.send(
            "GET",
            "/search/?hits=50&yql=" + URLEncoder.encode(yql, StandardCharsets.UTF_8),
            (String) null);
    assertEquals(200, r.status(), yql + " -> " + r.body());
    TreeSet<String> out = new TreeSet<>();
    JsonNode children = r.json().get("root").get("children");
    if (children != null) {
      for (JsonNode c : children) {
        String id = c.get("id").asText();
        out.add(id.substring(id.lastIndexOf(':') + 1));
      }
    }
    return out;
  }
}
