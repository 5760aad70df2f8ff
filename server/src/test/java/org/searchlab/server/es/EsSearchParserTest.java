// Over 500 lines: one test class for the search body's every key, as the parser is one class.
package org.searchlab.server.es;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.searchlab.server.es.EsParse.refused;
import static org.searchlab.server.es.EsParse.request;
import static org.searchlab.server.es.EsParse.search;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.ProductShape;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.core.query.Query.Bool;
import org.searchlab.core.query.Query.Match;
import org.searchlab.core.query.Query.Term;
import org.searchlab.core.query.Rank;
import org.searchlab.core.query.Script;
import org.searchlab.server.ApiException;
import org.searchlab.server.Json;
import org.searchlab.server.service.KnnText;

/**
 * The search body around the query: paging, source filtering, total hits, the harmless and the
 * refused keys, kNN sections, {@code rank}, retrievers, {@code min_score} and {@code _count}; the
 * exact {@link SearchRequest} each becomes and each refusal.
 */
class EsSearchParserTest {
  private static final float[] V = {0.6f, 0.8f};
  private static final String VJ = "[0.6,0.8]";
  private static final Query TERM = Term.of("category", "shoes");

  private static Knn knn(String field, int k, int numCandidates, Query filter) {
    return new Knn(field, V, k, numCandidates, filter, null, 1f, 0);
  }

  @Test
  void anEmptyBodyIsMatchAllWithElasticsearchDefaults() {
    for (String body : new String[] {null, "{}"}) {
      EsSearch s = search(body);
      SearchRequest r = s.request();
      assertSame(Query.MatchAll.INSTANCE, r.query());
      assertEquals(List.of(), r.knn());
      assertEquals(Rank.SUM, r.rank());
      assertEquals(10, r.hits());
      assertEquals(0, r.offset());
      assertEquals(10_000, r.trackTotalHitsUpTo());
      assertTrue(r.fetchDocuments());
      assertTrue(r.approximate());
      assertEquals(EsSourceFilter.ALL, s.source());
      assertTrue(s.trackTotal());
      assertEquals(List.of(), s.embedTexts());
      assertEquals("unranked", s.queryType());
      assertTrue(ProductShape.of(r).isPresent(), "match_all stays on the stores' fast path");
    }
  }

  @Test
  void fromAndSizeFromTheBodyAndTheUrl() {
    SearchRequest r = request("{\"from\":5,\"size\":20}");
    assertEquals(20, r.hits());
    assertEquals(5, r.offset());
    SearchRequest url = request("{\"from\":5,\"size\":20}", "size", "3", "from", "7");
    assertEquals(3, url.hits(), "the URL overrides the body, as RestSearchAction");
    assertEquals(7, url.offset());
    assertEquals(0, request("{\"size\":0}").hits());
    assertEquals(4, request("{\"size\":\"4\"}").hits());
    refused("{\"size\":10001}").illegal("[size] 10001 is outside [0, 10000]");
    refused("{\"size\":-1}").illegal("[size] -1 is outside [0, 10000]");
    refused("{\"from\":1.5}").illegal("[from] must be an integer");
    refused("{}", "size", "ten").illegal("parameter [size] must be an integer");
    refused("{}", "from", "99999").illegal("parameter [from] 99999 is outside [0, 10000]");
    refused("{\"size\":99999999999}").illegal("[size] 99999999999 is outside");
  }

  @Test
  void sourceFilteringInTheBodyAndTheUrl() {
    EsSearch off = search("{\"_source\":false}");
    assertEquals(EsSourceFilter.NONE, off.source());
    assertFalse(off.request().fetchDocuments(), "no source: the store fetches no documents");
    assertEquals(
        new EsSourceFilter(true, List.of("title", "meta*"), List.of()),
        search("{\"_source\":[\"title\",\"meta*\"]}").source());
    assertEquals(
        new EsSourceFilter(true, List.of("a"), List.of("b")),
        search("{\"_source\":{\"includes\":[\"a\"],\"excludes\":[\"b\"]}}").source());
    assertEquals(
        new EsSourceFilter(true, List.of("metadata", "text"), List.of()),
        search("{\"_source\":true}", "_source_includes", "metadata,text").source());
    assertEquals(EsSourceFilter.NONE, search("{\"_source\":true}", "_source", "false").source());
    assertEquals(
        EsSourceFilter.NONE,
        search("{\"stored_fields\":\"_none_\"}").source(),
        "stored_fields: no field is stored apart from _source, so none comes back");
    assertEquals(EsSourceFilter.NONE, search("{\"stored_fields\":[\"title\"]}").source());
    assertEquals(
        EsSourceFilter.ALL, search("{\"stored_fields\":[\"title\"],\"_source\":true}").source());
    refused("{\"_source\":1}").parsing("[_source] must be a boolean");
    refused("{\"stored_fields\":{}}").illegal("[stored_fields] must be a field name");
  }

