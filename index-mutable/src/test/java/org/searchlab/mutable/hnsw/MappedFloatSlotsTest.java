package org.searchlab.mutable.hnsw;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.TestSeeds;

/**
 * The mapped float slots against the heap ones as a reference, across chunk boundaries; readers
 * racing in-place rewrites of the same slots; and a store whose floats are mapped, which must give
 * back what a heap store gives.
 */
class MappedFloatSlotsTest {
  static final int DIM = 24;
  // 10 slots of 24 floats per chunk, so a few hundred ids cross many chunk boundaries.
  static final long SMALL_CHUNK = 10L * DIM * Float.BYTES;

  @TempDir Path dir;

  @Test
  void randomPutsGetsAndClearsMatchHeapSlots() throws Exception {
    long seed = TestSeeds.seed("MappedFloatSlotsTest.randomPutsGetsAndClearsMatchHeapSlots");
    SplittableRandom random = new SplittableRandom(seed);
    try (MappedFloatSlots mapped = new MappedFloatSlots(DIM, dir, SMALL_CHUNK);
        RowFloatSlots heap = new RowFloatSlots(DIM)) {
      for (int step = 0; step < 5_000; step++) {
        int id = random.nextInt(300);
        switch (random.nextInt(3)) {
          case 0, 1 -> {
            float[] v = TestVectors.gaussianUnit(random, DIM);
            mapped.put(id, v.clone());
            heap.put(id, v);
          }
          default -> assertEquals(heap.clear(id), mapped.clear(id), "clear " + id);
        }
        int probe = random.nextInt(320);
        assertArrayEquals(heap.get(probe), mapped.get(probe), "get " + probe + " at " + step);
        // The same read into the caller's buffer, after a touch of each of its cache lines.
        float[] buffer = new float[DIM];
        float touched = mapped.touch(probe);
        float[] row = mapped.row(probe, buffer);
        assertArrayEquals(heap.get(probe), row, "row " + probe + " at " + step);
        if (row != null) {
          assertSame(buffer, row, "copied into the caller's buffer");
          float lines = row[DIM - 1];
          for (int i = 0; i < DIM; i += 16) {
            lines += row[i];
          }
          assertEquals(lines, touched, "touch reads every 16th float and the last");
          assertEquals(lines, heap.touch(probe), "the heap rows touch the same floats");
        }
        assertEquals(heap.has(probe), mapped.has(probe), "has " + probe);
      }
      assertNull(mapped.get(-1));
      assertEquals(0f, mapped.touch(-1));
      assertEquals(0f, mapped.touch(10_000));
      assertFalse(mapped.clear(10_000));
      assertEquals(30, mapped.mappedBytes() / SMALL_CHUNK, "chunks for ids below 300");
    }
  }

  @Test
  void readersNeverSeeAHalfRewrittenVector() throws Exception {
    long seed = TestSeeds.seed("MappedFloatSlotsTest.readersNeverSeeAHalfRewrittenVector");
    int ids = 8; // few slots, so readers and the writer meet on the same ones all the time
    try (MappedFloatSlots slots = new MappedFloatSlots(DIM, dir, SMALL_CHUNK)) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<String> torn = new AtomicReference<>();
      List<Thread> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        long readerSeed = seed + 1 + r;
        readers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      SplittableRandom random = new SplittableRandom(readerSeed);
                      while (!stop.get() && torn.get() == null) {
                        int id = random.nextInt(ids);
                        float[] v = slots.get(id);
                        if (v != null) {
                          for (float x : v) {
                            if (x != v[0]) {
                              torn.set("id " + id + " read " + java.util.Arrays.toString(v));
                              break;
                            }
                          }
                        }
                      }
                    }));
      }
      SplittableRandom random = new SplittableRandom(seed);
      float[] v = new float[DIM];
      for (int version = 1; version <= 400_000 && torn.get() == null; version++) {
        int id = random.nextInt(ids);
        if (random.nextInt(10) == 0) {
          slots.clear(id);
        } else {
          java.util.Arrays.fill(v, version); // every component equal: a mix of two is visible
          slots.put(id, v);
        }
      }
      stop.set(true);
      for (Thread t : readers) {
        t.join();
      }
      assertNull(torn.get(), "seed " + seed + ": a reader saw a torn vector");
    }
  }

  /**
   * A graph over mapped floats is the graph over heap floats: the same links and the same hits. The
   * int8 build walks codes; the 1-bit and 4-bit builds walk the floats, which the mapped file
   * copies into the searchers' reused buffers (beam batches, neighbour selection, the pruning of
   * full lists and the repair after removals), so a buffer overwritten while still in use changes
   * the links.
   */
  @ParameterizedTest
  @EnumSource(
      value = VectorQuantization.class,
      names = {"INT8", "INT4", "BBQ"})
  void aStoreWithMappedFloatsAnswersAsOneOnTheHeapAndLeavesNoFile(VectorQuantization quantization)
      throws Exception {
    long seed = TestSeeds.seed("MappedFloatSlotsTest.aStoreWithMappedFloatsAnswers");
    SplittableRandom random = new SplittableRandom(seed);
    HnswConfig config = HnswConfig.builder().quantization(quantization).seed(seed).build();
    float[][] docs = new float[2_000][];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = TestVectors.gaussianUnit(random, DIM);
    }
    int[] ids = java.util.stream.IntStream.range(0, 1_800).toArray();
    float[][] batch = java.util.Arrays.copyOf(docs, ids.length);
    VectorStore onHeap = VectorStore.create(DIM, quantization);
    VectorStore mapped = VectorStore.create(DIM, quantization, dir);
    MutableHnswGraph a = MutableHnswGraph.create(onHeap, config);
    MutableHnswGraph b = MutableHnswGraph.create(mapped, config);
    for (MutableHnswGraph g : List.of(a, b)) {
      g.insertAll(ids, batch);
      for (int i = ids.length; i < docs.length; i++) {
        g.insert(i, docs[i]);
      }
      for (int i = 0; i < docs.length; i += 7) {
        g.remove(i);
      }
    }
    assertEquals(0, onHeap.mappedBytes());
    assertTrue(mapped.mappedBytes() >= (long) docs.length * DIM * Float.BYTES);
    assertTrue(
        onHeap.ramBytesUsed() - mapped.ramBytesUsed() > (long) docs.length * DIM * Float.BYTES / 2,
        "floats are off the heap");
    String where = "seed " + seed + ", " + quantization;
    for (int node = 0; node < docs.length; node++) {
      assertEquals(a.contains(node), b.contains(node), where + ", node " + node);
      for (int level = 0; a.contains(node) && level <= a.level(node); level++) {
        assertArrayEquals(
            a.neighbors(node, level), b.neighbors(node, level), where + ", links of " + node);
      }
    }
    for (int q = 0; q < 50; q++) {
      float[] query = TestVectors.gaussianUnit(random, DIM);
      GraphHits x = a.search(query, 10, 40);
      GraphHits y = b.search(query, 10, 40);
      assertArrayEquals(x.nodes(), y.nodes(), where + ", query " + q);
      assertArrayEquals(x.scores(), y.scores(), 0f, where + ", query " + q);
    }
    mapped.close();
    onHeap.close();
    try (Stream<Path> left = Files.list(dir)) {
      assertEquals(List.of(), left.toList(), "the scratch file is gone after close");
    }
  }
}
