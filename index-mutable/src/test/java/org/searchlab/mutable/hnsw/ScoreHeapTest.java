package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * {@link ScoreHeap} against {@link PriorityQueue} over the same packed codes: random pushes, pops
 * and bounded inserts, with heavy score ties (few distinct scores), at sizes where the last parent
 * has one child and where it has two. The order must be exact, not only the scores: the graph's
 * build depends on which of two tied nodes comes first.
 */
class ScoreHeapTest {
  @Test
  void popsInTheOrderOfTheCodesAsAPriorityQueueDoes() {
    long seed = TestSeeds.seed("ScoreHeapTest.order");
    SplittableRandom random = new SplittableRandom(seed);
    for (boolean max : new boolean[] {false, true}) {
      for (int round = 0; round < 200; round++) {
        ScoreHeap heap = new ScoreHeap(max);
        PriorityQueue<Long> oracle = new PriorityQueue<>();
        int distinct = 1 + random.nextInt(round % 2 == 0 ? 4 : 1_000);
        int capacity = 1 + random.nextInt(300);
        int nextNode = 0;
        for (int op = 0; op < 2_000; op++) {
          int kind = random.nextInt(10);
          float score = random.nextInt(distinct) / (float) distinct - 0.5f;
          int node = nextNode++;
          long code = ScoreHeap.encode(node, score);
          if (kind < 4) {
            heap.push(node, score);
            oracle.add(max ? ~code : code);
          } else if (kind < 8 && !max) {
            boolean kept = heap.insertWithOverflow(node, score, capacity);
            boolean expected;
            if (oracle.size() < capacity) {
              oracle.add(code);
              expected = true;
            } else if (code > oracle.peek()) {
              oracle.poll();
              oracle.add(code);
              expected = true;
            } else {
              expected = false;
            }
            assertEquals(expected, kept, "seed " + seed + ", kept " + node);
          } else if (oracle.size() > 0) {
            long expected = max ? ~oracle.poll() : oracle.poll();
            assertEquals(expected, heap.pop(), "seed " + seed + ", pop at op " + op);
          }
          assertEquals(oracle.size(), heap.size(), "seed " + seed);
          if (oracle.size() > 0) {
            assertEquals(max ? ~oracle.peek() : oracle.peek(), heap.topCode(), "seed " + seed);
          }
        }
        while (oracle.size() > 0) {
          long expected = max ? ~oracle.poll() : oracle.poll();
          assertEquals(expected, heap.pop(), "seed " + seed + ", draining");
        }
      }
    }
  }

  /**
   * {@link ScoreHeap#keepBest} then {@link ScoreHeap#drainBestFirst} give what pops give: filled at
   * random (the sifting path) and in ascending order (the sorted path, as the sorted beam fills
   * it), with heavy ties.
   */
  @Test
  void keepsAndDrainsTheBestAsPopsWould() {
    long seed = TestSeeds.seed("ScoreHeapTest.drain");
    SplittableRandom random = new SplittableRandom(seed);
    for (int round = 0; round < 400; round++) {
      boolean ascending = round % 2 == 0;
      int n = random.nextInt(300);
      int distinct = 1 + random.nextInt(round % 4 < 2 ? 3 : 10_000);
      long[] codes = new long[n];
      for (int i = 0; i < n; i++) {
        codes[i] = ScoreHeap.encode(i, random.nextInt(distinct) / (float) distinct - 0.5f);
      }
      if (ascending) {
        java.util.Arrays.sort(codes);
      }
      ScoreHeap heap = new ScoreHeap(false);
      PriorityQueue<Long> oracle = new PriorityQueue<>();
      for (long c : codes) {
        heap.push(ScoreHeap.node(c), ScoreHeap.score(c));
        oracle.add(c);
      }
      int keep = random.nextInt(n + 2);
      heap.keepBest(keep);
      while (oracle.size() > keep) {
        oracle.poll();
      }
      String where = "seed " + seed + ", round " + round + ", n " + n + ", keep " + keep;
      assertEquals(oracle.size(), heap.size(), where);
      int m = oracle.size();
      int[] nodes = new int[m];
      float[] scores = new float[m];
      heap.drainBestFirst(nodes, scores);
      assertEquals(0, heap.size(), where);
      for (int i = m - 1; i >= 0; i--) {
        long expected = oracle.poll();
        assertEquals(ScoreHeap.node(expected), nodes[i], where + ", rank " + i);
        assertEquals(ScoreHeap.score(expected), scores[i], where + ", rank " + i);
      }
    }
  }

  @Test
  void drainsTheCodesPopsWouldReturn() {
    long seed = TestSeeds.seed("ScoreHeapTest.drainAny");
    SplittableRandom random = new SplittableRandom(seed);
    for (boolean max : new boolean[] {false, true}) {
      ScoreHeap a = new ScoreHeap(max);
      ScoreHeap b = new ScoreHeap(max);
      int n = 1 + random.nextInt(200);
      for (int i = 0; i < n; i++) {
        float score = (float) random.nextGaussian();
        a.push(i, score);
        b.push(i, score);
      }
      long[] popped = new long[n];
      for (int i = 0; i < n; i++) {
        popped[i] = a.pop();
      }
      long[] drained = new long[n];
      assertEquals(n, b.drain(drained), "seed " + seed);
      assertEquals(0, b.size(), "seed " + seed);
      java.util.Arrays.sort(popped);
      java.util.Arrays.sort(drained);
      org.junit.jupiter.api.Assertions.assertArrayEquals(popped, drained, "seed " + seed);
    }
  }
}