  @Test
  void trackTotalHits() {
    assertEquals(Integer.MAX_VALUE, request("{\"track_total_hits\":true}").trackTotalHitsUpTo());
    EsSearch off = search("{\"track_total_hits\":false}");
    assertEquals(0, off.request().trackTotalHitsUpTo());
    assertFalse(off.trackTotal());
    assertEquals(500, request("{\"track_total_hits\":500}").trackTotalHitsUpTo());
    assertEquals(
        7, request("{\"track_total_hits\":true}", "track_total_hits", "7").trackTotalHitsUpTo());
    assertEquals(Integer.MAX_VALUE, request("{}", "track_total_hits", "true").trackTotalHitsUpTo());
    refused("{\"track_total_hits\":-5}").illegal("[track_total_hits] -5 is outside");
    refused("{\"track_total_hits\":\"lots\"}").illegal("[track_total_hits] must be true or false");
  }

  @Test
  void harmlessKeysAreCheckedAndAccepted() {
    SearchRequest plain = request("{}");
    assertEquals(
        plain,
        request(
            "{\"timeout\":\"10s\",\"track_scores\":true,\"explain\":false,\"version\":false,"
                + "\"seq_no_primary_term\":false}"));
    for (String t : List.of("500ms", "1m", "2h", "1d", "-1", "0", "100micros")) {
      assertEquals(plain, request("{\"timeout\":\"" + t + "\"}"), t);
    }
    refused("{\"timeout\":\"forever\"}").illegal("[timeout] must be a time value");
    refused("{\"timeout\":10}").illegal("[timeout] must be a time value");
    refused("{\"explain\":true}").illegal("[explain] true is not supported", "_explanation");
    refused("{\"version\":true}").illegal("[version] true is not supported", "_version");
    refused("{\"seq_no_primary_term\":true}")
        .illegal("[seq_no_primary_term] true is not supported");
    refused("{\"track_scores\":\"x\"}").illegal("[track_scores] must be true or false");
  }

  private static java.util.Map<String, org.searchlab.core.agg.Aggregation> plainAggs() {
    return java.util.Map.of();
  }

  @Test
  void sortsAggregationsAndSearchAfterParse() {
    SearchRequest r =
        request(
            "{\"size\":0,\"sort\":[\"_score\",{\"price\":{\"order\":\"desc\",\"missing\":"
                + "\"_first\",\"mode\":\"max\"}},\"category\"],\"search_after\":[1.5,7,\"x\"],"
                + "\"aggs\":{\"c\":{\"terms\":{\"field\":\"category\",\"size\":3,\"order\":"
                + "{\"_key\":\"asc\"}},\"aggs\":{\"p\":{\"avg\":{\"field\":\"price\"}}}},"
                + "\"h\":{\"histogram\":{\"field\":\"price\",\"interval\":50,"
                + "\"extended_bounds\":{\"min\":0,\"max\":500}}}}}");
    assertEquals(
        List.of(
            new org.searchlab.core.query.SortKey("_score", false, false, null),
            new org.searchlab.core.query.SortKey("price", false, true, "max"),
            new org.searchlab.core.query.SortKey("category", true, false, null)),
        r.sort());
    assertEquals(List.of(1.5, 7L, "x"), r.searchAfter());
    assertEquals(List.of("c", "h"), List.copyOf(r.aggregations().keySet()));
    org.searchlab.core.agg.Aggregation.Terms t =
        (org.searchlab.core.agg.Aggregation.Terms) r.aggregations().get("c");
    assertEquals("category", t.field());
    assertEquals(3, t.size());
    assertEquals(List.of(org.searchlab.core.agg.Aggregation.BucketOrder.KEY_ASC), t.order());
    assertEquals(
        new org.searchlab.core.agg.Aggregation.Metric(
            org.searchlab.core.agg.Aggregation.MetricKind.AVG, "price", null),
        t.subAggregations().get("p"));
    org.searchlab.core.agg.Aggregation.Histogram h =
        (org.searchlab.core.agg.Aggregation.Histogram) r.aggregations().get("h");
    assertEquals(50, h.interval());
    assertEquals(0.0, h.extendedMin());
    assertEquals(500.0, h.extendedMax());
  }

