package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.SourceJson;
import org.searchlab.core.mapping.MappingJson;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * Aggregations, sorts and {@code search_after} in the Elasticsearch dialect: an index of each store
 * kind and one of the exact store, with the conformance suite's catalog mapping, in one server; the
 * same bodies must give each store the exact store's {@code aggregations} and sorted hits, in
 * Elasticsearch's response shape ({@code buckets}, {@code doc_count_error_upper_bound}, {@code
 * key_as_string}, {@code sort}, {@code _score: null}, {@code typed_keys} names), and bad requests
 * Elasticsearch's errors.
 */
class EsAggregationsTest {
  private static final int DOCS = 300;

  @TempDir Path tmp;

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private HttpResponse<String> call(SearchServer s, String method, String path, String body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header(
          "Content-Type", path.contains("_bulk") ? "application/x-ndjson" : "application/json");
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  private JsonNode ok(SearchServer s, String method, String path, String body) throws Exception {
    HttpResponse<String> r = call(s, method, path, body);
    assertTrue(r.statusCode() == 200 || r.statusCode() == 201, path + ": " + r.body());
    return Json.MAPPER.readTree(r.body());
  }

  private static String indexBody(String store, org.searchlab.core.mapping.Mapping mapping) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.putObject("settings").putObject("index").put("number_of_replicas", 0).put("store", store);
    body.set("mappings", MappingJson.render(mapping));
    return body.toString();
  }

  private SearchServer server() throws Exception {
    return SearchServer.start(
        ServerConfig.builder().port(0).build(),
        tmp.resolve("data"),
        TestKinds.all(),
        "segmented",
        Optional.empty(),
        Optional.empty());
  }

  /** Creates an index of {@code mapping} for each kind and feeds it {@code docs}. */
  private void feed(
      SearchServer s,
      String prefix,
      org.searchlab.core.mapping.Mapping mapping,
      List<String> kinds,
      List<Document> docs)
      throws Exception {
    for (String kind : kinds) {
      ok(s, "PUT", "/" + prefix + kind, indexBody(kind, mapping));
      for (int from = 0; from < docs.size(); from += 100) {
        StringBuilder bulk = new StringBuilder();
        for (Document d : docs.subList(from, Math.min(docs.size(), from + 100))) {
          bulk.append("{\"index\":{\"_index\":\"" + prefix + kind + "\",\"_id\":\"")
              .append(d.id())
              .append("\"}}\n")
              .append(SourceJson.json(d.source()))
              .append('\n');
        }
        JsonNode answer = ok(s, "POST", "/_bulk?refresh=true", bulk.toString());
        assertTrue(!answer.get("errors").asBoolean(), answer.toString());
      }
    }
  }

  /** Each store's answer to {@code body} equals the exact store's: aggregations, hits, total. */
  private void sameAsExact(SearchServer s, String prefix, String body, long seed) throws Exception {
    JsonNode want = ok(s, "POST", "/" + prefix + "exact/_search?typed_keys=true", body);
    for (String kind : List.of("mutable", "segmented")) {
      JsonNode got = ok(s, "POST", "/" + prefix + kind + "/_search?typed_keys=true", body);
      assertEquals(
          strip(want.get("aggregations")),
          strip(got.get("aggregations")),
          kind + " seed " + seed + " body " + body);
      assertEquals(sortValues(want), sortValues(got), kind + " seed " + seed + " " + body);
      assertEquals(want.at("/hits/total"), got.at("/hits/total"), kind + " " + body);
    }
  }

  private static final List<String> PRODUCT_BODIES =
      List.of(
          // the experiment's faceted query: lexical with the category filter, categories and
          // price buckets beside ten hits (sorted by price, so that the hits compare exactly)
          "{\"size\":10,\"query\":{\"bool\":{\"must\":{\"multi_match\":{\"query\":"
              + "\"%s\",\"fields\":[\"title\",\"description\"]}},\"filter\":"
              + "[{\"range\":{\"price\":{\"gte\":200}}}]}},\"sort\":[{\"price\":\"asc\"}],"
              + "\"aggs\":{\"cats\":{\"terms\":{\"field\":\"category\",\"size\":5}},"
              + "\"prices\":{\"range\":{\"field\":\"price\",\"ranges\":[{\"to\":500},"
              + "{\"from\":500,\"to\":1000},{\"from\":1000}]}}}}",
          // a range query as the query (the server runs it as the benchmark's filter), a sort
          // and metrics on both numbers
          "{\"size\":20,\"query\":{\"range\":{\"price\":{\"gt\":800.5}}},"
              + "\"sort\":[{\"average_rating\":\"desc\"},{\"price\":\"asc\"}],"
              + "\"aggs\":{\"r\":{\"stats\":{\"field\":\"average_rating\"}},"
              + "\"p\":{\"avg\":{\"field\":\"price\"}},"
              + "\"c\":{\"cardinality\":{\"field\":\"category\"}}}}",
          // every document: categories by key with a sub-aggregation, a histogram, a filter
          "{\"size\":0,\"aggs\":{\"cats\":{\"terms\":{\"field\":\"category\",\"size\":50,"
              + "\"order\":{\"_key\":\"asc\"}},\"aggs\":{\"top\":{\"top_hits\":{\"size\":2,"
              + "\"sort\":[{\"price\":\"desc\"}]}}}},\"stars\":{\"histogram\":{\"field\":"
              + "\"average_rating\",\"interval\":1}},\"cheap\":{\"filter\":{\"range\":"
              + "{\"price\":{\"lt\":400}}}}}}");

