package org.searchlab.bench.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.searchlab.core.VectorQuantization;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.mutable.hnsw.VectorStore;
import picocli.CommandLine;

/**
 * {@link FlatLevelZero} searches the graph it copied: on a seeded synthetic graph its hits are the
 * mutable graph's own (the same algorithm on the same links and vectors; a near-tie may go the
 * other way, since its kernels sum lanes in another order), and its tie-aware recall is the
 * graph's. A copy that dropped or shifted a link list or a vector would lose both.
 */
class FlatLevelZeroTest {
  @Test
  void findsWhatTheMutableGraphFinds() {
    long seed = Long.getLong("tests.seed", System.nanoTime());
    System.out.println("FlatLevelZeroTest seed " + seed);
    // 36 dimensions: not a multiple of the kernels' lanes, so their scalar tails run too.
    BenchVectors v = BenchVectors.synthetic(seed, 3_000, 200, 36, true);
    HnswConfig config = HnswConfig.builder().m(8).efConstruction(64).seed(seed).build();
    MutableHnswGraph graph =
        MutableHnswGraph.create(
            VectorStore.create(v.dimension(), VectorQuantization.NONE, null), config);
    int[] ids = new int[v.docs().length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    graph.insertAll(ids, v.docs());
    FlatLevelZero flat = FlatLevelZero.copy(graph, v.docs(), 8);
    float[] kth = v.kthBestScores(10);
    int same = 0;
    int total = 0;
    double graphRecall = 0;
    double flatRecall = 0;
    for (int q = 0; q < v.queries().length; q++) {
      int[] expected = graph.search(v.queries()[q], 10, 32).nodes();
      int[] actual = flat.search(v.queries()[q], 10, 32);
      assertEquals(expected.length, actual.length, "query " + q);
      Set<Integer> hits = new HashSet<>();
      for (int id : expected) {
        hits.add(id);
      }
      for (int id : actual) {
        total++;
        if (hits.contains(id)) {
          same++;
        }
      }
      graphRecall += v.recall(q, expected, kth[q], 10);
      flatRecall += v.recall(q, actual, kth[q], 10);
      assertTrue(flat.scored() > 0, "query " + q);
    }
    int n = v.queries().length;
    assertTrue(same >= 0.98 * total, same + " of " + total + " hits shared, seed " + seed);
    assertEquals(graphRecall / n, flatRecall / n, 0.01, "seed " + seed);
  }

  @Test
  void hnswBenchRunsTheCopyBesideTheGraph() throws Exception {
    List<JsonNode> lines =
        HnswBenchBuildRoundsTest.run(
            new String[] {
              "--docs",
              "400",
              "--queries",
              "20",
              "--dim",
              "24",
              "--ef",
              "32",
              "--impl",
              "mutable,mutable-flat",
              "--rounds",
              "1"
            });
    JsonNode graph = null;
    JsonNode flat = null;
    for (JsonNode line : lines) {
      if (!line.path("summary").asBoolean() && line.has("recallAt10")) {
        switch (line.path("impl").asText()) {
          case "mutable-hnsw" -> graph = line;
          case "mutable-flat" -> flat = line;
          default -> {}
        }
      }
    }
    assertNotNull(graph, lines.toString());
    assertNotNull(flat, lines.toString());
    assertEquals(graph.get("recallAt10").asDouble(), flat.get("recallAt10").asDouble(), 0.05);
    assertTrue(flat.get("visitedPerQuery").asDouble() > 0, flat.toString());
  }

  @Test
  void theCopyRefusesQuantizedGraphs() {
    CommandLine command = new CommandLine(new HnswBenchCommand());
    StringWriter err = new StringWriter();
    command.setErr(new PrintWriter(err));
    int exit =
        command.execute(
            "--docs",
            "200",
            "--queries",
            "5",
            "--dim",
            "8",
            "--impl",
            "mutable-flat",
            "--quantization",
            "int8");
    assertNotEquals(0, exit);
    assertTrue(err.toString().contains("mutable-flat copies float vectors"), err.toString());
  }
}