  @Test
  void refusedAndUnknownKeys() {
    // Sorts and aggregations parse now (issue 67); their bad forms are refused by name.
    assertEquals(plainAggs(), request("{\"aggs\":{}}").aggregations());
    refused("{\"sort\":{}}").parsing("[sort] must name one field");
    refused("{\"search_after\":{}}").parsing("[search_after] must be an array");
    refused("{\"aggs\":{},\"aggregations\":{}}").parsing("Found two aggregation definitions");
    refused("{\"aggs\":{\"x\":{\"percentiles\":{\"field\":\"price\"}}}}")
        .illegal("aggregation [percentiles] is not supported by this server");
    refused("{\"aggs\":{\"x\":{\"nonsense\":{}}}}").parsing("Unknown aggregation type [nonsense]");
    refused("{\"sort\":[{\"price\":{\"missing\":0}}]}")
        .illegal("other than _first or _last is not supported");
    for (String k : List.of("highlight", "suggest", "collapse", "post_filter", "rescore")) {
      refused("{\"" + k + "\":{}}").illegal("[" + k + "] is not supported");
    }
    refused("{\"querry\":{}}")
        .parsing("unknown key [querry] in the search body; supported: ", "_source", "retriever");
    refused("{}", "q", "title:red").illegal("parameter [q]", "not supported");
    refused("{}", "sort", "price:up").illegal("parameter [sort]", "is not asc or desc");
    assertEquals(
        List.of(
            new org.searchlab.core.query.SortKey("price", false, false, null),
            new org.searchlab.core.query.SortKey("_score", false, false, null)),
        request("{}", "sort", "price:desc,_score").sort());
    refused("[]").parsing("[search body] must be a JSON object");
  }

  @Test
  void knnSectionDefaultsAndOptions() {
    EsSearch s =
        search("{\"size\":4,\"knn\":{\"field\":\"embedding\",\"query_vector\":" + VJ + "}}");
    assertEquals(List.of(knn("embedding", 4, 6, Query.MatchAll.INSTANCE)), s.request().knn());
    assertNull(s.request().query(), "knn alone: no query part");
    assertEquals("vector", s.queryType());
    // num_candidates = min(1.5 k, 10000), rounded up; k = size by default.
    assertEquals(
        8,
        request("{\"size\":5,\"knn\":{\"field\":\"e\",\"query_vector\":" + VJ + "}}")
            .knn()
            .get(0)
            .numCandidates());
    assertEquals(
        10_000,
        request("{\"knn\":{\"field\":\"e\",\"query_vector\":" + VJ + ",\"k\":10000}}")
            .knn()
            .get(0)
            .numCandidates());
    assertEquals(
        1,
        request("{\"size\":0,\"knn\":{\"field\":\"e\",\"query_vector\":" + VJ + "}}")
            .knn()
            .get(0)
            .k(),
        "k is at least 1");
    assertEquals(
        List.of(new Knn("embedding", V, 15, 40, TERM, 0.75f, 2f, 30)),
        request(
                """
                {"knn":{"field":"embedding","query_vector":[0.6,0.8],"k":15,"num_candidates":40,
                  "filter":{"term":{"category":"shoes"}},"similarity":0.75,"boost":2,
                  "rescore_vector":{"oversample":2}}}""")
            .knn());
  }

