package org.searchlab.bench.hnsw;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code hnsw-bench --impl mutable-int4} measures the store's graph over 4-bit codes beside the
 * floats' (whatever {@code --quantization} says): its hits are reranked by the floats, so it
 * reports the rerank's depth, and its recall is close to the floats' at the same beam (the codes
 * rank nearly as the floats do; 400 random 128-d vectors, 20 queries, ef 32).
 */
class Int4BenchTest {
  @Test
  void hnswBenchRunsTheFourBitGraphBesideTheFloats() throws Exception {
    Map<String, JsonNode> lines = FlatLevelZeroTest.benchLines("mutable,mutable-int4", "128");
    JsonNode floats = lines.get("mutable-hnsw");
    JsonNode int4 = lines.get("mutable-int4");
    assertNotNull(int4, lines.toString());
    assertTrue(
        int4.get("recallAt10").asDouble() >= floats.get("recallAt10").asDouble() - 0.05,
        lines.toString());
    assertTrue(int4.get("rescoredPerQuery").asDouble() >= 10, int4.toString());
  }
}
