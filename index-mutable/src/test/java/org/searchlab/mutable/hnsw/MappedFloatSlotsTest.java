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
        // The same read into the caller's buffer, after a touch of its first float.
        float[] buffer = new float[DIM];
        float first = mapped.touch(probe);
        float[] row = mapped.row(probe, buffer);
        assertArrayEquals(heap.get(probe), row, "row " + probe + " at " + step);
        if (row != null) {
          assertSame(buffer, row, "copied into the caller's buffer");
          assertEquals(row[0], first, "touch reads the first float");
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

  @Test
  void aStoreWithMappedFloatsAnswersAsOneOnTheHeapAndLeavesNoFile() throws Exception {
    long seed = TestSeeds.seed("MappedFloatSlotsTest.aStoreWithMappedFloatsAnswers");
    SplittableRandom random = new SplittableRandom(seed);
    HnswConfig config =
        HnswConfig.builder().quantization(VectorQuantization.INT8).seed(seed).build();
    float[][] docs = new float[2_000][];
    for (int i = 0; i < docs.length; i++) {
      docs[i] = TestVectors.gaussianUnit(random, DIM);
    }
    int[] ids = java.util.stream.IntStream.range(0, docs.length).toArray();
    VectorStore onHeap = VectorStore.create(DIM, VectorQuantization.INT8);
    VectorStore mapped = VectorStore.create(DIM, VectorQuantization.INT8, dir);
    MutableHnswGraph a = MutableHnswGraph.create(onHeap, config);
    MutableHnswGraph b = MutableHnswGraph.create(mapped, config);
    a.insertAll(ids, docs);
    b.insertAll(ids, docs);
    assertEquals(0, onHeap.mappedBytes());
    assertTrue(mapped.mappedBytes() >= (long) docs.length * DIM * Float.BYTES);
    assertTrue(mapped.ramBytesUsed() < onHeap.ramBytesUsed() / 2, "floats are off the heap");
    for (int q = 0; q < 50; q++) {
      float[] query = TestVectors.gaussianUnit(random, DIM);
      GraphHits x = a.search(query, 10, 40);
      GraphHits y = b.search(query, 10, 40);
      assertArrayEquals(x.nodes(), y.nodes(), "seed " + seed + ", query " + q);
      assertArrayEquals(x.scores(), y.scores(), 0f, "seed " + seed + ", query " + q);
    }
    mapped.close();
    onHeap.close();
    try (Stream<Path> left = Files.list(dir)) {
      assertEquals(List.of(), left.toList(), "the scratch file is gone after close");
    }
  }
}