  @Test
  void knnFiltersAreAQueryOrAList() {
    String head = "{\"knn\":{\"field\":\"v\",\"query_vector\":" + VJ + ",\"k\":2,\"filter\":";
    assertEquals(Query.MatchAll.INSTANCE, request(head + "[]}}").knn().get(0).filter());
    assertEquals(
        TERM, request(head + "[{\"term\":{\"category\":\"shoes\"}}]}}").knn().get(0).filter());
    assertEquals(
        TERM, request(head + "{\"term\":{\"category\":\"shoes\"}}}}").knn().get(0).filter());
    Query range = new Query.Range("price", null, 1L, null, null, null, 1f);
    assertEquals(
        new Bool(List.of(), List.of(TERM, range), List.of(), List.of(), null, 1f),
        request(
                head
                    + "[{\"term\":{\"category\":\"shoes\"}},{\"range\":{\"price\":{\"gte\":1}}}]}}")
            .knn()
            .get(0)
            .filter());
    refused(head + "[{\"nope\":{}}]}}").parsing("unknown query type [nope] in [knn.filter[0]]");
    refused(head + "\"x\"}}").parsing("[knn.filter] must be a JSON object");
  }

  @Test
  void severalKnnSectionsAndHybrid() {
    SearchRequest r =
        request(
            "{\"size\":3,\"knn\":[{\"field\":\"a\",\"query_vector\":"
                + VJ
                + ",\"k\":2},{\"field\":\"b\",\"query_vector\":"
                + VJ
                + ",\"k\":3,\"num_candidates\":9}]}");
    assertEquals(
        List.of(knn("a", 2, 3, Query.MatchAll.INSTANCE), knn("b", 3, 9, Query.MatchAll.INSTANCE)),
        r.knn());
    assertEquals(Rank.SUM, r.rank());

    EsSearch hybrid =
        search(
            "{\"query\":{\"bool\":{\"must\":{\"match\":{\"title\":\"red\"}},"
                + "\"filter\":{\"range\":{\"price\":{\"lte\":50}}}}},"
                + "\"knn\":{\"field\":\"embedding\",\"query_vector\":"
                + VJ
                + ",\"k\":5,\"num_candidates\":20,\"filter\":{\"term\":{\"category\":\"shoes\"}}}}");
    // ES semantics: the query keeps its filter and the kNN its own; the scores add up.
    assertEquals(
        new Bool(
            List.of(Match.of("title", "red")),
            List.of(new Query.Range("price", null, null, null, 50L, null, 1f)),
            List.of(),
            List.of(),
            null,
            1f),
        hybrid.request().query());
    assertEquals(List.of(knn("embedding", 5, 20, TERM)), hybrid.request().knn());
    assertEquals(Rank.SUM, hybrid.request().rank());
    assertEquals("hybrid", hybrid.queryType());

    StringBuilder many = new StringBuilder("{\"knn\":[");
    for (int i = 0; i < 17; i++) {
      many.append(i == 0 ? "" : ",")
          .append("{\"field\":\"e\",\"query_vector\":")
          .append(VJ)
          .append('}');
    }
    refused(many.append("]}").toString()).illegal("[knn] has 17 sections; the limit is 16");
  }

  @Test
  void knnRefusals() {
    String f = "{\"knn\":{\"field\":\"e\",";
    refused(f + "\"k\":5}}")
        .illegal("[knn] needs exactly one of [query_vector] and [query_vector_builder]");
    refused(
            f
                + "\"query_vector\":[1],\"query_vector_builder\":{\"text_embedding\":"
                + "{\"model_text\":\"x\"}}}}")
        .illegal("needs exactly one of");
    refused("{\"knn\":{\"query_vector\":[1]}}").illegal("[knn.field] must be a string");
    refused(f + "\"query_vector\":[1],\"k\":0}}").illegal("[knn.k] 0 is outside [1, 10000]");
    refused(f + "\"query_vector\":[1],\"k\":10001}}").illegal("[knn.k] 10001 is outside");
    refused(f + "\"query_vector\":[1],\"k\":20,\"num_candidates\":10}}")
        .illegal("[knn.num_candidates] 10 cannot be less than [k] 20");
    refused(f + "\"query_vector\":[1],\"num_candidates\":10001}}")
        .illegal("[knn.num_candidates] 10001 is outside [1, 10000]");
    refused(f + "\"query_vector\":[1,\"a\"]}}").illegal("[knn.query_vector][1] must be a number");
    refused(f + "\"query_vector\":\"abcd\"}}").illegal("[knn.query_vector] must be an array");
    refused(f + "\"query_vector\":[1],\"similarity\":\"high\"}}")
        .illegal("[knn.similarity] must be a number");
    refused(f + "\"query_vector\":[1],\"boost\":-2}}").illegal("[knn.boost] -2.0 is negative");
    refused(f + "\"query_vector\":[1],\"inner_hits\":{}}}")
        .illegal("[knn.inner_hits] is not supported");
    refused(f + "\"query_vector\":[1],\"kk\":1}}").parsing("unknown key [kk] in [knn]");
    StringBuilder big = new StringBuilder("[");
    for (int i = 0; i < 4097; i++) {
      big.append(i == 0 ? "" : ",").append('1');
    }
    refused(f + "\"query_vector\":" + big + "]}}")
        .illegal("[knn.query_vector] has 4097 dimensions; the limit is 4096");
    refused(f + "\"query_vector\":[1],\"rescore_vector\":{\"oversample\":11}}}")
        .illegal("[knn.rescore_vector.oversample] 11.0 is outside [1, 10]");
  }

