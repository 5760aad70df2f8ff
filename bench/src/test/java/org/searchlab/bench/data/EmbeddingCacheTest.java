package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The persistent text-hash → vector cache. */
class EmbeddingCacheTest {
  @Test
  void entriesSurviveReopenAndATornTailIsDropped(@TempDir Path dir) throws Exception {
    try (EmbeddingCache cache = EmbeddingCache.open(dir, "m", 3)) {
      cache.put("alpha", new float[] {1, 0, 0});
      cache.put("beta", new float[] {0, 1, 0});
      cache.put("alpha", new float[] {9, 9, 9}); // first write wins, nothing appended
      cache.flush();
      assertArrayEquals(new float[] {1, 0, 0}, cache.get("alpha"));
    }
    Path file = dir.resolve("embeddings-m-3.bin");
    assertEquals(2 * (32 + 12), Files.size(file));
    Files.write(file, new byte[] {1, 2, 3, 4, 5}, StandardOpenOption.APPEND); // torn record
    try (EmbeddingCache cache = EmbeddingCache.open(dir, "m", 3)) {
      assertEquals(2, cache.size());
      assertArrayEquals(new float[] {0, 1, 0}, cache.get("beta"));
      assertNull(cache.get("gamma"));
      cache.put("gamma", new float[] {0, 0, 1});
    }
    try (EmbeddingCache cache = EmbeddingCache.open(dir, "m", 3)) {
      assertEquals(3, cache.size());
      assertArrayEquals(new float[] {0, 0, 1}, cache.get("gamma"));
    }
    try (EmbeddingCache other = EmbeddingCache.open(dir, "other-model", 3)) {
      assertNull(other.get("alpha"), "another model never hits this model's entries");
    }
  }
}
