package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.TestSeeds;

/**
 * The rows that hold a quantized store's int8 codes before the graph's level-0 links: slot
 * semantics, the links mirrored from the graph's own lists through inserts, updates and removes,
 * and readers racing in-place rewrites of a row's links. The same checks as {@link
 * RowFloatSlotsTest} makes of the float rows.
 */
class RowCodesTest {
  static final int DIM = 13; // code 21 bytes: the count sits after three bytes of padding

  private static byte[] code(float first) {
    float[] v = new float[DIM];
    Arrays.fill(v, 0.25f);
    v[0] = first;
    return Int8Codes.encode(v);
  }

  private static byte[] row(RowCodes rows, byte[] code) {
    return Arrays.copyOf(code, rows.rowLength());
  }

  @Test
  void rowsKeepCodesBeforeTheLinksAndCarryLinksAcrossPuts() {
    RowCodes rows = new RowCodes(DIM);
    assertEquals(DIM + Int8Codes.TAIL, rows.rowLength()); // no links reserved: the code alone
    rows.reserveLinks(4);
    assertEquals(24, rows.countOffset());
    assertEquals(24 + 4 + 16, rows.rowLength());
    byte[] c = code(1f);
    rows.put(40, row(rows, c));
    rows.setLinks(40, new int[] {7, 3, 1_000_000});
    byte[] row = rows.row(40);
    assertArrayEquals(c, Arrays.copyOf(row, c.length));
    assertEquals(3, rows.linkCount(row));
    assertEquals(1_000_000, rows.link(row, 2));
    byte[] d = code(-1f);
    rows.put(40, row(rows, d)); // a new code: a new row, the same links
    assertNotSame(row, rows.row(40));
    assertEquals(3, rows.linkCount(rows.row(40)));
    assertEquals(7, rows.link(rows.row(40), 0));
    assertArrayEquals(d, Arrays.copyOf(rows.row(40), d.length));
    assertArrayEquals(c, Arrays.copyOf(row, c.length)); // a reader's old row keeps the old code
    // A shorter list zeroes what the longer one left: a row's bytes depend on its list alone.
    rows.setLinks(40, new int[] {5});
    byte[] shorter = rows.row(40);
    assertEquals(1, rows.linkCount(shorter));
    byte[] fresh = row(rows, d);
    RowCodes other = new RowCodes(DIM);
    other.reserveLinks(4);
    other.put(40, fresh);
    other.setLinks(40, new int[] {5});
    assertArrayEquals(other.row(40), shorter);
    assertThrows(IllegalStateException.class, () -> rows.reserveLinks(8));
    rows.reserveLinks(4); // the same capacity is fine
    assertThrows(IllegalStateException.class, () -> rows.setLinks(40, new int[5]));
    rows.setLinks(41, new int[] {1}); // no row: nothing to mirror into
    assertNull(rows.row(41));
    assertEquals(2L * (3 + 4 + 16), rows.linkBytes() + other.linkBytes()); // padding, count, ids
    assertTrue(rows.clear(40));
    assertFalse(rows.clear(40));
    assertNull(rows.row(40));
    rows.reserveLinks(8); // empty again
    rows.put(1, row(rows, c));
    assertEquals(24 + 4 + 32, rows.row(1).length);
  }

  @Test
  void aQuantizedGraphWalksCodeRowsThatMirrorItsLevelZero() {
    long seed = TestSeeds.seed("RowCodesTest.mirror");
    SplittableRandom random = new SplittableRandom(seed);
    VectorStore store = VectorStore.create(DIM, VectorQuantization.INT8);
    HnswConfig config =
        HnswConfig.builder()
            .m(4)
            .efConstruction(32)
            .seed(seed)
            .quantization(VectorQuantization.INT8)
            .build();
    MutableHnswGraph graph = MutableHnswGraph.create(store, config);
    RowCodes rows = graph.adjacency().codeRows();
    assertNull(graph.adjacency().rows(), "the floats of a quantized graph hold no links");
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
      byte[] row = store.code(node);
      if (!live.contains(node)) {
        assertNull(row, "removed node " + node + " still has a row");
        continue;
      }
      int[] links = graph.neighbors(node, 0);
      assertEquals(rows.countOffset() + 4 + 4 * config.maxLinks(0), row.length);
      int[] mirrored = new int[rows.linkCount(row)];
      for (int j = 0; j < mirrored.length; j++) {
        mirrored[j] = rows.link(row, j);
      }
      assertArrayEquals(links, mirrored, "node " + node + ", seed " + seed);
      assertArrayEquals(
          Int8Codes.encode(store.get(node)),
          Arrays.copyOf(row, DIM + Int8Codes.TAIL),
          "node " + node + ", seed " + seed);
    }
  }

  @Test
  void readersRacingLinkRewritesOnlySeeIdsThatWereWrittenOrZeroed() throws Exception {
    long seed = TestSeeds.seed("RowCodesTest.race");
    RowCodes rows = new RowCodes(DIM);
    int capacity = 32;
    rows.reserveLinks(capacity);
    rows.put(0, new byte[rows.rowLength()]);
    // Lists drawn from ids 1..999; 0 is a cell never written or zeroed behind a shorter list.
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<String> failure = new AtomicReference<>();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      Thread reader =
          new Thread(
              () -> {
                while (!done.get() && failure.get() == null) {
                  byte[] row = rows.row(0);
                  int n = rows.linkCount(row);
                  if (n < 0 || n > capacity) {
                    failure.set("count " + n);
                  }
                  for (int j = 0; j < n; j++) {
                    int id = rows.link(row, j);
                    if (id < 0 || id > 999) {
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