  @Test
  void productIndexesFacetAsTheExactStore() throws Exception {
    long seed = TestSeeds.seed("EsAggregationsTest.product");
    org.searchlab.testing.data.SyntheticCorpus corpus =
        new org.searchlab.testing.data.SyntheticCorpus(
            seed,
            4,
            org.searchlab.testing.data.SyntheticCorpus.Params.builder().vocabulary(300).build());
    // Unique prices: sorts ending with price have one order on every store.
    List<Document> docs = new ArrayList<>();
    for (Document d : corpus.documents(DOCS)) {
      docs.add(
          new Document(
              d.id(),
              d.title(),
              d.description(),
              d.category(),
              100 + (int) ((docs.size() * 7919L) % 2003),
              d.averageRating(),
              d.embedding()));
    }
    List<String> kinds = List.of("exact", "mutable", "segmented");
    try (SearchServer s = server()) {
      feed(s, "facets-", org.searchlab.core.mapping.Mapping.product(4), kinds, docs);
      String text = corpus.randomQueryText(new java.util.SplittableRandom(seed), 2);
      for (String body : PRODUCT_BODIES) {
        sameAsExact(s, "facets-", body.replace("%s", text), seed);
      }
      // A term query is scored (BM25 of the term), which the product index has no plan for.
      HttpResponse<String> term =
          call(
              s,
              "POST",
              "/facets-mutable/_search",
              "{\"query\":{\"term\":{\"category\":\"cat-0\"}},"
                  + "\"aggs\":{\"p\":{\"max\":{\"field\":\"price\"}}}}");
      assertEquals(400, term.statusCode(), term.body());
      assertTrue(term.body().contains("request shape"), term.body());
    }
  }

  private static final List<String> BODIES =
      List.of(
          // facets beside the hits: terms by count with a sub-metric, a range, a histogram
          "{\"size\":0,\"query\":{\"range\":{\"stock\":{\"gte\":20}}},\"aggs\":{"
              + "\"brands\":{\"terms\":{\"field\":\"brand\",\"size\":4},"
              + "\"aggs\":{\"stock\":{\"max\":{\"field\":\"stock\"}}}},"
              + "\"weights\":{\"range\":{\"field\":\"weight\",\"ranges\":[{\"to\":20},"
              + "{\"from\":20,\"to\":60},{\"from\":60}]}},"
              + "\"per50\":{\"histogram\":{\"field\":\"stock\",\"interval\":50}}}}",
          // calendar buckets in a zone, tags by key, cardinality and stats
          "{\"size\":0,\"aggs\":{\"months\":{\"date_histogram\":{\"field\":\"released\","
              + "\"calendar_interval\":\"month\",\"time_zone\":\"Europe/Berlin\"}},"
              + "\"tags\":{\"terms\":{\"field\":\"tags\",\"order\":{\"_key\":\"desc\"},"
              + "\"missing\":\"none\"}},\"origins\":{\"cardinality\":{\"field\":\"meta.origin\"}},"
              + "\"ranks\":{\"stats\":{\"field\":\"meta.rank\"}},"
              + "\"on\":{\"terms\":{\"field\":\"available\"}}}}",
          // filters with another bucket, and top hits sorted by a unique field
          "{\"size\":0,\"aggs\":{\"f\":{\"filters\":{\"filters\":{\"cheap\":{\"range\":"
              + "{\"weight\":{\"lt\":30}}},\"acme\":{\"term\":{\"brand\":\"acme\"}}},"
              + "\"other_bucket\":true},\"aggs\":{\"best\":{\"top_hits\":{\"size\":2,"
              + "\"sort\":[{\"meta.rank\":\"desc\"}],\"_source\":[\"brand\"]}}}}}}",
          // sorted hits with their sort values
          "{\"size\":15,\"sort\":[{\"brand\":\"asc\"},{\"stock\":{\"order\":\"desc\"}},"
              + "{\"meta.rank\":\"asc\"}],\"_source\":false}");

