package org.searchlab.bench.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code hnsw-bench --impl mutable-bbq-inline} measures the store's own graph with the neighbours'
 * 1-bit codes in its rows ({@code HnswConfig.inlineCodes}), beside {@code mutable-bbq}: the same
 * links and estimates, so the same recall. (It replaced the read-only copy {@code --impl
 * mutable-inline} that measured the layout before the store had it.)
 */
class BbqInlineBenchTest {
  @Test
  void hnswBenchRunsTheStoresInlineRowsBesideItsOwnCodes() throws Exception {
    Map<String, JsonNode> lines =
        FlatLevelZeroTest.benchLines("mutable-bbq,mutable-bbq-inline", "128");
    JsonNode own = lines.get("mutable-bbq");
    JsonNode inline = lines.get("mutable-bbq-inline");
    assertNotNull(inline, lines.toString());
    assertEquals(own.get("recallAt10").asDouble(), inline.get("recallAt10").asDouble(), 0.0);
    assertTrue(inline.get("rescoredPerQuery").asDouble() >= 10, inline.toString());
    assertTrue(inline.get("visitedPerQuery").asDouble() > 0, inline.toString());
  }
}
