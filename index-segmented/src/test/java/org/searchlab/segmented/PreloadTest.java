package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.MMapDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.IndexStats;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * {@link SegmentedConfig#preload}: by default nothing is preloaded; with extensions, Lucene's
 * memory-mapping directory opens exactly the files of those extensions with its preload (counted by
 * the predicate, {@code preload_files_opened} in the store's stats), the store's own directory
 * among them; and an extension the index does not write is refused by name.
 */
class PreloadTest {
  @TempDir Path tmp;

  @Test
  void defaultPreloadsNothing() throws IOException {
    assertEquals(Set.of(), SegmentedConfig.DEFAULT.preload());
    assertEquals(0, opened(SegmentCountTest.ONE_PER_BATCH, "none"));
  }

  @Test
  void theStoresDirectoryPreloadsTheNamedExtensions() throws IOException {
    Preload vectors = new Preload(Set.of("vec", "vex"));
    assertTrue(vectors.preloads("_0_Lucene99HnswVectorsFormat_0.vec"));
    assertTrue(vectors.preloads("_3.vex"));
    assertFalse(vectors.preloads("_0_Lucene104_0.doc"));
    assertFalse(vectors.preloads("segments_2"));
    assertTrue(new Preload(Set.of("*")).preloads("_0.fdt"));
    // Lucene's directory asks the predicate as it opens each file, and counts only the yeses.
    try (MMapDirectory dir = new MMapDirectory(tmp.resolve("mmap"))) {
      for (String name : List.of("_0.vec", "_0.vex", "_0.doc")) {
        try (IndexOutput out = dir.createOutput(name, IOContext.DEFAULT)) {
          out.writeBytes(new byte[4096], 4096);
        }
      }
      vectors.applyTo(dir);
      for (String name : List.of("_0.vec", "_0.vex", "_0.doc")) {
        try (IndexInput in = dir.openInput(name, IOContext.DEFAULT)) {
          assertEquals(4096, in.length());
        }
      }
      assertEquals(2, vectors.filesLoaded(), "the .vec and .vex files, not the .doc one");
    }
    // The store's own directory: a small flushed segment is a compound file, which the directory
    // opens (and preloads) as a whole; the files inside it are slices it never opens by name.
    assertTrue(
        opened(SegmentCountTest.ONE_PER_BATCH.toBuilder().preload(Set.of("cfs")).build(), "cfs")
            >= 1);
    assertEquals(
        0,
        opened(SegmentCountTest.ONE_PER_BATCH.toBuilder().preload(Set.of("vec")).build(), "vec"));
  }

  @Test
  void aBadExtensionIsRefusedByName() {
    assertEquals(Set.of("vec", "doc"), SegmentedConfig.parsePreload("vec, doc"));
    assertEquals(Set.of(), SegmentedConfig.parsePreload(""));
    InvalidRequestException e =
        assertThrows(InvalidRequestException.class, () -> SegmentedConfig.parsePreload("vec,.vex"));
    assertTrue(e.getMessage().contains("'.vex'"), e.getMessage());
    InvalidRequestException built =
        assertThrows(
            InvalidRequestException.class,
            () -> SegmentedConfig.builder().preload(Set.of("vecs")).build());
    assertTrue(built.getMessage().contains("'vecs'"), built.getMessage());
  }

  /** Feeds one segment, reopens the store and returns its {@code preload_files_opened}. */
  private long opened(SegmentedConfig config, String name) throws IOException {
    long seed = TestSeeds.seed("PreloadTest");
    Path dir = tmp.resolve(name);
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, new Schema(16), config)) {
      SegmentCountTest.feedBatches(index, new SyntheticCorpus(seed, 16), 1, 50);
      index.flush();
    }
    // A reopen maps the committed segment's files as a restart does.
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, new Schema(16), config)) {
      IndexStats stats = index.stats();
      assertEquals(50, stats.docCount());

      return stats.counter("preload_files_opened");
    }
  }
}