  @Test
  void queryVectorBuilderAsksTheServerToEmbed() {
    EsSearch s =
        search(
            """
            {"knn":[{"field":"a","query_vector":[0.6,0.8]},
                    {"field":"b","k":3,"query_vector_builder":{"text_embedding":
                      {"model_id":"minilm","model_text":"red shoes"}}},
                    {"field":"c","query_vector_builder":{"text_embedding":{"model_text":"blue"}}}]}""");
    assertEquals(List.of(new KnnText(1, "red shoes"), new KnnText(2, "blue")), s.embedTexts());
    assertEquals(3, s.request().knn().size());
    assertNull(s.request().knn().get(1).vector(), "the service embeds it");
    assertEquals(
        new Knn("b", null, 3, 5, Query.MatchAll.INSTANCE, null, 1f, 0), s.request().knn().get(1));
    refused(
            "{\"knn\":{\"field\":\"a\",\"query_vector_builder\":{\"text_embedding\":"
                + "{\"model_text\":\"x\",\"model\":\"y\"}}}}")
        .parsing("unknown key [model] in [knn.query_vector_builder.text_embedding]");
    refused("{\"knn\":{\"field\":\"a\",\"query_vector_builder\":{\"elser\":{}}}}")
        .parsing("unknown key [elser] in [knn.query_vector_builder]");
    refused(
            "{\"knn\":{\"field\":\"a\",\"query_vector_builder\":{\"text_embedding\":"
                + "{\"model_id\":\"m\"}}}}")
        .illegal("[knn.query_vector_builder.text_embedding.model_text] must be a string");
  }

  @Test
  void aKnnQueryAsTheWholeQueryIsAKnnSearch() {
    EsSearch s =
        search(
            "{\"size\":6,\"query\":{\"knn\":{\"field\":\"embedding\",\"query_vector\":"
                + VJ
                + ",\"num_candidates\":30,\"filter\":{\"term\":{\"category\":\"shoes\"}},"
                + "\"boost\":1.5,\"similarity\":0.2}}}");
    assertNull(s.request().query());
    assertEquals(List.of(new Knn("embedding", V, 6, 30, TERM, 0.2f, 1.5f, 0)), s.request().knn());
    refused("{\"query\":{\"knn\":{\"field\":\"e\",\"query_vector\":[1],\"_name\":\"n\"}}}")
        .illegal("[query.knn._name] is not supported");
  }