  @Test
  void eachStoreAnswersAggregationsAndSortsAsTheExactStore() throws Exception {
    long seed = TestSeeds.seed("EsAggregationsTest");
    // meta.rank made unique, so that sorts ending with it have one order on every store.
    List<Document> docs = new ArrayList<>();
    for (Document d : new CatalogCorpus(seed).documents(DOCS)) {
      java.util.Map<String, Object> source = new java.util.LinkedHashMap<>(d.source());
      @SuppressWarnings("unchecked")
      java.util.Map<String, Object> meta =
          new java.util.LinkedHashMap<>((java.util.Map<String, Object>) source.get("meta"));
      meta.put("rank", (docs.size() * 104_729L) % 1_000_003L);
      source.put("meta", meta);
      docs.add(new Document(d.id(), source));
    }
    List<String> kinds = List.of("exact", "mutable", "segmented");
    try (SearchServer s = server()) {
      feed(s, "agg-", CatalogCorpus.mapping(), kinds, docs);
      for (String body : BODIES) {
        sameAsExact(s, "agg-", body, seed);
      }
      // The response shape, read once from the exact store.
      JsonNode facets = ok(s, "POST", "/agg-segmented/_search?typed_keys=true", BODIES.get(0));
      JsonNode brands = facets.at("/aggregations/sterms#brands");
      assertEquals(0, brands.get("doc_count_error_upper_bound").asInt(), facets.toString());
      assertTrue(brands.has("sum_other_doc_count"));
      assertTrue(brands.at("/buckets/0/max#stock/value").isNumber(), brands.toString());
      assertEquals("*-20.0", facets.at("/aggregations/range#weights/buckets/0/key").asText());
      JsonNode sorted = ok(s, "POST", "/agg-mutable/_search", BODIES.get(3));
      assertTrue(sorted.at("/hits/hits/0/_score").isNull(), sorted.toString());
      assertTrue(sorted.at("/hits/max_score").isNull(), sorted.toString());
      assertEquals(3, sorted.at("/hits/hits/0/sort").size(), sorted.toString());
      JsonNode months = ok(s, "POST", "/agg-mutable/_search", BODIES.get(1));
      assertTrue(
          months.at("/aggregations/months/buckets/0/key_as_string").asText().endsWith("+01:00")
              || months
                  .at("/aggregations/months/buckets/0/key_as_string")
                  .asText()
                  .endsWith("+02:00"),
          months.toString());

      // search_after walks the sorted hits a page at a time.
      for (String kind : List.of("mutable", "segmented")) {
        List<String> paged = new ArrayList<>();
        String after = null;
        for (int page = 0; page < 50; page++) {
          String body =
              "{\"size\":40,\"sort\":[{\"weight\":\"desc\"},{\"meta.rank\":\"asc\"}],"
                  + "\"_source\":false"
                  + (after == null ? "" : ",\"search_after\":" + after)
                  + "}";
          JsonNode r = ok(s, "POST", "/agg-" + kind + "/_search", body);
          JsonNode hits = r.at("/hits/hits");
          if (hits.isEmpty()) {
            break;
          }
          hits.forEach(h -> paged.add(h.get("_id").asText()));
          after = hits.get(hits.size() - 1).get("sort").toString();
        }
        JsonNode all =
            ok(
                s,
                "POST",
                "/agg-exact/_search",
                "{\"size\":"
                    + DOCS
                    + ",\"sort\":[{\"weight\":\"desc\"},{\"meta.rank\":\"asc\"}],"
                    + "\"_source\":false}");
        List<String> expected = new ArrayList<>();
        all.at("/hits/hits").forEach(h -> expected.add(h.get("_id").asText()));
        assertEquals(expected, paged, kind + " seed " + seed);
      }

      // Errors as Elasticsearch gives them.
      HttpResponse<String> text =
          call(
              s,
              "POST",
              "/agg-segmented/_search",
              "{\"aggs\":{\"t\":{\"terms\":{\"field\":\"body\"}}}}");
      assertEquals(400, text.statusCode(), text.body());
      assertTrue(text.body().contains("illegal_argument_exception"), text.body());
      HttpResponse<String> many =
          call(
              s,
              "POST",
              "/agg-mutable/_search",
              "{\"aggs\":{\"h\":{\"histogram\":{\"field\":\"weight\",\"interval\":0.0001}}}}");
      assertEquals(400, many.statusCode(), many.body());
      assertTrue(many.body().contains("too_many_buckets_exception"), many.body());
      HttpResponse<String> unknown =
          call(
              s,
              "POST",
              "/agg-mutable/_search",
              "{\"aggs\":{\"x\":{\"percentiles\":{\"field\":\"stock\"}}}}");
      assertEquals(400, unknown.statusCode(), unknown.body());
    }
  }

  /** The aggregations without the parts two correct stores may differ in: float sums' last bits. */
  private static JsonNode strip(JsonNode aggs) {
    return aggs == null ? null : Json.MAPPER.valueToTree(round(aggs));
  }

  private static Object round(JsonNode n) {
    if (n.isObject()) {
      java.util.Map<String, Object> m = new java.util.TreeMap<>();
      n.fields()
          .forEachRemaining(
              e -> {
                if (!e.getKey().equals("_index")) { // each store's own index name
                  m.put(e.getKey(), round(e.getValue()));
                }
              });
      return m;
    }
    if (n.isArray()) {
      List<Object> l = new ArrayList<>();
      n.forEach(x -> l.add(round(x)));
      return l;
    }
    if (n.isFloatingPointNumber()) {
      return Math.round(n.doubleValue() * 1e6) / 1e6;
    }
    return n;
  }

  private static List<String> sortValues(JsonNode answer) {
    List<String> out = new ArrayList<>();
    answer.at("/hits/hits").forEach(h -> out.add(h.get("_id").asText() + h.path("sort")));
    return out;
  }
}
