package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.searchlab.core.FilterThresholds;
import org.searchlab.testing.TestSeeds;

/**
 * Four readers search (unfiltered and filtered) while one writer inserts, updates and deletes, for
 * a bounded time. No search may fail, and a node whose delete completed before a search started
 * must never be in that search's results. Deleted ids are never reused, so "deleted before" is well
 * defined: the writer stamps each delete with a sequence number after {@code remove} returns, and a
 * reader that read a sequence number at least that large before searching is ordered after the
 * delete.
 */
class ConcurrentReadWriteTest {
  static final int DIM = 32;
  static final int INITIAL = 3_000;
  static final int MAX_IDS = 40_000;

  @Test
  void readersNeverSeeNodesDeletedBeforeTheyStarted() throws Exception {
    long seed = TestSeeds.seed("ConcurrentReadWriteTest");
    run(seed, HnswConfig.builder().efConstruction(64).seed(seed).build());
  }

  /**
   * The same over 1-bit codes with the neighbours' codes in each row ({@link InlineCodeRows}),
   * which the writer rewrites in place while readers estimate from them.
   */
  @Test
  void readersOfInlineCodeRowsNeverSeeNodesDeletedBeforeTheyStarted() throws Exception {
    long seed = TestSeeds.seed("ConcurrentReadWriteTest.inline");
    run(
        seed,
        HnswConfig.builder()
            .efConstruction(64)
            .seed(seed)
            .quantization(org.searchlab.core.VectorQuantization.BBQ)
            .inlineCodes(true)
            .build());
  }

  /** The same over 4-bit codes, whose rows the writer replaces while readers estimate from them. */
  @Test
  void readersOfFourBitCodesNeverSeeNodesDeletedBeforeTheyStarted() throws Exception {
    long seed = TestSeeds.seed("ConcurrentReadWriteTest.int4");
    run(
        seed,
        HnswConfig.builder()
            .efConstruction(64)
            .seed(seed)
            .quantization(org.searchlab.core.VectorQuantization.INT4)
            .build());
  }

  private static void run(long seed, HnswConfig config) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    float[][] centres = new float[16][];
    for (int c = 0; c < centres.length; c++) {
      centres[c] = TestVectors.gaussianUnit(random, DIM);
    }
    MutableHnswGraph graph =
        MutableHnswGraph.create(VectorStore.create(DIM, config.quantization()), config);
    for (int i = 0; i < INITIAL; i++) {
      graph.insert(i, TestVectors.near(random, centres[random.nextInt(centres.length)], 1.0));
    }
    AtomicLong sequence = new AtomicLong(1);
    AtomicLongArray deletedAt = new AtomicLongArray(MAX_IDS);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long deadline = System.nanoTime() + 3_000_000_000L;
    Thread writer =
        new Thread(
            () -> {
              SplittableRandom r = new SplittableRandom(seed + 1);
              List<Integer> live = new ArrayList<>();
              for (int i = 0; i < INITIAL; i++) {
                live.add(i);
              }
              int next = INITIAL;
              try {
                while (System.nanoTime() < deadline && next < MAX_IDS) {
                  double op = r.nextDouble();
                  if (op < 0.4 || live.size() < 100) {
                    graph.insert(next, TestVectors.near(r, centres[r.nextInt(centres.length)], 1));
                    live.add(next++);
                  } else if (op < 0.7) {
                    int node = live.get(r.nextInt(live.size()));
                    graph.update(node, TestVectors.near(r, centres[r.nextInt(centres.length)], 1));
                  } else {
                    int node = live.remove(r.nextInt(live.size()));
                    assertTrue(graph.remove(node));
                    deletedAt.set(node, sequence.incrementAndGet());
                  }
                }
              } catch (Throwable t) {
                failure.compareAndSet(null, t);
              } finally {
                stop.set(true);
              }
            },
            "writer");
    List<Thread> readers = new ArrayList<>();
    long[] searches = new long[4];
    for (int t = 0; t < 4; t++) {
      int id = t;
      readers.add(
          new Thread(
              () -> {
                SplittableRandom r = new SplittableRandom(seed + 100 + id);
                try {
                  while (!stop.get()) {
                    float[] q = TestVectors.near(r, centres[r.nextInt(centres.length)], 1.0);
                    long before = sequence.get();
                    GraphHits hits =
                        (id % 2 == 0)
                            ? graph.search(q, 10, 40)
                            : graph.search(
                                q,
                                10,
                                40,
                                node -> (node & 3) == 0,
                                graph.size() / 4,
                                FilterThresholds.INDEX_DEFAULT);
                    for (int node : hits.nodes()) {
                      long d = deletedAt.get(node);
                      if (d != 0 && d <= before) {
                        throw new AssertionError(
                            "node "
                                + node
                                + " deleted at "
                                + d
                                + " returned by search at "
                                + before);
                      }
                      if (id % 2 == 1 && (node & 3) != 0) {
                        throw new AssertionError("node " + node + " fails the filter");
                      }
                    }
                    searches[id]++;
                  }
                } catch (Throwable t2) {
                  failure.compareAndSet(null, t2);
                  stop.set(true);
                }
              },
              "reader-" + t));
    }
    writer.start();
    readers.forEach(Thread::start);
    writer.join();
    for (Thread t : readers) {
      t.join();
    }
    if (failure.get() != null) {
      throw new AssertionError("concurrent failure", failure.get());
    }
    System.out.printf(
        "searches per reader %s, final size %d%n",
        java.util.Arrays.toString(searches), graph.size());
    for (long s : searches) {
      assertTrue(s > 0, "every reader searched");
    }
    // After the writer stops, the graph is consistent: every live node is reachable.
    int reachable = TestVectors.reachableFromEntry(graph, MAX_IDS);
    assertEquals(graph.size(), reachable);
  }
}
