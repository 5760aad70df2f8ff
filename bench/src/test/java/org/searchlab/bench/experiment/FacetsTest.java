package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;

/**
 * The faceted query type's pieces that need no server: the range bounds from the corpus, the
 * request's {@code aggs}, the oracle's buckets against a hand-computed answer, what a mapping
 * without a field gets, and how the profile sorts stacks.
 */
class FacetsTest {

  @Test
  void theBoundsAreTheQuartilesToTwoSignificantFigures() {
    List<Document> docs = new ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      docs.add(new Document("d" + i, Map.of("price", i * 1013)));
    }
    // values 1013 … 101300; the quartiles are the 26th, 51st and 76th: 26338, 51663, 76988
    assertEquals(List.of(26_000.0, 52_000.0, 77_000.0), Facets.quartiles(docs, "price"));
    assertEquals(List.of(), Facets.quartiles(List.of(new Document("x", Map.of())), "price"));
  }

  @Test
  void theRequestAggregatesTheFilterFieldAndThePriceRanges() {
    Facets f = new Facets("category", "price", List.of(10.0, 20.0), List.of());
    assertEquals(
        "{\"facet_terms\":{\"terms\":{\"field\":\"category\",\"size\":10}},"
            + "\"facet_range\":{\"range\":{\"field\":\"price\",\"ranges\":"
            + "[{\"to\":10.0},{\"from\":10.0,\"to\":20.0},{\"from\":20.0}]}}}",
        f.aggs().toString());
  }

  /** The oracle's buckets over a corpus small enough to count by hand. */
  @Test
  void theOracleCountsEveryMatch() throws Exception {
    List<Document> docs =
        List.of(
            product("a", "red shoe", "shoes", 500),
            product("b", "red hat", "hats", 1500),
            product("c", "red shoe lace", "shoes", 2500),
            product("d", "blue coat", "coats", 700));
    Facets f = new Facets("category", "price", List.of(1000.0, 2000.0), List.of());
    ExactSearch exact = new ExactSearch(docs, List.of());
    BenchQuery q = new BenchQuery("red shoe", new float[] {1, 0, 0, 0}, "shoes", "a");
    assertEquals(
        List.of(
            "facet_terms shoes 2",
            "facet_terms hats 1",
            "facet_range *..1000 1",
            "facet_range 1000..2000 1",
            "facet_range 2000..* 1"),
        exact.facetBuckets(q, false, f));
    assertEquals(
        List.of(
            "facet_terms shoes 2",
            "facet_range *..1000 1",
            "facet_range 1000..2000 0",
            "facet_range 2000..* 1"),
        exact.facetBuckets(q, true, f));
    // A store's answer in Elasticsearch's shape reads the same.
    String answer =
        "{\"facet_terms\":{\"buckets\":[{\"key\":\"shoes\",\"doc_count\":2}]},"
            + "\"facet_range\":{\"buckets\":[{\"key\":\"*-1000.0\",\"to\":1000.0,\"doc_count\":1},"
            + "{\"key\":\"1000.0-2000.0\",\"from\":1000.0,\"to\":2000.0,\"doc_count\":0},"
            + "{\"key\":\"2000.0-*\",\"from\":2000.0,\"doc_count\":1}]}}";
    assertEquals(exact.facetBuckets(q, true, f), Facets.buckets(Json.MAPPER.readTree(answer)));
  }

  @Test
  void aMappingWithoutAnUpdateFieldFacetsOnTheFilterFieldAlone() throws Exception {
    BenchMapping shop = ShopData.mapping(4);
    BenchMapping noUpdate =
        new BenchMapping(
            shop.index(),
            shop.settings(),
            shop.mapping(),
            shop.textFields(),
            shop.vectorField(),
            shop.filterField(),
            "",
            false,
            shop.origin());
    Facets f = Facets.of(noUpdate, ShopData.documents(TestSeeds.seed("FacetsTest"), 50, 4));
    assertEquals(shop.filterField(), f.termsField());
    assertNull(f.rangeField());
    assertTrue(f.any());
    assertEquals(
        List.of("no range facet: the mapping's roles name no numeric update field"), f.missing());
    assertFalse(f.aggs().has(Facets.RANGE));
    assertTrue(f.describe().contains("no range facet"), f.describe());
  }

  @Test
  void aStackCountsWhereItsInnermostProjectFrameIs() {
    assertEquals(
        "aggregation collection",
        FacetProfile.category(
            List.of(
                "java.util.HashMap",
                "org.searchlab.core.agg.AggregationEngine",
                "org.searchlab.segmented.SegmentedSearcher")));
    assertEquals(
        "doc values, ordinals and columns",
        FacetProfile.category(
            List.of(
                "org.apache.lucene.index.OrdinalMap",
                "org.searchlab.segmented.SegmentedAggregationSource")));
    assertEquals(
        "query matching and scoring",
        FacetProfile.category(
            List.of("org.apache.lucene.search.similarities.BM25Similarity$BM25Scorer")));
    assertEquals(
        "JSON rendering",
        FacetProfile.category(
            List.of(
                "com.fasterxml.jackson.core.json.UTF8JsonGenerator",
                "org.searchlab.server.es.EsResponses")));
    assertEquals(
        "request parsing",
        FacetProfile.category(
            List.of(
                "com.fasterxml.jackson.core.json.UTF8StreamJsonParser",
                "org.searchlab.server.es.EsSearchParser")));
    assertEquals(
        "HTTP and dispatch", FacetProfile.category(List.of("io.netty.channel.nio.NioEventLoop")));
    assertEquals(
        "doc values, ordinals and columns",
        FacetProfile.category(
            List.of(
                "org.apache.lucene.store.MemorySegmentIndexInput",
                "org.apache.lucene.codecs.lucene90.Lucene90DocValuesProducer$3")));
    assertEquals("other", FacetProfile.category(List.of("java.lang.Thread")));
  }

  private static Document product(String id, String title, String category, int price) {
    return new Document(id, title, "", category, price, 4f, new float[] {1, 0, 0, 0});
  }
}
