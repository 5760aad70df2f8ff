package org.searchlab.server.vespa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.agg.Aggregation;
import org.searchlab.core.agg.Aggregation.BucketOrder;
import org.searchlab.core.agg.Aggregation.Metric;
import org.searchlab.core.agg.Aggregation.MetricKind;
import org.searchlab.core.agg.Aggregation.RangeSpec;
import org.searchlab.core.agg.Aggregation.Terms;
import org.searchlab.core.agg.AggregationResult;
import org.searchlab.core.agg.AggregationResult.Bucket;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.SortKey;
import org.searchlab.server.Json;
import org.searchlab.server.ServerLimits;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * Vespa grouping and {@code order by} in YQL: the exact core aggregation trees and sort keys a
 * statement translates to, Vespa's result shape rendered from core results, and the refusals.
 */
class VespaGroupingTest {
  private static final Mapping CATALOG = CatalogCorpus.mapping();

  private static VespaSearch search(String yql, String... params) {
    ObjectNode b = Json.MAPPER.createObjectNode().put("yql", yql);
    for (int i = 0; i < params.length; i += 2) {
      b.put(params[i], params[i + 1]);
    }
    return VespaQueryTranslator.translate(
        VespaQueryTranslator.flatten(b, Map.of()), "shop", CATALOG, ServerLimits.DEFAULT);
  }

  private static Map<String, Aggregation> aggs(String grouping, String... params) {
    return search("select * from shop where true limit 0 | " + grouping, params)
        .request()
        .aggregations();
  }

