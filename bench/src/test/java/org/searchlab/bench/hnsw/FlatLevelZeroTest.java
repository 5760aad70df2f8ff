package org.searchlab.bench.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
    MutableHnswGraph graph = build(v, seed, VectorQuantization.NONE);
    FlatLevelZero flat = FlatLevelZero.copy(graph, v.docs(), 8);
    assertSameHits(
        v,
        seed,
        q -> graph.search(q, 10, 32).nodes(),
        q -> {
          int[] hits = flat.search(q, 10, 32);
          assertTrue(flat.scored() > 0, "seed " + seed);
          return hits;
        });
  }

  /**
   * Every query of {@code v} through both searches: the copy's hits are the graph's (at least 98%
   * of them: a near-tie may go the other way) and so is its mean tie-aware recall@10 (within 0.01).
   */
  static void assertSameHits(
      BenchVectors v,
      long seed,
      java.util.function.Function<float[], int[]> graph,
      java.util.function.Function<float[], int[]> copy) {
    float[] kth = v.kthBestScores(10);
    int same = 0;
    int total = 0;
    double graphRecall = 0;
    double copyRecall = 0;
    for (int q = 0; q < v.queries().length; q++) {
      int[] expected = graph.apply(v.queries()[q]);
      int[] actual = copy.apply(v.queries()[q]);
      assertEquals(expected.length, actual.length, "query " + q + ", seed " + seed);
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
      copyRecall += v.recall(q, actual, kth[q], 10);
    }
    int n = v.queries().length;
    System.out.printf(
        "recall@10 of the copy %.4f, of the graph %.4f%n", copyRecall / n, graphRecall / n);
    assertTrue(same >= 0.98 * total, same + " of " + total + " hits shared, seed " + seed);
    assertEquals(graphRecall / n, copyRecall / n, 0.01, "seed " + seed);
  }

  /** The JSON lines per implementation (not the summaries) of a small hnsw-bench run. */
  static Map<String, JsonNode> benchLines(String impls, String dim) throws Exception {
    List<JsonNode> lines =
        HnswBenchBuildRoundsTest.run(
            new String[] {
              "--docs",
              "400",
              "--queries",
              "20",
              "--dim",
              dim,
              "--ef",
              "32",
              "--impl",
              impls,
              "--rounds",
              "1"
            });
    Map<String, JsonNode> out = new HashMap<>();
    for (JsonNode line : lines) {
      if (!line.path("summary").asBoolean() && line.has("recallAt10")) {
        out.put(line.path("impl").asText(), line);
      }
    }
    return out;
  }

  /** What hnsw-bench says on its error stream when {@code impl} is asked for int8; it must fail. */
  static String refusalOfInt8(String impl, String dim) {
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
            dim,
            "--impl",
            impl,
            "--quantization",
            "int8");
    assertNotEquals(0, exit);
    return err.toString();
  }

  @Test
  void hnswBenchRunsTheCopyBesideTheGraph() throws Exception {
    Map<String, JsonNode> lines = benchLines("mutable,mutable-flat", "24");
    JsonNode graph = lines.get("mutable-hnsw");
    JsonNode flat = lines.get("mutable-flat");
    assertNotNull(graph, lines.toString());
    assertNotNull(flat, lines.toString());
    assertEquals(graph.get("recallAt10").asDouble(), flat.get("recallAt10").asDouble(), 0.05);
    assertTrue(flat.get("visitedPerQuery").asDouble() > 0, flat.toString());
  }

  @Test
  void theCopyRefusesQuantizedGraphs() {
    String err = refusalOfInt8("mutable-flat", "8");
    assertTrue(err.contains("mutable-flat copies float vectors"), err);
  }

  /** The mutable graph of {@code v}'s documents at M 8, beam 64, over {@code q}. */
  static MutableHnswGraph build(BenchVectors v, long seed, VectorQuantization q) {
    HnswConfig config =
        HnswConfig.builder().m(8).efConstruction(64).seed(seed).quantization(q).build();
    MutableHnswGraph graph =
        MutableHnswGraph.create(VectorStore.create(v.dimension(), q, null), config);
    int[] ids = new int[v.docs().length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    graph.insertAll(ids, v.docs());
    return graph;
  }
}
