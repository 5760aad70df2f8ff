package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.IndexStats;
import org.searchlab.core.Schema;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The segmented store's {@code files_bytes_<ext>} counters against the directory listing: every
 * segment file of the index is counted once, under its extension, at its size on disk.
 */
class FileBytesTest {
  @TempDir Path tmp;

  @Test
  void fileBytesByExtensionAddUpToTheDirectoryListing() throws IOException {
    long seed = TestSeeds.seed("FileBytesTest");
    SyntheticCorpus corpus = new SyntheticCorpus(seed, 16);
    Path dir = tmp.resolve("idx");
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(dir, new Schema(16), SegmentCountTest.ONE_PER_BATCH)) {
      SegmentCountTest.feedBatches(index, corpus, 3, 50);
      index.refresh();
      index.flush();
      IndexStats stats = index.stats();
      Map<String, Long> counted = new TreeMap<>();
      stats
          .counters()
          .forEach(
              (name, bytes) -> {
                if (name.startsWith(SegmentedStats.FILES_BYTES)) {
                  counted.put(name.substring(SegmentedStats.FILES_BYTES.length()), bytes);
                }
              });
      // The segments' files: every file of the index directory but the commit point and the lock.
      Map<String, Long> listed = new TreeMap<>();
      try (Stream<Path> files = Files.list(dir.resolve("index"))) {
        for (Path f : files.toList()) {
          String name = f.getFileName().toString();
          if (name.startsWith("_")) {
            listed.merge(name.substring(name.indexOf('.') + 1), Files.size(f), Long::sum);
          }
        }
      }
      assertEquals(listed, counted, "seed " + seed + ", segments " + stats.segments());
      assertEquals(3, stats.segmentCount());
      assertTrue(counted.values().stream().mapToLong(Long::longValue).sum() > 0);
    }
  }
}