  @Test
  void rankRrfOverAQueryAndKnn() {
    String parts =
        "\"query\":{\"match\":{\"title\":\"red\"}},\"knn\":{\"field\":\"e\",\"query_vector\":"
            + VJ
            + ",\"k\":10}";
    SearchRequest r = request("{" + parts + ",\"rank\":{\"rrf\":{}}}");
    assertEquals(Rank.rrf(60, 10), r.rank(), "Elasticsearch's defaults: 60 and 10");
    assertEquals(Match.of("title", "red"), r.query());
    assertEquals(
        Rank.rrf(20, 50),
        request("{" + parts + ",\"rank\":{\"rrf\":{\"rank_constant\":20,\"rank_window_size\":50}}}")
            .rank());
    assertEquals(
        Rank.rrf(60, 30),
        request("{" + parts + ",\"rank\":{\"rrf\":{\"window_size\":30}}}").rank(),
        "the older name");
    assertEquals(
        Rank.rrf(60, 10),
        request(
                "{\"knn\":[{\"field\":\"a\",\"query_vector\":"
                    + VJ
                    + "},{\"field\":\"b\",\"query_vector\":"
                    + VJ
                    + "}],\"rank\":{\"rrf\":{}}}")
            .rank(),
        "two kNN searches");
    refused("{\"query\":{\"match_all\":{}},\"rank\":{\"rrf\":{}}}")
        .illegal("[rank] requires at least two result sets", "has 1");
    refused("{" + parts + ",\"size\":0,\"rank\":{\"rrf\":{}}}")
        .illegal("[rank] requires [size] greater than [0]");
    refused("{" + parts + ",\"rank\":{\"rrf\":{\"rank_constant\":0}}}")
        .illegal("[rank.rrf.rank_constant] 0 is outside [1, 2147483647]");
    refused("{" + parts + ",\"rank\":{\"rrf\":{\"rank_window_size\":10,\"window_size\":10}}}")
        .illegal("[rank.rrf] has both [rank_window_size] and its older name [window_size]");
    refused("{" + parts + ",\"rank\":{\"rrf\":{\"rank_window_size\":10001}}}")
        .illegal("[rank.rrf.rank_window_size] 10001 is outside [1, 10000]");
    refused("{" + parts + ",\"rank\":{\"linear\":{}}}").parsing("unknown key [linear] in [rank]");
    // size beyond the window: the request is built; core refuses it with both numbers.
    String wide =
        "{\"query\":{\"match\":{\"title\":\"red\"}},\"knn\":{\"field\":\"embedding\","
            + "\"query_vector\":"
            + VJ
            + ",\"k\":10},\"size\":20,\"rank\":{\"rrf\":{}}}";
    EsParse.refusal(() -> EsParse.validated(wide, 2))
        .illegal("from + size = 20 is more than the rank window 10 [rank_window_size]");
  }

  @Test
  void retrievers() {
    assertEquals(
        Match.of("title", "red"),
        request("{\"retriever\":{\"standard\":{\"query\":{\"match\":{\"title\":\"red\"}}}}}")
            .query());
    assertEquals(
        new Bool(List.of(Match.of("title", "red")), List.of(TERM), List.of(), List.of(), null, 1f),
        request(
                "{\"retriever\":{\"standard\":{\"query\":{\"match\":{\"title\":\"red\"}},"
                    + "\"filter\":[{\"term\":{\"category\":\"shoes\"}}]}}}")
            .query());
    assertEquals(
        new Bool(List.of(), List.of(TERM), List.of(), List.of(), null, 1f),
        request("{\"retriever\":{\"standard\":{\"filter\":{\"term\":{\"category\":\"shoes\"}}}}}")
            .query(),
        "filters alone score 0, as in Elasticsearch");
    assertSame(Query.MatchAll.INSTANCE, request("{\"retriever\":{\"standard\":{}}}").query());
    SearchRequest k =
        request(
            "{\"retriever\":{\"knn\":{\"field\":\"e\",\"query_vector\":"
                + VJ
                + ",\"k\":3,\"num_candidates\":7,\"similarity\":0.5}}}");
    assertNull(k.query());
    assertEquals(List.of(new Knn("e", V, 3, 7, Query.MatchAll.INSTANCE, 0.5f, 1f, 0)), k.knn());

    String rrf =
        "{\"retriever\":{\"rrf\":{\"retrievers\":["
            + "{\"standard\":{\"query\":{\"match\":{\"title\":\"red\"}}}},"
            + "{\"knn\":{\"field\":\"a\",\"query_vector\":"
            + VJ
            + ",\"k\":3,\"num_candidates\":7}},"
            + "{\"knn\":{\"field\":\"b\",\"query_vector\":"
            + VJ
            + ",\"k\":4,\"num_candidates\":8}}]%s}}}";
    SearchRequest r = request(String.format(rrf, ""));
    assertEquals(Match.of("title", "red"), r.query());
    assertEquals(
        List.of(knn("a", 3, 7, Query.MatchAll.INSTANCE), knn("b", 4, 8, Query.MatchAll.INSTANCE)),
        r.knn());
    assertEquals(Rank.rrf(60, 10), r.rank());
    assertEquals(
        Rank.rrf(5, 40),
        request(String.format(rrf, ",\"rank_constant\":5,\"rank_window_size\":40")).rank());
    assertEquals(Rank.rrf(60, 40), request(String.format(rrf, ",\"window_size\":40")).rank());
    assertEquals(
        Rank.rrf(60, 10),
        request(
                "{\"retriever\":{\"rrf\":{\"retrievers\":[{\"knn\":{\"field\":\"a\","
                    + "\"query_vector\":[1],\"k\":1,\"num_candidates\":1}},{\"knn\":{\"field\":"
                    + "\"b\",\"query_vector\":[1],\"k\":1,\"num_candidates\":1}}]}}}")
            .rank());
  }

