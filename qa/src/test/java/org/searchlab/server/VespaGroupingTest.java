package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * Vespa grouping and {@code order by} against the Elasticsearch dialect on the same index (issue
 * 67's acceptance item): {@code PUT /shop} with {@link CatalogCorpus}'s mapping, documents fed
 * through {@code /document/v1}, then each grouping statement and the equivalent {@code aggs} body
 * must give the same groups in the same order with the same counts and metric values, and each
 * {@code order by} the same hits as the equivalent {@code sort}; on every store.
 */
class VespaGroupingTest {
  private static final int DOCS = 240;

  /** A grouping statement and the Elasticsearch body that asks the same. */
  private record Case(String where, String grouping, String es) {}

  private static final List<Case> CASES =
      List.of(
          new Case(
              "stock > 20",
              "all(group(brand) max(4) order(-count()) each(output(count(), avg(weight),"
                  + " max(stock))))",
              "\"query\":{\"range\":{\"stock\":{\"gt\":20}}},\"aggs\":{\"brand\":{\"terms\":"
                  + "{\"field\":\"brand\",\"size\":4,\"order\":{\"_count\":\"desc\"}},\"aggs\":{"
                  + "\"avg(weight)\":{\"avg\":{\"field\":\"weight\"}},"
                  + "\"max(stock)\":{\"max\":{\"field\":\"stock\"}}}}}"),
          new Case(
              "true",
              "all(output(count(), sum(stock), min(weight)) all(group(tags) max(5)"
                  + " order(-sum(stock)) each(output(count(), sum(stock)) all(group(available)"
                  + " each(output(count(), avg(meta.rank)))))))",
              "\"aggs\":{\"sum(stock)\":{\"sum\":{\"field\":\"stock\"}},"
                  + "\"min(weight)\":{\"min\":{\"field\":\"weight\"}},"
                  + "\"tags\":{\"terms\":{\"field\":\"tags\",\"size\":5,"
                  + "\"order\":{\"sum(stock)\":\"desc\"}},\"aggs\":{"
                  + "\"sum(stock)\":{\"sum\":{\"field\":\"stock\"}},"
                  + "\"available\":{\"terms\":{\"field\":\"available\"},\"aggs\":{"
                  + "\"avg(meta.rank)\":{\"avg\":{\"field\":\"meta.rank\"}}}}}}}"),
          new Case(
              "weight < 80",
              "all(group(predefined(stock, bucket(-inf, 20), bucket[20, 60>, bucket<60, inf>))"
                  + " each(output(count(), max(weight))) as(stockbands))",
              "\"query\":{\"range\":{\"weight\":{\"lt\":80}}},\"aggs\":{\"stockbands\":{\"range\":"
                  + "{\"field\":\"stock\",\"ranges\":[{\"to\":20},{\"from\":20,\"to\":60},"
                  + "{\"from\":61}]},\"aggs\":{\"max(weight)\":{\"max\":{\"field\":\"weight\"}}}}}"),
          new Case(
              "true",
              "all(group(meta.origin) max(6) order(-avg(weight)) each(output(count(),"
                  + " sum(meta.rank))))",
              "\"aggs\":{\"meta.origin\":{\"terms\":{\"field\":\"meta.origin\",\"size\":6,"
                  + "\"order\":{\"o\":\"desc\"}},\"aggs\":{\"o\":{\"avg\":{\"field\":\"weight\"}},"
                  + "\"sum(meta.rank)\":{\"sum\":{\"field\":\"meta.rank\"}}}}}"),
          new Case(
              "stock >= 5",
              "all(group(stock) max(7) order(count()) each(output(count(), min(weight))))",
              "\"query\":{\"range\":{\"stock\":{\"gte\":5}}},\"aggs\":{\"stock\":{\"terms\":"
                  + "{\"field\":\"stock\",\"size\":7,\"order\":{\"_count\":\"asc\"}},\"aggs\":{"
                  + "\"min(weight)\":{\"min\":{\"field\":\"weight\"}}}}}"),
          new Case(
              "true",
              "all(group(brand) max(3) each(group(weight) max(2) order(-max(stock))"
                  + " each(output(count(), max(stock)))))",
              "\"aggs\":{\"brand\":{\"terms\":{\"field\":\"brand\",\"size\":3},\"aggs\":{"
                  + "\"weight\":{\"terms\":{\"field\":\"weight\",\"size\":2,"
                  + "\"order\":{\"max(stock)\":\"desc\"}},\"aggs\":{"
                  + "\"max(stock)\":{\"max\":{\"field\":\"stock\"}}}}}}}"));

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void groupingAndOrderByMatchTheEquivalentElasticsearchBodies(TestStore store) throws Exception {
    long seed = TestSeeds.seed("VespaGroupingTest");
    System.out.println("VespaGroupingTest seed " + seed + " store " + store);
    try (ServerFixture f = ServerFixture.owned(store)) {
      f.createIndex("shop", CatalogCorpus.mapping());
      int n = 0;
      for (Document d : new CatalogCorpus(seed).documents(DOCS)) {
        Map<String, Object> source = new LinkedHashMap<>(d.source());
        // meta.rank made unique, so that a sort ending with it has one order on every store.
        @SuppressWarnings("unchecked")
        Map<String, Object> meta =
            new LinkedHashMap<>((Map<String, Object>) source.getOrDefault("meta", Map.of()));
        meta.put("rank", (n++ * 104_729L) % 1_000_003L);
        source.put("meta", meta);
        ObjectNode put = Json.MAPPER.createObjectNode();
        put.set("fields", Json.MAPPER.valueToTree(source));
        ServerFixture.Response r =
            f.send("POST", "/document/v1/shop/shop/docid/" + d.id(), put.toString());
        assertEquals(200, r.status(), r.body());
      }
      assertEquals(200, f.send("POST", "/shop/_refresh", (String) null).status());

      for (Case c : CASES) {
        String yql = "select * from shop where " + c.where + " limit 0 | " + c.grouping;
        JsonNode vespa =
            ok(f, "/search/", Json.MAPPER.createObjectNode().put("yql", yql).toString());
        JsonNode es = ok(f, "/shop/_search", "{\"size\":0,\"track_total_hits\":true," + c.es + "}");
        JsonNode root = vespa.at("/root/children/0");
        assertEquals("group:root:0", root.get("id").asText(), vespa.toString());
        Map<String, Object> want = esLevel(es.get("aggregations"));
        Map<String, Object> got = vespaGroup(root);
        // The root's count() is every match: Elasticsearch's exact total.
        if (got.containsKey("count()")) {
          want.put("count()", es.at("/hits/total/value").asDouble());
        }
        // Elasticsearch names the hidden order metric "o"; Vespa shows no such output.
        stripHidden(want);
        // A group shows count() only when asked (each(group(...)) asks nothing of the outer one).
        alignCounts(want, got);
        assertFalse(got.isEmpty(), yql);
        assertEquals(want, got, store + " seed " + seed + " " + yql);
      }

      // order by against sort, with Vespa's missing-value order spelled out for Elasticsearch: a
      // tenth of the documents have no rating, and ascending they come first.
      String yql =
          "select * from shop where stock > 10 order by rating asc, stock desc, meta.rank asc"
              + " limit 15 offset 3";
      JsonNode vespa = ok(f, "/search/", Json.MAPPER.createObjectNode().put("yql", yql).toString());
      JsonNode es =
          ok(
              f,
              "/shop/_search",
              "{\"from\":3,\"size\":12,\"_source\":false,\"query\":{\"range\":{\"stock\":"
                  + "{\"gt\":10}}},\"sort\":[{\"rating\":{\"order\":\"asc\",\"missing\":\"_first\"}},"
                  + "{\"stock\":{\"order\":\"desc\",\"missing\":\"_last\"}},"
                  + "{\"meta.rank\":{\"order\":\"asc\",\"missing\":\"_first\"}}]}");
      List<String> esIds = new ArrayList<>();
      es.at("/hits/hits").forEach(h -> esIds.add(h.get("_id").asText()));
      List<String> vIds = new ArrayList<>();
      vespa
          .at("/root/children")
          .forEach(
              h -> {
                String id = h.get("id").asText();
                vIds.add(id.substring(id.lastIndexOf("::") + 2));
              });
      assertEquals(12, esIds.size(), es.toString());
      assertEquals(esIds, vIds, store + " seed " + seed + " " + yql);

      // Bad grouping: Vespa's error shape, 400.
      ServerFixture.Response bad =
          f.send(
              "POST",
              "/search/",
              Json.MAPPER
                  .createObjectNode()
                  .put(
                      "yql",
                      "select * from shop where true | all(group(nope) each(output(count())))")
                  .toString());
      assertEquals(400, bad.status(), bad.body());
      assertEquals(4, bad.json().at("/root/errors/0/code").asInt(), bad.body());
      assertTrue(bad.json().at("/root/errors/0/message").asText().contains("'nope'"), bad.body());
    }
  }

  private static JsonNode ok(ServerFixture f, String path, String body) throws Exception {
    ServerFixture.Response r = f.send("POST", path, body);
    assertEquals(200, r.status(), path + " " + body + " -> " + r.body());
    return r.json();
  }

  /**
   * A Vespa group as a comparable map: its value (or bucket bounds) under "key", its outputs by
   * name, and each group list under its label as a list of groups.
   */
  private static Map<String, Object> vespaGroup(JsonNode g) {
    Map<String, Object> out = new TreeMap<>();
    if (g.has("value")) {
      out.put("key", g.get("value").asText());
    } else if (g.has("limits")) {
      out.put(
          "key", bound(g.at("/limits/from").asText()) + ":" + bound(g.at("/limits/to").asText()));
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = g.path("fields").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), round(e.getValue().asDouble()));
    }
    for (JsonNode list : g.path("children")) {
      List<Object> groups = new ArrayList<>();
      list.path("children").forEach(c -> groups.add(vespaGroup(c)));
      out.put(list.get("label").asText(), groups);
    }
    return out;
  }

  /** A bucket bound as a double, a long's extremes as infinities. */
  private static String bound(String s) {
    double d = Double.parseDouble(s);
    if (s.equals(Long.toString(Long.MIN_VALUE))) {
      d = Double.NEGATIVE_INFINITY;
    } else if (s.equals(Long.toString(Long.MAX_VALUE))) {
      d = Double.POSITIVE_INFINITY;
    }
    return Double.toString(d);
  }

  /** One level of Elasticsearch aggregations in the form of {@link #vespaGroup}. */
  private static Map<String, Object> esLevel(JsonNode aggs) {
    Map<String, Object> out = new TreeMap<>();
    if (aggs == null) {
      return out;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = aggs.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode a = e.getValue();
      if (!a.isObject()) {
        continue; // key, doc_count and the like of the bucket itself
      }
      if (a.has("buckets")) {
        List<Object> groups = new ArrayList<>();
        for (JsonNode b : a.get("buckets")) {
          if (b.get("doc_count").asLong() == 0) {
            continue; // Vespa makes no group of an empty bucket
          }
          Map<String, Object> g = esLevel(b);
          if (b.has("key_as_string") && !b.has("from") && !b.has("to")) {
            g.put("key", b.get("key_as_string").asText()); // booleans
          } else if (b.has("from") || b.has("to") || a.get("buckets").isObject()) {
            g.put(
                "key",
                Double.toString(b.has("from") ? b.get("from").asDouble() : Double.NEGATIVE_INFINITY)
                    + ":"
                    + Double.toString(
                        b.has("to") ? b.get("to").asDouble() : Double.POSITIVE_INFINITY));
          } else {
            g.put("key", b.get("key").asText());
          }
          g.put("count()", round(b.get("doc_count").asDouble()));
          groups.add(g);
        }
        out.put(e.getKey(), groups);
      } else if (a.has("value")) {
        if (!a.get("value").isNull()) {
          out.put(e.getKey(), round(a.get("value").asDouble()));
        }
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static void stripHidden(Map<String, Object> level) {
    level.remove("o");
    for (Object v : level.values()) {
      if (v instanceof List<?> groups) {
        for (Object g : groups) {
          stripHidden((Map<String, Object>) g);
        }
      }
    }
  }

  /** Drops Elasticsearch's doc_count where the Vespa group at the same place shows no count(). */
  @SuppressWarnings("unchecked")
  private static void alignCounts(Map<String, Object> want, Map<String, Object> got) {
    if (!got.containsKey("count()")) {
      want.remove("count()");
    }
    for (Map.Entry<String, Object> e : want.entrySet()) {
      if (e.getValue() instanceof List<?> w && got.get(e.getKey()) instanceof List<?> g) {
        for (int i = 0; i < Math.min(w.size(), g.size()); i++) {
          alignCounts((Map<String, Object>) w.get(i), (Map<String, Object>) g.get(i));
        }
      }
    }
  }

  private static double round(double v) {
    return Math.round(v * 1e6) / 1e6;
  }
}
