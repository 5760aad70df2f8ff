package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/**
 * The rows that hold an unquantized store's vectors behind the graph's level-0 links: slot
 * semantics, the links mirrored from the graph's own lists through inserts, updates and removes,
 * and readers racing in-place rewrites of a row's links.
 */
class RowFloatSlotsTest {
  static final int DIM = 12;

  @Test
  void slotsKeepVectorsBehindTheLinksAndCarryLinksAcrossPuts() {
    RowFloatSlots rows = new RowFloatSlots(DIM);
    rows.reserveLinks(4);
    float[] v = new float[DIM];
    for (int i = 0; i < DIM; i++) {
      v[i] = i + 0.5f;
    }
    rows.put(40, v);
    assertArrayEquals(v, rows.get(40));
    assertNotSame(rows.get(40), rows.get(40)); // get() copies out of the row
    rows.setLinks(40, new int[] {7, 3, 1_000_000});
    float[] row = rows.row(40);
    assertEquals(DIM + 5, row.length); // the vector, the count, four links
    assertEquals(3, rows.linkCount(row));
    assertEquals(1_000_000, rows.link(row, 2));
    float[] w = v.clone();
    w[0] = -1;
    rows.put(40, w); // a new vector: a new row, the same links
    assertNotSame(row, rows.row(40));
    assertEquals(3, rows.linkCount(rows.row(40)));
    assertEquals(7, rows.link(rows.row(40), 0));
    assertArrayEquals(w, rows.get(40));
    assertEquals(v[0], row[0]); // a reader's old row still holds the old vector
    assertThrows(IllegalStateException.class, () -> rows.reserveLinks(8));
    rows.reserveLinks(4); // the same capacity is fine
    assertThrows(IllegalStateException.class, () -> rows.setLinks(40, new int[5]));
    rows.setLinks(41, new int[] {1}); // no row: nothing to mirror into
    assertNull(rows.row(41));
    assertTrue(rows.clear(40));
    assertFalse(rows.clear(40));
    assertNull(rows.get(40));
    rows.reserveLinks(8); // empty again
    rows.put(1, v);
    assertEquals(DIM + 9, rows.row(1).length);
  }

  @Test
  void withoutLinksASlotIsTheVectorItself() {
    RowFloatSlots slots = new RowFloatSlots(DIM);
    float[] v = new float[DIM];
    slots.put(3, v);
    assertArrayEquals(v, slots.get(3));
    assertSame(slots.row(3), slots.get(3)); // the slot is the vector: get() needs no copy
    assertThrows(IllegalStateException.class, () -> slots.setLinks(3, new int[] {1}));
    // A quantized store's graph walks codes: it reserves no links in the floats' slots.
    VectorStore int8 = VectorStore.create(DIM, org.searchlab.core.VectorQuantization.INT8);
    MutableHnswGraph.create(
        int8,
        HnswConfig.builder().quantization(org.searchlab.core.VectorQuantization.INT8).build());
    int8.set(0, v);
    assertEquals(DIM, int8.row(0).length);
  }

  @Test
  void theRowsMirrorTheGraphsLevelZeroThroughInsertsUpdatesAndRemoves() {
    long seed = TestSeeds.seed("RowFloatSlotsTest.mirror");
    SplittableRandom random = new SplittableRandom(seed);
    VectorStore store = VectorStore.create(DIM);
    HnswConfig config = HnswConfig.builder().m(4).efConstruction(32).seed(seed).build();
    MutableHnswGraph graph = MutableHnswGraph.create(store, config);
    RowFloatSlots rows = graph.adjacency().rows();
    float[][] centres = {
      TestVectors.gaussianUnit(random, DIM), TestVectors.gaussianUnit(random, DIM)
    };
    List<Integer> live = new ArrayList<>();
    int next = 0;
    for (int step = 0; step < 1_500; step++) {
      int op = live.size() < 50 ? 0 : random.nextInt(4);
      float[] v = TestVectors.near(random, centres[random.nextInt(2)], 0.5);
      if (op <= 1) {
        graph.insert(next, v);
        live.add(next++);
      } else if (op == 2) {
        graph.update(live.get(random.nextInt(live.size())), v);
      } else {
        assertTrue(graph.remove(live.remove(random.nextInt(live.size()))));
      }
    }
    for (int node = 0; node < next; node++) {
      float[] row = store.row(node);
      if (!live.contains(node)) {
        assertNull(row, "removed node " + node + " still has a row");
        continue;
      }
      int[] links = graph.neighbors(node, 0);
      assertEquals(DIM + 1 + config.maxLinks(0), row.length);
      int[] mirrored = new int[rows.linkCount(row)];
      for (int j = 0; j < mirrored.length; j++) {
        mirrored[j] = rows.link(row, j);
      }
      assertArrayEquals(links, mirrored, "node " + node + ", seed " + seed);
      float[] vector = store.get(node);
      for (int i = 0; i < DIM; i++) {
        assertEquals(vector[i], row[i]);
      }
    }
  }

  @Test
  void readersRacingLinkRewritesOnlySeeIdsThatWereWritten() throws Exception {
    long seed = TestSeeds.seed("RowFloatSlotsTest.race");
    RowFloatSlots rows = new RowFloatSlots(DIM);
    int capacity = 32;
    rows.reserveLinks(capacity);
    rows.put(0, new float[DIM]);
    // Lists drawn from ids 1..999 (0 is the initial value of a never-written cell, and the
    // node itself, which is not in the set): a reader must only ever see those.
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<String> failure = new AtomicReference<>();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      Thread reader =
          new Thread(
              () -> {
                while (!done.get() && failure.get() == null) {
                  float[] row = rows.row(0);
                  int n = rows.linkCount(row);
                  if (n < 0 || n > capacity) {
                    failure.set("count " + n);
                  }
                  for (int j = 0; j < n; j++) {
                    int id = rows.link(row, j);
                    if (id < 1 || id > 999) {
                      failure.set("id " + id + " at " + j + " of " + n);
                    }
                  }
                }
              });
      reader.start();
      readers.add(reader);
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int round = 0; round < 200_000 && failure.get() == null; round++) {
      int[] ids = new int[1 + random.nextInt(capacity)];
      for (int j = 0; j < ids.length; j++) {
        ids[j] = 1 + random.nextInt(999);
      }
      rows.setLinks(0, ids);
    }
    done.set(true);
    for (Thread reader : readers) {
      reader.join();
    }
    assertNull(failure.get(), "seed " + seed);
  }
}
