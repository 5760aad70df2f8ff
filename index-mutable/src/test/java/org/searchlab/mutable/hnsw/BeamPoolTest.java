package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * The unfiltered beam's sorted array: {@link BeamPool} against a plain list model, and the search
 * on it against the same search on the two heaps that the filtered beam keeps. (That the graph a
 * build leaves is link for link the one the heaps built is pinned by {@link GoldenGraphTest}, whose
 * digests predate the pool.)
 */
class BeamPoolTest {
  /** A (node, score) pair of the model, ordered as the pool orders them: by score, then node. */
  private record Entry(int node, float score, boolean expanded) {}

  private static final Comparator<Entry> BEST_FIRST =
      Comparator.comparingLong((Entry e) -> ScoreHeap.encode(e.node, e.score)).reversed();

  @Test
  void keepsTheBestEntriesSortedAndExpandsTheBestUnexpandedFirst() {
    long seed = TestSeeds.seed("BeamPoolTest.model");
    SplittableRandom random = new SplittableRandom(seed);
    BeamPool pool = new BeamPool();
    for (int round = 0; round < 300; round++) {
      int capacity = 1 + random.nextInt(round % 3 == 0 ? 4 : 250);
      // Few distinct scores in half the rounds: ties decided by the node.
      int distinct = 1 + random.nextInt(round % 2 == 0 ? 5 : 100_000);
      pool.reset(capacity);
      List<Entry> model = new ArrayList<>();
      Set<Integer> offered = new HashSet<>();
      for (int op = 0; op < 1_500; op++) {
        String where = "seed " + seed + ", round " + round + ", op " + op;
        if (random.nextInt(4) == 0) {
          Entry best = model.stream().filter(e -> !e.expanded).findFirst().orElse(null);
          assertEquals(best != null, pool.hasNext(), where);
          if (best != null) {
            assertEquals(best.node, pool.peekNode(), where);
            assertEquals(best.node, pool.next(), where);
            model.set(model.indexOf(best), new Entry(best.node, best.score, true));
          } else {
            assertEquals(-1, pool.peekNode(), where);
          }
        } else {
          int node = random.nextInt(1 << 30);
          if (!offered.add(node)) {
            continue; // a search offers each node once (the visited set)
          }
          float score = random.nextInt(distinct) / (float) distinct - 0.5f;
          boolean full = model.size() == capacity;
          boolean below = full && !(score > model.get(capacity - 1).score);
          assertEquals(below, pool.below(score), where);
          pool.offer(node, score);
          model.add(new Entry(node, score, false));
          model.sort(BEST_FIRST);
          if (model.size() > capacity) {
            model.remove(capacity);
          }
        }
        assertEquals(model.size(), pool.size(), where);
        for (int i = 0; i < model.size(); i++) {
          long e = pool.get(i);
          assertEquals(model.get(i).node, BeamPool.node(e), where + ", rank " + i);
          assertEquals(model.get(i).score, BeamPool.score(e), where + ", rank " + i);
          assertEquals(model.get(i).expanded, (e & 1) != 0, where + ", rank " + i);
        }
      }
    }
  }

  @Test
  void anUnfilteredSearchFindsWhatTheHeapsFind() {
    long seed = TestSeeds.seed("BeamPoolTest.search");
    SplittableRandom random = new SplittableRandom(seed);
    int dim = 24;
    float[][] data = TestVectors.clustered(random, 3_000, dim, 12, 1.0);
    MutableHnswGraph graph = MutableHnswGraph.create(VectorStore.create(dim), HnswConfig.DEFAULT);
    int[] ids = new int[data.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    graph.insertAll(ids, data);
    HnswSearcher sorted = new HnswSearcher(graph.adjacency(), graph.vectors(), HnswConfig.DEFAULT);
    HnswSearcher heaps = new HnswSearcher(graph.adjacency(), graph.vectors(), HnswConfig.DEFAULT);
    heaps.useHeapBeam();
    int[] efs = {1, 2, 10, 33, 100, 400};
    for (int q = 0; q < 120; q++) {
      float[] query = TestVectors.near(random, data[random.nextInt(data.length)], 0.2);
      int ef = efs[q % efs.length];
      int k = 1 + random.nextInt(Math.max(1, Math.min(ef, 50)));
      String where = "seed " + seed + ", query " + q + ", k " + k + ", ef " + ef;
      GraphHits a = sorted.search(query, k, ef);
      GraphHits b = heaps.search(query, k, ef);
      assertArrayEquals(b.nodes(), a.nodes(), where);
      assertArrayEquals(b.scores(), a.scores(), where);
      assertEquals(b.visited(), a.visited(), where + ": the same nodes scored");
      assertTrue(a.size() > 0, where);
    }
  }
}
