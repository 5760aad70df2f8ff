package org.searchlab.opensearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Filter;
import org.searchlab.core.Fusion;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.SearchRequest;
import org.searchlab.segmented.SegmentedConfig;

/** The parts of the module that need no running node: configuration, index body, dialect, stats. */
class OpenSearchPiecesTest {
  @TempDir Path tmp;

  @Test
  void configRejectsOutOfRangeValuesNamingThem() {
    OpenSearchConfig c = OpenSearchConfig.DEFAULT;
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> c.toBuilder().nodes(0).build())
            .getMessage()
            .contains("nodes 0"));
    assertThrows(IllegalArgumentException.class, () -> c.toBuilder().nodes(10).build());
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> c.toBuilder().heap("1t").build())
            .getMessage()
            .contains("'1t'"));
    assertThrows(IllegalArgumentException.class, () -> c.toBuilder().heap("128m").build());
    assertThrows(IllegalArgumentException.class, () -> c.toBuilder().processors(-1).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> c.toBuilder().startupTimeout(Duration.ofSeconds(1)).build());
    assertThrows(
        IllegalArgumentException.class, () -> c.toBuilder().settings(Map.of("a=b", "c")).build());
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> c.toBuilder().settings(Map.of("http.port", "9200")).build())
            .getMessage()
            .contains("http.port"));
    assertEquals(
        "32mb",
        c.toBuilder()
            .settings(Map.of("indices.memory.index_buffer_size", "32mb"))
            .build()
            .settings()
            .get("indices.memory.index_buffer_size"));
    assertEquals(3, c.toBuilder().nodes(3).heap("768m").build().nodes());
    assertEquals(1536, OpenSearchConfig.heapMegabytes("1536M"));
  }

  /** The index merges like the segmented store by default: the same tiered-policy knobs. */
  @Test
  void indexSettingsMatchTheSegmentedStoresDefaults() throws IOException {
    JsonNode index =
        OpenSearchHttp.MAPPER.readTree(ProductIndex.DEFAULT.body()).path("settings").path("index");
    SegmentedConfig seg = SegmentedConfig.DEFAULT;
    assertEquals(seg.segmentsPerTier(), index.path("merge.policy.segments_per_tier").asDouble());
    assertEquals(seg.maxMergeAtOnce(), index.path("merge.policy.max_merge_at_once").asInt());
    assertEquals(seg.floorSegmentMB(), megabytes(index.path("merge.policy.floor_segment")));
    assertEquals(
        seg.maxMergedSegmentMB(), megabytes(index.path("merge.policy.max_merged_segment")));
    assertEquals(
        seg.deletesPctAllowed(), index.path("merge.policy.deletes_pct_allowed").asDouble());
    assertEquals(seg.refreshIntervalMs() + "ms", index.path("refresh_interval").asText());
    assertEquals("request", index.path("translog.durability").asText());
    JsonNode method =
        OpenSearchHttp.MAPPER
            .readTree(ProductIndex.DEFAULT.body())
            .path("mappings")
            .path("properties")
            .path("embedding")
            .path("method");
    assertEquals("lucene", method.path("engine").asText());
    assertEquals(seg.hnswM(), method.path("parameters").path("m").asInt());
    assertEquals(seg.hnswBeamWidth(), method.path("parameters").path("ef_construction").asInt());
    assertThrows(
        IllegalArgumentException.class, () -> ProductIndex.DEFAULT.toBuilder().replicas(9).build());
    assertThrows(
        IllegalArgumentException.class,
        () -> ProductIndex.DEFAULT.toBuilder().name("Product").build());
  }

  /** An OpenSearch byte size written as {@code <n>mb} or {@code <n>gb}, in megabytes. */
  private static double megabytes(JsonNode size) {
    String s = size.asText();
    double n = Double.parseDouble(s.substring(0, s.length() - 2));
    return switch (s.substring(s.length() - 2)) {
      case "mb" -> n;
      case "gb" -> n * 1024;
      default -> throw new AssertionError("not a size in mb or gb: " + s);
    };
  }

  @Test
  void dialectRejectsWhatOpenSearchCannotDo() {
    float[] v = {1, 0};
    assertThrows(
        InvalidRequestException.class,
        () ->
            OpenSearchDialect.searchBody(
                SearchRequest.builder().text("a").vector(v).fusion(Fusion.RRF).build()));
    assertThrows(
        InvalidRequestException.class,
        () ->
            OpenSearchDialect.searchBody(
                SearchRequest.builder().vector(v).approximate(false).build()));
  }

  @Test
  void filteredHybridBodyFiltersBothPartsAndNeedsOneMatch() throws IOException {
    SearchRequest r =
        SearchRequest.builder()
            .text("red shoes")
            .vector(new float[] {0.6f, 0.8f})
            .filter(Filter.category("x").withPrice(new Filter.PriceRange(5, 9)))
            .targetHits(7)
            .exploreAdditionalHits(93)
            .build();
    JsonNode bool =
        OpenSearchHttp.MAPPER.readTree(OpenSearchDialect.searchBody(r)).path("query").path("bool");
    assertEquals(1, bool.path("minimum_should_match").asInt());
    assertEquals("x", bool.path("filter").get(0).path("term").path("category").asText());
    assertEquals(5, bool.path("filter").get(1).path("range").path("price").path("gte").asInt());
    JsonNode knn = bool.path("should").get(1).path("knn").path("embedding");
    assertEquals(7, knn.path("k").asInt());
    assertEquals(100, knn.path("method_parameters").path("ef_search").asInt());
    assertEquals(OpenSearchDialect.VECTOR_BOOST, knn.path("boost").floatValue());
    assertEquals(bool.path("filter"), knn.path("filter").path("bool").path("filter"));
  }

  /** OpenSearch's innerproduct score, boosted by 0.5, converts back to (1 + dot) / 2. */
  @Test
  void closenessInvertsTheInnerProductScore() {
    for (float dot = -1f; dot <= 1f; dot += 0.125f) {
      float openSearch = OpenSearchDialect.VECTOR_BOOST * (dot < 0 ? 1 / (1 - dot) : dot + 1);
      assertEquals((1 + dot) / 2, OpenSearchDialect.closeness(openSearch), 1e-6f, "dot " + dot);
    }
  }

  @Test
  void nodesCpuSumsEveryNodesProcessTime() throws IOException {
    JsonNode stats =
        OpenSearchHttp.MAPPER.readTree(
            """
            {"nodes":{
              "a1":{"name":"node-1","process":{"timestamp":5,"cpu":{"percent":3,"total_in_millis":1200}}},
              "b2":{"name":"node-2","process":{"timestamp":7,"cpu":{"percent":1,"total_in_millis":800}}}}}
            """);
    NodesCpu cpu = NodesCpu.parse(stats);
    assertEquals(2000, cpu.totalCpuMillis());
    assertEquals(Map.of("node-1", 1200L, "node-2", 800L), cpu.cpuMillisByNode());
    assertEquals(7, cpu.timestampMillis());
    assertThrows(
        IOException.class,
        () ->
            NodesCpu.parse(OpenSearchHttp.MAPPER.readTree("{\"nodes\":{\"a\":{\"process\":{}}}}")));
  }

  @Test
  void missingNodeClasspathSaysHowToBuildIt() {
    IOException e = assertThrows(IOException.class, () -> new NodeClasspath(tmp).check());
    assertTrue(e.getMessage().contains("mvnw"), e.getMessage());
  }
}