  @Test
  void retrieverRefusals() {
    refused("{\"retriever\":{\"standard\":{}},\"query\":{\"match_all\":{}}}")
        .illegal("cannot specify [retriever] and [query]");
    refused("{\"retriever\":{\"standard\":{}},\"knn\":{}}")
        .illegal("cannot specify [retriever] and [knn]");
    refused("{\"retriever\":{\"fancy\":{}}}")
        .parsing("unknown retriever [fancy] in [retriever]; supported: knn, rrf, standard");
    refused("{\"retriever\":{\"text_similarity_reranker\":{}}}")
        .illegal("[retriever.text_similarity_reranker] is not supported");
    refused("{\"retriever\":{\"standard\":{},\"knn\":{}}}")
        .parsing("[retriever] must hold exactly one retriever, got 2 keys");
    refused("{\"retriever\":{\"standard\":{\"sort\":[]}}}")
        .illegal("[retriever.standard.sort] is not supported");
    refused(
            "{\"retriever\":{\"standard\":{\"query\":{\"knn\":{\"field\":\"a\","
                + "\"query_vector\":[1]}}}}}")
        .illegal("a [knn] query in a standard retriever is not supported; use a [knn] retriever");
    refused("{\"retriever\":{\"knn\":{\"field\":\"a\",\"query_vector\":[1],\"k\":1}}}")
        .illegal("[retriever.knn] requires [num_candidates]");
    refused("{\"retriever\":{\"knn\":{\"field\":\"a\",\"query_vector\":[1],\"num_candidates\":1}}}")
        .illegal("[retriever.knn] requires [k]");
    refused("{\"retriever\":{\"rrf\":{\"retrievers\":[{\"standard\":{}}]}}}")
        .illegal(
            "[retriever.rrf.retrievers] has 1 retriever(s); reciprocal rank fusion needs at least two");
    refused("{\"retriever\":{\"rrf\":{}}}").illegal("[retriever.rrf.retrievers] is required");
    refused("{\"retriever\":{\"rrf\":{\"retrievers\":[{\"standard\":{}},{\"standard\":{}}]}}}")
        .illegal("[retriever.rrf.retrievers[1].standard]: a second standard retriever");
    refused(
            "{\"retriever\":{\"rrf\":{\"retrievers\":[{\"standard\":{}},"
                + "{\"rrf\":{\"retrievers\":[]}}]}}}")
        .illegal("[retriever.rrf.retrievers[1].rrf (an rrf retriever inside another)]");
    refused(
            "{\"retriever\":{\"rrf\":{\"retrievers\":[{\"retriever\":{\"standard\":{}},"
                + "\"weight\":2},{\"standard\":{}}]}}}")
        .illegal("weighted child retrievers");
    refused("{\"retriever\":{\"rrf\":{\"retrievers\":[],\"filter\":{}}}}")
        .illegal("[retriever.rrf.filter] is not supported");
  }

  @Test
  void minScore() {
    assertEquals(
        new Query.ScriptScore(Match.of("title", "red"), Script.parse("_score", Map.of()), 0.5f, 1f),
        request("{\"query\":{\"match\":{\"title\":\"red\"}},\"min_score\":0.5}").query());
    assertEquals(
        Match.of("title", "red"),
        request("{\"query\":{\"match\":{\"title\":\"red\"}},\"min_score\":0}").query(),
        "every score is ≥ 0: nothing to drop");
    refused("{\"knn\":{\"field\":\"e\",\"query_vector\":[1]},\"min_score\":0.5}")
        .illegal("[min_score] 0.5 is supported only without kNN searches");
    refused("{\"min_score\":\"x\"}").illegal("[min_score] must be a number");
  }