  private static Map<String, Aggregation> map(Object... kv) {
    Map<String, Aggregation> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], (Aggregation) kv[i + 1]);
    }
    return m;
  }

  /** The aggregations of one root holding one group list. */
  private static Map<String, Aggregation> oneList(Aggregation list) {
    return map("root0", root(map("list0", list)));
  }

  private static Aggregation root(Map<String, Aggregation> subs) {
    return new Aggregation.Filter(Query.MatchAll.INSTANCE, subs);
  }

  private static Terms terms(
      String field, int size, List<BucketOrder> order, Map<String, Aggregation> subs) {
    return new Terms(field, size, 0, order, 1, null, subs);
  }

  private static Metric metric(MetricKind k, String field) {
    return new Metric(k, field, null);
  }

  private static String message(String yql, String... params) {
    return assertThrows(InvalidRequestException.class, () -> search(yql, params)).getMessage();
  }

  @Test
  void groupByAnAttributeIsTermsWithMetricOutputs() {
    assertEquals(
        oneList(
            terms(
                "brand",
                5,
                List.of(BucketOrder.COUNT_DESC),
                map(
                    "out0",
                    metric(MetricKind.AVG, "weight"),
                    "out1",
                    metric(MetricKind.MAX, "stock")))),
        aggs(
            "all(group(brand) max(5) order(-count())"
                + " each(output(count(), avg(weight), max(stock))))"));
  }

  @Test
  void defaultsAreTenGroupsByCountDescending() {
    Map<String, Aggregation> want = oneList(terms("stock", 10, List.of(), map()));
    assertEquals(want, aggs("all(group(stock) each(output(count())))"));
    assertEquals(
        oneList(terms("stock", 3, List.of(), map())),
        aggs("all(group(stock) each(output(count())))", "grouping.defaultMaxGroups", "3"));
    // precision() is accepted: one node counts every group exactly.
    assertEquals(want, aggs("all(group(stock) precision(1000) each(output(count())))"));
  }

  @Test
  void ordersByCountMetricsAndTheGroupsOwnValue() {
    assertEquals(
        oneList(
            terms(
                "brand",
                4,
                List.of(
                    new BucketOrder("out0", true),
                    new BucketOrder("order0", false),
                    new BucketOrder(BucketOrder.COUNT, true)),
                map(
                    "out0",
                    metric(MetricKind.SUM, "stock"),
                    "order0",
                    metric(MetricKind.MAX, "weight")))),
        aggs(
            "all(group(brand) max(4) order(sum(stock), -max(weight), +count())"
                + " each(output(sum(stock))))"));
    assertEquals(
        oneList(terms("brand", 10, List.of(new BucketOrder(BucketOrder.KEY, false)), map())),
        aggs("all(group(brand) order(-max(brand)) each(output(count())))"));
  }

  @Test
  void predefinedBucketsAreHalfOpenRangesAsVespaResolvesThem() {
    // bucket(a, b) and bucket[a, b> are [a, b); bucket<a is (a, i.e. [a + 1 for longs; b] is
    // [.., b + 1); bucket(a) alone is [a, a + 1).
    assertEquals(
        oneList(
            new Aggregation.Range(
                "stock",
                List.of(
                    new RangeSpec(null, null, 0.0),
                    new RangeSpec(null, 0.0, 10.0),
                    new RangeSpec(null, 10.0, 51.0),
                    new RangeSpec(null, 51.0, null),
                    new RangeSpec(null, 7.0, 8.0)),
                false,
                map("out0", metric(MetricKind.MIN, "weight")))),
        aggs(
            "all(group(predefined(stock, bucket(-inf, 0), bucket(0, 10), bucket[10, 50],"
                + " bucket<50, inf>, bucket[7])) each(output(count(), min(weight))))"));
    assertEquals(
        oneList(
            new Aggregation.Range(
                "weight",
                List.of(new RangeSpec(null, 0.0, 0.5), new RangeSpec(null, Math.nextUp(0.5), null)),
                false,
                map())),
        aggs("all(group(predefined(weight, bucket[0.0, 0.5>, bucket<0.5, inf>)))"));
  }

  @Test
  void nestedGroupsAndRootOutputs() {
    Map<String, Aggregation> tags =
        map("list0", terms("tags", 2, List.of(), map("out0", metric(MetricKind.SUM, "stock"))));
    assertEquals(
        map(
            "root0",
            root(
                map(
                    "out0",
                    metric(MetricKind.SUM, "stock"),
                    "list0",
                    terms("brand", 3, List.of(), tags)))),
        aggs(
            "all(output(count(), sum(stock)) all(group(brand) max(3) each(output(count())"
                + " all(group(tags) max(2) each(output(sum(stock)))))))"));
    // each(group(b) ...) is the same nesting written shorter.
    assertEquals(
        oneList(terms("brand", 3, List.of(), tags)),
        aggs("all(group(brand) max(3) each(group(tags) max(2) each(output(sum(stock)))))"));
    // Several requests: one root each; the select parameter adds its own.
    Map<String, Aggregation> two =
        search(
                "select * from shop where true | all(output(count()))",
                "select",
                "all(group(available) each(output(count())))")
            .request()
            .aggregations();
    assertEquals(
        map(
            "root0",
            root(map()),
            "root1",
            root(map("list0", terms("available", 10, List.of(), map())))),
        two);
  }

  @Test
  void orderByIsCoreSortKeysWithVespasMissingValueOrder() {
    SearchRequest r =
        search("select * from shop where true order by stock desc, brand, \"[relevance]\" limit 7")
            .request();
    assertEquals(
        List.of(
            new SortKey("stock", false, false, null),
            new SortKey("brand", true, true, null),
            new SortKey(SortKey.SCORE, false, false, null)),
        r.sort());
    assertEquals(7, r.hits());
    SearchRequest paged =
        search(
                "select * from shop where true order by \"[docid]\" asc, weight asc limit 15 offset"
                    + " 5")
            .request();
    assertEquals(
        List.of(
            new SortKey(SortKey.DOC, true, true, null), new SortKey("weight", true, true, null)),
        paged.sort());
    assertEquals(5, paged.offset());
    assertEquals(10, paged.hits());
  }

  @Test
  void refusesWhatIsNotSupportedWithTheColumn() {
    assertTrue(
        message("select * from shop where true order by {function: \"uca\"}brand")
            .contains("not supported"));
    assertTrue(message("select * from shop where true order by nope").contains("'nope'"));
    assertTrue(message("select * from shop where true order by \"x\"").contains("special"));
    String yql = "select * from shop where true | all(group(time.year(released)))";
    String m = message(yql);
    assertTrue(m.contains("column " + (yql.indexOf("time") + 1)), m);
    assertTrue(message("select * from shop where true | all(group(nope))").contains("'nope'"));
    assertTrue(
        message("select * from shop where true | all(group(body) each(output(count())))")
            .contains("not an attribute"));
    assertTrue(
        message("select * from shop where true | all(group(brand) each(output(avg(brand))))")
            .contains("not an attribute"));
    assertTrue(
        message("select * from shop where true | all(each(output(summary())))")
            .contains("summary()"));
    assertTrue(
        message("select * from shop where true | all(group(brand) max(inf) each(output(count())))")
            .contains("globalMaxGroups"));
    assertTrue(
        message(
                "select * from shop where true | all(group(brand) max(200) each(all(group(tags)"
                    + " max(100) each(output(count())))))")
            .contains("20200 > 10000"));
    assertTrue(
        message(
                "select * from shop where true | all(group(brand))",
                "grouping.globalMaxGroups",
                "5")
            .contains("query profile"));
    assertTrue(
        message(
                "select * from shop where true | all(group(predefined(brand, bucket(\"a\", \"c\"))))")
            .contains("string"));
    assertTrue(message("select * from shop where true | all(group(brand)").contains("expected"));
    assertTrue(message("select * from shop where true | ").contains("empty"));
    assertTrue(
        message("select * from shop where true | all(group(brand) filter(regex(\"a\", brand)))")
            .contains("filter"));
    assertTrue(
        message("select * from shop where true | all(group(brand) order(-max(relevance())))")
            .contains("relevance"));
    // Deeper than core's 8 levels of aggregations: refused when the request is checked.
    StringBuilder deep = new StringBuilder("all(group(brand) max(1) ");
    for (int i = 0; i < 8; i++) {
      deep.append("each(group(tags) max(1) ");
    }
    deep.append(")".repeat(9));
    SearchRequest tooDeep = search("select * from shop where true | " + deep).request();
    assertTrue(
        assertThrows(InvalidRequestException.class, () -> tooDeep.validate(CATALOG))
            .getMessage()
            .contains("the limit is 8"));
  }

  @Test
  void rendersVespasGroupIdsAndFields() {
    VespaGrouping g =
        search(
                "select * from shop where true | all(output(count()) all(group(brand)"
                    + " each(output(count(), max(stock)))) all(group(weight) each(output(count())))"
                    + " all(group(predefined(stock, bucket(-inf, 10), bucket[10, inf>))"
                    + " each(output(count()))))")
            .grouping();
    Map<String, AggregationResult> stockMax =
        Map.of("out0", new AggregationResult.Value("max", 42.0, null));
    AggregationResult.Buckets brands =
        new AggregationResult.Buckets(
            "terms", List.of(new Bucket("acme", null, 3, null, null, stockMax)), false, 0);
    AggregationResult.Buckets weights =
        new AggregationResult.Buckets(
            "terms", List.of(new Bucket(2.5, null, 2, null, null, Map.of())), false, 0);
    AggregationResult.Buckets ranges =
        new AggregationResult.Buckets(
            "range",
            List.of(
                new Bucket("*-10.0", null, 4, null, 10.0, Map.of()),
                new Bucket("10.0-*", null, 0, 10.0, null, Map.of())),
            false,
            0);
    Map<String, AggregationResult> subs = new LinkedHashMap<>();
    subs.put("list0", brands);
    subs.put("list1", weights);
    subs.put("list2", ranges);
    ArrayNode children = Json.MAPPER.createArrayNode();
    g.render(Map.of("root0", new AggregationResult.SingleBucket("filter", 9, subs)), children);
    ObjectNode root = (ObjectNode) children.get(0);
    assertEquals("group:root:0", root.get("id").asText());
    assertEquals("", root.at("/continuation/this").asText());
    assertEquals(9, root.at("/fields/count()").asLong());
    assertEquals("grouplist:brand", root.at("/children/0/id").asText());
    assertEquals("brand", root.at("/children/0/label").asText());
    ObjectNode acme = (ObjectNode) root.at("/children/0/children/0");
    assertEquals("group:string:acme", acme.get("id").asText());
    assertEquals("acme", acme.get("value").asText());
    assertEquals(3, acme.at("/fields/count()").asLong());
    assertTrue(acme.at("/fields/max(stock)").isIntegralNumber(), acme.toString());
    assertEquals(42, acme.at("/fields/max(stock)").asLong());
    assertEquals("group:double:2.5", root.at("/children/1/children/0/id").asText());
    assertEquals(1, root.at("/children/2/children").size(), "an empty bucket is no group");
    assertEquals(
        "group:long_bucket:-9223372036854775808:10", root.at("/children/2/children/0/id").asText());
    assertEquals("10", root.at("/children/2/children/0/limits/to").asText());
  }
}
