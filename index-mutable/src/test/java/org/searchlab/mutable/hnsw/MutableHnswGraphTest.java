package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.scoring.VectorScores;
import org.searchlab.testing.TestSeeds;

/** Behaviour of the graph on small inputs: edge cases, errors, determinism, updates, snapshots. */
class MutableHnswGraphTest {
  static final int DIM = 16;

  private static float[][] vectors(SplittableRandom r, int n) {
    return TestVectors.clustered(r, n, DIM, 8, 1.0);
  }

  private static MutableHnswGraph build(HnswConfig config, float[][] data) {
    MutableHnswGraph g = MutableHnswGraph.create(VectorStore.create(DIM), config);
    int[] ids = new int[data.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    g.insertAll(ids, data);
    return g;
  }

  @Test
  void emptyGraphFindsNothing() {
    MutableHnswGraph g = MutableHnswGraph.create(VectorStore.create(DIM), HnswConfig.DEFAULT);
    GraphHits hits = g.search(new float[DIM], 10, 10);
    assertEquals(0, hits.size());
    assertEquals(QueryPlan.HNSW, hits.plan());
    assertEquals(-1, g.entryNode());
  }

  @Test
  void badInputFailsFast() {
    SplittableRandom r = new SplittableRandom(TestSeeds.seed("badInputFailsFast"));
    MutableHnswGraph g = build(HnswConfig.DEFAULT, vectors(r, 50));
    assertThrows(InvalidRequestException.class, () -> g.insert(3, new float[DIM]));
    assertThrows(InvalidRequestException.class, () -> g.insert(-1, new float[DIM]));
    assertThrows(InvalidRequestException.class, () -> g.insert(100, new float[DIM + 1]));
    assertThrows(InvalidRequestException.class, () -> g.update(3, new float[DIM + 1]));
    assertThrows(InvalidRequestException.class, () -> g.search(new float[DIM + 1], 10, 10));
    assertThrows(InvalidRequestException.class, () -> g.search(new float[DIM], 0, 10));
    assertThrows(InvalidRequestException.class, () -> g.search(new float[DIM], 10, -1));
    assertThrows(
        InvalidRequestException.class,
        () -> g.insertAll(new int[] {200, 200}, new float[][] {new float[DIM], new float[DIM]}));
    assertThrows(InvalidRequestException.class, () -> HnswConfig.builder().m(1).build());
    assertThrows(
        InvalidRequestException.class, () -> HnswConfig.builder().efConstruction(0).build());
    assertThrows(InvalidRequestException.class, () -> HnswConfig.builder().buildThreads(0).build());
    assertThrows(
        InvalidRequestException.class,
        () -> HnswConfig.builder().approximateThreshold(1.5).build());
    assertFalse(g.remove(1000));
    assertFalse(g.remove(-1));
  }

  @Test
  void scoresAreLuceneDotProductClosenessInDescendingOrder() {
    SplittableRandom r = new SplittableRandom(TestSeeds.seed("scoresAreCloseness"));
    float[][] data = vectors(r, 500);
    MutableHnswGraph g = build(HnswConfig.DEFAULT, data);
    float[] q = TestVectors.near(r, data[7], 0.3);
    GraphHits hits = g.search(q, 10, 50);
    assertEquals(10, hits.size());
    for (int i = 0; i < hits.size(); i++) {
      assertEquals(VectorScores.closeness(q, data[hits.nodes()[i]]), hits.scores()[i], 1e-6f);
      if (i > 0) {
        assertTrue(hits.scores()[i - 1] >= hits.scores()[i]);
      }
    }
  }

  @Test
  void oneBuildThreadEqualsSequentialInsertsAndParallelBuildIsDeterministic() {
    long seed = TestSeeds.seed("buildDeterminism");
    float[][] data = vectors(new SplittableRandom(seed), 3000);
    HnswConfig config = HnswConfig.builder().efConstruction(64).seed(seed).build();
    MutableHnswGraph bulk = build(config, data);
    MutableHnswGraph oneByOne = MutableHnswGraph.create(VectorStore.create(DIM), config);
    for (int i = 0; i < data.length; i++) {
      oneByOne.insert(i, data[i]);
    }
    assertSameGraph(bulk, oneByOne, data.length);
    MutableHnswGraph p1 = build(config.toBuilder().buildThreads(2).build(), data);
    MutableHnswGraph p2 = build(config.toBuilder().buildThreads(3).build(), data);
    assertSameGraph(p1, p2, data.length);
  }

  private static void assertSameGraph(MutableHnswGraph a, MutableHnswGraph b, int n) {
    assertEquals(a.entryNode(), b.entryNode());
    for (int node = 0; node < n; node++) {
      assertEquals(a.level(node), b.level(node));
      for (int level = 0; level <= a.level(node); level++) {
        assertArrayEquals(a.neighbors(node, level), b.neighbors(node, level), "node " + node);
      }
    }
  }

  @Test
  void unchangedUpdateDoesNoGraphWorkAndChangedUpdateMovesTheNode() {
    SplittableRandom r = new SplittableRandom(TestSeeds.seed("updates"));
    float[][] data = vectors(r, 1000);
    MutableHnswGraph g = build(HnswConfig.DEFAULT, data);
    int[][] before = new int[data.length][];
    for (int i = 0; i < data.length; i++) {
      before[i] = g.neighbors(i, 0);
    }
    assertFalse(g.update(42, data[42].clone()));
    for (int i = 0; i < data.length; i++) {
      assertSame(before[i], g.neighbors(i, 0), "lists untouched by a no-op update");
    }
    float[] moved = TestVectors.gaussianUnit(r, DIM);
    assertTrue(g.update(42, moved));
    assertArrayEquals(moved, g.vectors().get(42));
    assertEquals(data.length, g.size());
    assertEquals(42, g.search(moved, 1, 50).nodes()[0]);
  }

  @Test
  void removingEveryNodeKeepsEntryPointValidAndLiveNodesReachable() {
    SplittableRandom r = new SplittableRandom(TestSeeds.seed("removeAll"));
    float[][] data = vectors(r, 600);
    MutableHnswGraph g = build(HnswConfig.builder().m(4).build(), data);
    for (int round = 0; round < data.length; round++) {
      int victim = round % 3 == 0 ? g.entryNode() : pickLive(g, r, data.length);
      assertTrue(g.remove(victim));
      assertNull(g.vectors().get(victim));
      assertFalse(g.contains(victim));
      if (g.size() > 0) {
        assertTrue(g.contains(g.entryNode()), "entry point is live");
        if (round % 50 == 0) {
          assertEquals(g.size(), TestVectors.reachableFromEntry(g, data.length));
        }
        for (int node : g.search(data[victim], 5, 20).nodes()) {
          assertTrue(g.contains(node));
        }
      }
    }
    assertEquals(0, g.size());
    assertEquals(-1, g.entryNode());
    assertEquals(0, g.search(data[0], 5, 20).size());
    g.insert(5, data[5]);
    assertEquals(5, g.search(data[5], 1, 10).nodes()[0]);
  }

  /**
   * Links are directed, so a full list's re-prune may drop the only link to a node: every write
   * must end with each live node but the entry point linked from somewhere on every level it shares
   * with another node, and reachable from the entry point. Small M and heavy churn make re-prunes
   * constant.
   */
  @Test
  void churnLeavesNoLiveNodeUnlinked() {
    long seed = TestSeeds.seed("churnLinks");
    SplittableRandom r = new SplittableRandom(seed);
    int n = 2000;
    float[][] data = vectors(r, n);
    MutableHnswGraph g =
        build(HnswConfig.builder().m(3).efConstruction(24).seed(seed).build(), data);
    boolean[] live = new boolean[n];
    java.util.Arrays.fill(live, true);
    for (int round = 0; round < 3 * n; round++) {
      int node = r.nextInt(n);
      if (live[node]) {
        assertTrue(g.remove(node));
      } else {
        g.insert(node, TestVectors.near(r, data[r.nextInt(n)], 0.2));
      }
      live[node] = !live[node];
      if (round % 100 == 99) {
        assertEveryNodeLinked(g, n);
        assertEquals(g.size(), TestVectors.reachableFromEntry(g, n), "reachable, round " + round);
      }
    }
    assertEveryNodeLinked(g, n);
    assertEquals(g.size(), TestVectors.reachableFromEntry(g, n), "reachable from the entry point");
    System.out.printf(
        "[churn] %d live, %d repairs, %d cut-off nodes linked back%n",
        g.size(), g.repairs(), g.bridges());
  }

  /**
   * Churn over vectors that are all one of two points, as in a catalogue full of copies: every
   * score ties, so a bridge that links one cut-off node can cut off another. Each write must still
   * end (the bound in {@code HnswBuilder.bridge}; before it the writer spun here). Cut-off sets
   * here grow past what a write bridges (105 of 186 live nodes reachable at one seed), so the
   * sweeps must run as the writes go, and the last one must leave every live node reachable.
   */
  @Test
  @org.junit.jupiter.api.Timeout(300) // a liveness bound: the test takes about a second
  void churnOverTiedVectorsEndsEveryWriteAndASweepReachesEveryNode() {
    long seed = TestSeeds.seed("churnTies");
    SplittableRandom r = new SplittableRandom(seed);
    int n = 400;
    float[][] points = {new float[DIM], new float[DIM]};
    points[0][0] = 1f;
    points[1][0] = -1f;
    float[][] data = new float[n][];
    for (int i = 0; i < n; i++) {
      data[i] = points[r.nextInt(2)];
    }
    MutableHnswGraph g = build(HnswConfig.builder().efConstruction(32).seed(seed).build(), data);
    boolean[] live = new boolean[n];
    java.util.Arrays.fill(live, true);
    for (int round = 0; round < 5 * n; round++) {
      int node = r.nextInt(n);
      if (live[node]) {
        assertTrue(g.remove(node));
      } else {
        g.insert(node, points[r.nextInt(2)]);
      }
      live[node] = !live[node];
    }
    int before = TestVectors.reachableFromEntry(g, n);
    long sweeps = g.sweeps();
    int left = g.sweep();
    System.out.printf(
        "[ties] %d live, %d repairs, %d bridges, %d left cut off by a write, %d sweeps linked %d"
            + " back; before the last sweep %d reachable%n",
        g.size(), g.repairs(), g.bridges(), g.unbridged(), sweeps, g.sweepBridges(), before);
    assertTrue(sweeps >= 5 * n / ISLAND_SWEEP_WRITES, "sweeps ran as the writes went: " + sweeps);
    assertEquals(0, left, "live nodes a sweep could not link back");
    assertEquals(g.size(), TestVectors.reachableFromEntry(g, n), "reachable from the entry point");
  }

  /** {@code HnswBuilder}'s sweep interval for a graph below 512 nodes. */
  private static final int ISLAND_SWEEP_WRITES = HnswBuilder.ISLAND_BOUND;

  /**
   * A node handed over stays published until it is removed, with nothing linking to it. A sweep in
   * between must leave it so: linked back, it would keep that link after its removal (a removal of
   * a handed-over node does no repair), and lists would name a node that is gone.
   */
  @Test
  void aSweepLeavesAHandedOverNodeUnlinked() {
    SplittableRandom r = new SplittableRandom(TestSeeds.seed("sweepHandOver"));
    int n = 300;
    float[][] data = vectors(r, n);
    MutableHnswGraph g = build(HnswConfig.DEFAULT, data);
    for (int from = 0; from < 20; from++) {
      g.vectors().set(n + from, data[from]);
      g.handOver(from, n + from);
    }
    g.sweep();
    for (int from = 0; from < 20; from++) {
      for (int l = 0; l <= g.level(n + from); l++) {
        assertEquals(0, g.adjacency().linkerCount(from, l), "links to handed-over node " + from);
      }
      assertTrue(g.remove(from));
    }
    for (int node = 20; node < n + 20; node++) {
      for (int l = 0; l <= g.level(node); l++) {
        for (int x : g.neighbors(node, l)) {
          assertTrue(g.contains(x), "node " + node + " links to " + x + ", which is gone");
        }
      }
    }
    assertEquals(n, TestVectors.reachableFromEntry(g, n + 20), "reachable from the entry point");
  }

  /**
   * The store's churn on a small graph: inserts, updates whose equal vector hands the node over to
   * a new id, vector changes and deletes, with the old nodes removed later in batches as the
   * compactor does (after more writes), and their ids reused. No node that is not a stale
   * handed-over one may ever name a node that is gone or a handed-over one, and the entry point is
   * never a handed-over node. Before the fix a removed entry point (or a repair's seed) could fall
   * back to the highest node of the graph, a handed-over one; a search from it selected that node,
   * and its removal, which skips the repair for a handed-over node, left the link behind: this test
   * failed at round seed 3021448744700569455, step 216 (node 14 named the removed 6), and {@code
   * MutableCrashPointTest} failed in CI with "node 20 selected a vanished neighbour".
   */
  @Test
  void handedOverNodesAreNeverEntryPointsOrLinkedTo() {
    long seed = TestSeeds.seed("handOverChurn");
    for (int round = 0; round < 40; round++) {
      SplittableRandom r = new SplittableRandom(seed + round);
      HnswConfig config = HnswConfig.builder().m(2 + r.nextInt(3)).efConstruction(8).build();
      MutableHnswGraph g = MutableHnswGraph.create(VectorStore.create(DIM), config);
      int docs = 4 + r.nextInt(12);
      int[] current = new int[docs];
      java.util.Arrays.fill(current, -1);
      java.util.BitSet handed = new java.util.BitSet();
      java.util.BitSet used = new java.util.BitSet();
      java.util.List<Integer> retired = new java.util.ArrayList<>();
      for (int step = 0; step < 300; step++) {
        int doc = r.nextInt(docs);
        int old = current[doc];
        double p = r.nextDouble();
        String what;
        if (p < 0.1 && !retired.isEmpty()) {
          what = "compaction of " + retired;
          for (int node : retired) {
            g.remove(node);
            handed.clear(node);
            used.clear(node);
          }
          retired.clear();
        } else if (p < 0.25 && old >= 0) {
          what = "delete of node " + old;
          current[doc] = -1;
          retired.add(old);
        } else if (p < 0.6 && old >= 0) {
          int to = used.nextClearBit(0);
          used.set(to);
          what = "hand-over " + old + " -> " + to;
          g.vectors().set(to, g.vectors().get(old));
          g.handOver(old, to);
          handed.set(old);
          current[doc] = to;
          retired.add(old);
        } else if (p < 0.7 && old >= 0) {
          what = "vector update of node " + old;
          g.update(old, TestVectors.gaussianUnit(r, DIM));
        } else {
          int to = used.nextClearBit(0);
          used.set(to);
          what = "insert of node " + to + (old >= 0 ? " replacing " + old : "");
          g.insert(to, TestVectors.gaussianUnit(r, DIM));
          current[doc] = to;
          if (old >= 0) {
            retired.add(old);
          }
        }
        String at = "seed " + (seed + round) + " step " + step + " after the " + what;
        int entry = g.entryNode();
        assertFalse(entry >= 0 && handed.get(entry), at + ": the entry point is handed over");
        for (int node = used.nextSetBit(0); node >= 0; node = used.nextSetBit(node + 1)) {
          if (!g.contains(node) || handed.get(node)) {
            continue;
          }
          for (int l = 0; l <= g.level(node); l++) {
            for (int x : g.neighbors(node, l)) {
              assertTrue(g.contains(x), at + ": node " + node + " names " + x + ", which is gone");
              assertFalse(handed.get(x), at + ": node " + node + " names handed-over " + x);
            }
          }
        }
      }
    }
  }

  private static void assertEveryNodeLinked(MutableHnswGraph g, int n) {
    int[] onLevel = new int[32];
    for (int node = 0; node < n; node++) {
      for (int l = 0; g.contains(node) && l <= g.level(node); l++) {
        onLevel[l]++;
      }
    }
    for (int node = 0; node < n; node++) {
      for (int l = 0; g.contains(node) && l <= g.level(node); l++) {
        if (onLevel[l] > 1 && node != g.entryNode()) {
          assertTrue(
              g.adjacency().linkerCount(node, l) > 0,
              "node " + node + " has no link to it on level " + l + " of " + onLevel[l] + " nodes");
        }
      }
    }
  }

  private static int pickLive(MutableHnswGraph g, SplittableRandom r, int n) {
    int node;
    do {
      node = r.nextInt(n);
    } while (!g.contains(node));
    return node;
  }

  @Test
  void thresholdsChooseThePlanPerQuery() {
    SplittableRandom r = new SplittableRandom(TestSeeds.seed("plans"));
    float[][] data = vectors(r, 1000);
    MutableHnswGraph g = build(HnswConfig.DEFAULT, data);
    AcceptBits even = node -> node % 2 == 0;
    float[] q = data[10];
    // With the index's thresholds, a filter accepting fewer than exactScanPerBeam times the beam
    // is scanned; 500 accepted nodes go to the graph at a beam of 5 (250) and up to 9 (450), and
    // are scanned from a beam of 11 (550) on. At exactly 50 × beam the graph is searched.
    int per = HnswConfig.DEFAULT.exactScanPerBeam();
    assertEquals(
        QueryPlan.HNSW, g.search(q, 5, 5, even, 500, FilterThresholds.INDEX_DEFAULT).plan());
    assertEquals(
        QueryPlan.HNSW, g.search(q, 5, 10, even, 10 * per, FilterThresholds.INDEX_DEFAULT).plan());
    assertEquals(
        QueryPlan.EXACT,
        g.search(q, 5, 10, even, 10 * per - 1, FilterThresholds.INDEX_DEFAULT).plan());
    assertEquals(
        QueryPlan.EXACT, g.search(q, 5, 20, even, 500, FilterThresholds.INDEX_DEFAULT).plan());
    // A request that sets its own approximate threshold chooses by hit ratio alone.
    assertEquals(
        QueryPlan.HNSW,
        g.search(q, 5, 20, even, 500, new FilterThresholds(0.1, Double.NaN)).plan());
    assertEquals(
        QueryPlan.EXACT, g.search(q, 5, 20, even, 500, new FilterThresholds(0.6, 0.7)).plan());
    GraphHits ff = g.search(q, 5, 20, even, 500, new FilterThresholds(0.1, 0.7));
    assertEquals(QueryPlan.FILTER_FIRST, ff.plan());
    // Filter-first is an approximate graph search (Lucene's ACORN-1 variant): it may miss a true
    // neighbour (about 1 query in 80 here, over 200 seeds), so it is checked for what it promises,
    // not for equality with the exact scan. Its recall is measured in MutableHnswGraphRecallTest.
    assertEquals(5, ff.size());
    for (int i = 0; i < ff.size(); i++) {
      int node = ff.nodes()[i];
      assertEquals(0, node % 2);
      assertEquals(VectorScores.fromDot(VectorUtil.dotProduct(q, data[node])), ff.scores()[i]);
      if (i > 0) {
        assertTrue(ff.scores()[i - 1] >= ff.scores()[i]);
      }
    }
    GraphHits exact = g.search(q, 5, 20, even, 500, new FilterThresholds(1, 1));
    assertEquals(QueryPlan.EXACT, exact.plan());
    assertEquals(10, exact.nodes()[0]);
    // And it finds the neighbours: tie-aware recall@5 over 50 queries (at least 0.988 for every
    // one of 200 seeds measured; a search that returned arbitrary accepted nodes scores near 0).
    double recall = 0;
    for (int i = 0; i < 50; i++) {
      float[] query = data[r.nextInt(data.length)];
      GraphHits hits = g.search(query, 5, 20, even, 500, new FilterThresholds(0.1, 0.7));
      assertEquals(QueryPlan.FILTER_FIRST, hits.plan());
      recall += TestVectors.recall(hits, TestVectors.exactScores(query, data, n -> n % 2 == 0), 5);
    }
    assertTrue(recall / 50 >= 0.95, "filter-first recall@5 " + recall / 50);
    AcceptBits none = node -> false;
    assertEquals(0, g.search(q, 5, 20, none, 0, FilterThresholds.INDEX_DEFAULT).size());
  }

  @Test
  void snapshotRejectsCorruptionAndMismatchedConfig(@TempDir Path dir) throws IOException {
    SplittableRandom r = new SplittableRandom(TestSeeds.seed("snapshotCorruption"));
    MutableHnswGraph g = build(HnswConfig.DEFAULT, vectors(r, 300));
    g.remove(17);
    Path file = dir.resolve("g.snap");
    g.writeSnapshot(file);
    MutableHnswGraph loaded = MutableHnswGraph.load(file, HnswConfig.DEFAULT);
    assertEquals(299, loaded.size());
    assertFalse(loaded.contains(17));
    assertThrows(
        IOException.class, () -> MutableHnswGraph.load(file, HnswConfig.builder().m(8).build()));
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x10;
    Path bad = dir.resolve("bad.snap");
    Files.write(bad, bytes);
    assertThrows(IOException.class, () -> MutableHnswGraph.load(bad, HnswConfig.DEFAULT));
    byte[] version = Files.readAllBytes(file);
    version[11] = 99;
    Files.write(bad, version);
    IOException e =
        assertThrows(IOException.class, () -> MutableHnswGraph.load(bad, HnswConfig.DEFAULT));
    assertTrue(e.getMessage().contains("version"), e.getMessage());
  }

  @Test
  void vectorStoreSetGetRemove() {
    VectorStore store = VectorStore.create(3);
    assertNull(store.get(0));
    assertNull(store.get(-1));
    float[] v = {1, 2, 3};
    store.set(100, v);
    v[0] = 9; // the store keeps a copy
    assertArrayEquals(new float[] {1, 2, 3}, store.get(100));
    assertEquals(1, store.size());
    assertEquals(101, store.idUpperBound());
    assertTrue(store.remove(100));
    assertFalse(store.remove(100));
    assertNull(store.get(100));
    assertEquals(0, store.size());
    assertThrows(InvalidRequestException.class, () -> store.set(0, new float[2]));
    assertThrows(InvalidRequestException.class, () -> VectorStore.create(0));
  }
}
