package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.QueryPlan;
import org.searchlab.testing.TestSeeds;

/**
 * Recall of the graph against exact kNN on 20k clustered 384-d vectors, built once (in parallel)
 * for the whole class: unfiltered, filtered at three hit ratios, across a snapshot, and finally
 * after deleting half the nodes (last, since it mutates the shared graph).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MutableHnswGraphRecallTest {
  static final int N = 20_000;
  static final int DIM = 384;
  static final int K = 10;
  static SplittableRandom random;
  static float[][] data;
  static float[][] queries;
  static MutableHnswGraph graph;

  @BeforeAll
  static void build() {
    random = new SplittableRandom(TestSeeds.seed("MutableHnswGraphRecallTest"));
    data = TestVectors.clustered(random, N, DIM, 64, 1.0);
    queries = new float[100][];
    for (int q = 0; q < queries.length; q++) {
      queries[q] = TestVectors.near(random, data[random.nextInt(N)], 1.0);
    }
    graph =
        MutableHnswGraph.create(
            VectorStore.create(DIM), HnswConfig.builder().buildThreads(2).build());
    int[] ids = new int[N];
    for (int i = 0; i < N; i++) {
      ids[i] = i;
    }
    graph.insertAll(ids, data);
  }

  @Test
  @Order(1)
  void recallAtEf100() {
    assertEquals(N, graph.size());
    double recall = meanRecall(100, AcceptBits.ALL, i -> true, N, QueryPlan.HNSW);
    System.out.printf("recall@10 ef=100: %.4f%n", recall);
    assertTrue(recall >= 0.95, "recall " + recall);
  }

  @Test
  @Order(2)
  void filteredSearchReturnsOnlyAcceptedNodesWithRecall() {
    double[] ratios = {0.5, 0.1, 0.01};
    // Filter-first is off by default (its threshold equals the approximate one); see the next test.
    String[] plans = {QueryPlan.HNSW, QueryPlan.HNSW, QueryPlan.EXACT};
    for (int r = 0; r < ratios.length; r++) {
      boolean[] accepted = new boolean[N];
      int count = 0;
      for (int i = 0; i < N; i++) {
        accepted[i] = random.nextDouble() < ratios[r];
        count += accepted[i] ? 1 : 0;
      }
      AcceptBits accept = node -> accepted[node];
      // The request's own approximate threshold (0.02) chooses by hit ratio alone, so that the
      // graph itself is measured at 10%, below the default beam rule's scan size.
      double recall =
          meanRecall(
              100,
              accept,
              i -> accepted[i],
              count,
              plans[r],
              new FilterThresholds(0.02, Double.NaN));
      System.out.printf("filtered %.2f (%s): recall@10 %.4f%n", ratios[r], plans[r], recall);
      assertTrue(recall >= 0.95, "recall " + recall + " at hit ratio " + ratios[r]);
    }
  }

  @Test
  @Order(3)
  void filterFirstAndFilteredHnswForcedByThresholds() {
    boolean[] accepted = new boolean[N];
    int count = 0;
    for (int i = 0; i < N; i++) {
      accepted[i] = random.nextDouble() < 0.1;
      count += accepted[i] ? 1 : 0;
    }
    AcceptBits accept = node -> accepted[node];
    FilterThresholds plainHnsw = new FilterThresholds(0.0, 0.0);
    double recall = meanRecall(100, accept, i -> accepted[i], count, QueryPlan.HNSW, plainHnsw);
    System.out.printf("filtered 0.10 forced hnsw: recall@10 %.4f%n", recall);
    assertTrue(recall >= 0.95, "recall " + recall);
    FilterThresholds filterFirst = new FilterThresholds(0.0, 1.0);
    recall = meanRecall(100, accept, i -> accepted[i], count, QueryPlan.FILTER_FIRST, filterFirst);
    System.out.printf("filtered 0.10 forced filter-first: recall@10 %.4f%n", recall);
    assertTrue(recall >= 0.95, "recall " + recall);
  }

  @Test
  @Order(4)
  void snapshotRoundTripGivesIdenticalResults(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("graph.snap");
    graph.writeSnapshot(file);
    MutableHnswGraph loaded = MutableHnswGraph.load(file, graph.config());
    assertEquals(graph.size(), loaded.size());
    assertEquals(graph.entryNode(), loaded.entryNode());
    for (int node = 0; node < N; node += 97) {
      for (int level = 0; level <= graph.level(node); level++) {
        assertArrayEquals(graph.neighbors(node, level), loaded.neighbors(node, level));
      }
      assertArrayEquals(graph.vectors().get(node), loaded.vectors().get(node));
    }
    for (float[] q : queries) {
      GraphHits a = graph.search(q, K, 64);
      GraphHits b = loaded.search(q, K, 64);
      assertArrayEquals(a.nodes(), b.nodes());
      assertArrayEquals(a.scores(), b.scores());
      assertEquals(a.visited(), b.visited());
    }
  }

  @Test
  @Order(5)
  void deletingHalfKeepsRecallAndReachability() {
    assertEquals(N, reachableFromEntry(), "all nodes reachable before deleting");
    boolean[] deleted = new boolean[N];
    int[] order = new int[N];
    for (int i = 0; i < N; i++) {
      order[i] = i;
    }
    for (int i = N - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (int i = 0; i < N / 2; i++) {
      assertTrue(graph.remove(order[i]));
      deleted[order[i]] = true;
    }
    assertEquals(N - N / 2, graph.size());
    assertTrue(linkersMatchLinks(), "the recorded linkers must be exactly the links");
    for (float[] q : queries) {
      for (int node : graph.search(q, K, 100).nodes()) {
        assertTrue(!deleted[node], "deleted node " + node + " returned");
      }
    }
    double recall = meanRecall(100, AcceptBits.ALL, i -> !deleted[i], N / 2, QueryPlan.HNSW);
    System.out.printf(
        "after deleting half: recall@10 ef=100 %.4f, %d repairs%n", recall, graph.repairs());
    assertTrue(recall >= 0.93, "recall " + recall);
    assertTrue(graph.repairs() > 0, "the deletes exercised the repair");
    int reachable = reachableFromEntry();
    assertEquals(
        graph.size(),
        reachable,
        () -> "live nodes reachable from the entry point; unreachable: " + unreachable(deleted));
  }

  /** The first live nodes the entry point cannot reach, with how many nodes link to each. */
  private static String unreachable(boolean[] deleted) {
    boolean[] r = TestVectors.reachable(graph, N);
    StringBuilder sb = new StringBuilder();
    int shown = 0;
    for (int node = 0; node < N && shown < 10; node++) {
      if (!deleted[node] && !r[node]) {
        sb.append(node).append(" (linked from ");
        sb.append(graph.adjacency().linkerCount(node, 0)).append(" on level 0) ");
        shown++;
      }
    }
    return sb.toString();
  }

  private static double meanRecall(
      int ef,
      AcceptBits accept,
      java.util.function.IntPredicate ok,
      int acceptedCount,
      String plan) {
    return meanRecall(ef, accept, ok, acceptedCount, plan, FilterThresholds.INDEX_DEFAULT);
  }

  private static double meanRecall(
      int ef,
      AcceptBits accept,
      java.util.function.IntPredicate ok,
      int acceptedCount,
      String plan,
      FilterThresholds thresholds) {
    double sum = 0;
    long visited = 0;
    int fallbacks = 0;
    for (float[] q : queries) {
      GraphHits hits = graph.search(q, K, ef, accept, acceptedCount, thresholds);
      if (!hits.plan().equals(plan)) {
        // A filtered graph search may give up for an exact scan, but only after it has computed
        // more distances than the filter accepts nodes.
        assertEquals(QueryPlan.EXACT, hits.plan(), "the plan chosen");
        assertTrue(accept != AcceptBits.ALL, "an unfiltered search never falls back");
        assertTrue(hits.visited() > acceptedCount, "fell back after " + hits.visited());
        fallbacks++;
      }
      assertEquals(K, hits.size());
      for (int node : hits.nodes()) {
        assertTrue(ok.test(node), "node " + node + " does not pass the filter");
      }
      sum += TestVectors.recall(hits, TestVectors.exactScores(q, data, ok), K);
      visited += hits.visited();
    }
    System.out.printf(
        "  (%s: %d vectors scored per query, %d of %d fell back to exact)%n",
        plan, visited / queries.length, fallbacks, queries.length);
    return sum / queries.length;
  }

  /** Whether every node's recorded linkers are exactly the nodes whose lists name it. */
  private static boolean linkersMatchLinks() {
    HnswAdjacency adjacency = graph.adjacency();
    java.util.Map<Long, java.util.List<Integer>> expected = new java.util.HashMap<>();
    for (int node = 0; node < N; node++) {
      for (int level = 0; level <= graph.level(node); level++) {
        for (int n : graph.neighbors(node, level)) {
          expected
              .computeIfAbsent(((long) n << 8) | level, x -> new java.util.ArrayList<>())
              .add(node);
        }
      }
    }
    for (int node = 0; node < N; node++) {
      for (int level = 0; level <= Math.max(0, graph.level(node)); level++) {
        int[] recorded = adjacency.linkers(node, level).clone();
        java.util.Arrays.sort(recorded);
        int[] want =
            expected.getOrDefault(((long) node << 8) | level, java.util.List.of()).stream()
                .mapToInt(Integer::intValue)
                .sorted()
                .toArray();
        if (!java.util.Arrays.equals(recorded, want)) {
          System.out.printf(
              "node %d level %d: linkers %s, links from %s%n",
              node, level, java.util.Arrays.toString(recorded), java.util.Arrays.toString(want));
          return false;
        }
      }
    }
    return true;
  }

  private static int reachableFromEntry() {
    return TestVectors.reachableFromEntry(graph, N);
  }
}