  @Test
  void countBodies() throws Exception {
    EsSearch all = EsSearchParser.parseCount(null, EsParse.http(), EsParse.DEPTH);
    assertSame(Query.MatchAll.INSTANCE, all.request().query());
    assertEquals(0, all.request().hits());
    assertEquals(Integer.MAX_VALUE, all.request().trackTotalHitsUpTo());
    assertFalse(all.request().fetchDocuments());
    EsSearch q =
        EsSearchParser.parseCount(
            Json.MAPPER.readTree("{\"query\":{\"term\":{\"category\":\"shoes\"}}}"),
            EsParse.http(),
            EsParse.DEPTH);
    assertEquals(TERM, q.request().query());
    EsParse.refusal(() -> count("{\"query\":{\"match_all\":{}},\"size\":3}"))
        .parsing("unknown key [size] in [count body]");
    EsParse.refusal(() -> count("{\"min_score\":1}"))
        .illegal("[count body.min_score] is not supported");
    EsParse.refusal(() -> count("{\"query\":{\"bad\":{}}}")).parsing("unknown query type [bad]");
  }

  private static EsSearch count(String body) {
    try {
      return EsSearchParser.parseCount(Json.MAPPER.readTree(body), EsParse.http(), EsParse.DEPTH);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void queryTypeLabels() {
    assertEquals("lexical", search("{\"query\":{\"match\":{\"t\":\"x\"}}}").queryType());
    assertEquals("lexical", search("{\"query\":{\"term\":{\"c\":\"x\"}}}").queryType());
    assertEquals("unranked", search("{\"query\":{\"range\":{\"p\":{\"gt\":1}}}}").queryType());
    assertEquals(
        "unranked",
        search("{\"query\":{\"bool\":{\"filter\":{\"term\":{\"c\":\"x\"}}}}}").queryType());
    assertEquals(
        "lexical",
        search("{\"query\":{\"bool\":{\"should\":{\"match\":{\"t\":\"x\"}}}}}").queryType());
    assertEquals(
        "hybrid",
        search(
                "{\"query\":{\"match\":{\"t\":\"x\"}},\"knn\":{\"field\":\"e\",\"query_vector\":"
                    + VJ
                    + "}}")
            .queryType());
  }

  @Test
  void theBenchmarksBodiesKeepTheirShape() {
    String mm =
        "{\"multi_match\":{\"query\":\"red shoe\",\"fields\":[\"title\",\"description\"],"
            + "\"type\":\"best_fields\"}}";
    String term = "{\"term\":{\"category\":\"shoes\"}}";
    String query = "\"query\":{\"bool\":{\"must\":" + mm + ",\"filter\":[" + term + "]}}";
    String knn =
        "\"knn\":{\"field\":\"embedding\",\"query_vector\":"
            + VJ
            + ",\"num_candidates\":100,\"k\":100,\"filter\":["
            + term
            + "]}";
    String head = "{\"size\":10,\"_source\":false,";
    SearchRequest lexical = request(head + query + "}");
    SearchRequest vector = request(head + knn + "}");
    SearchRequest hybrid = request(head + query + "," + knn + "}");
    SearchRequest rrf = request(head + query + "," + knn + ",\"rank\":{\"rrf\":{}}}");
    assertEquals(RankProfile.BM25, ProductShape.of(lexical).orElseThrow().profile());
    assertEquals(RankProfile.CLOSENESS, ProductShape.of(vector).orElseThrow().profile());
    assertEquals(RankProfile.HYBRID, ProductShape.of(hybrid).orElseThrow().profile());
    assertEquals(RankProfile.HYBRID, ProductShape.of(rrf).orElseThrow().profile());
    assertEquals("shoes", ProductShape.of(hybrid).orElseThrow().filter().category());
    assertEquals(
        SearchRequest.builder()
            .text("red shoe")
            .vector(V)
            .filter(org.searchlab.core.Filter.category("shoes"))
            .targetHits(100)
            .exploreAdditionalHits(0)
            .hits(10)
            .build()
            .withFetchDocuments(false),
        hybrid,
        "the same request as the benchmark's shorthand builds");
  }

  @Test
  void refusalsReachTheClientAsElasticsearchErrors() {
    try {
      search("{\"query\":{\"fuzzy\":{}}}");
    } catch (ApiException e) {
      assertEquals(400, e.status());
      assertEquals("parsing_exception", e.type());
      return;
    }
    throw new AssertionError("expected a parsing_exception");
  }
}
