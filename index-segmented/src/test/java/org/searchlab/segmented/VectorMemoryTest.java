package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Schema;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.BaseVectorMemoryTestCase;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Bytes per vector of the segmented store, read from its segments' vector files ({@code .vec},
 * {@code .veq}; Lucene does not report the graph's {@code .vex} here).
 */
class VectorMemoryTest extends BaseVectorMemoryTestCase {
  @TempDir Path tmp;

  /**
   * Lucene's {@code KnnVectorsReader#getOffHeapByteSize} reports the flat vector files always and
   * the graph's {@code .vex} only for some segments (not for these two of 300 vectors; the
   * experiment's tests see it for others).
   */
  @Override
  protected boolean reportsGraph() {
    return false;
  }

  @Override
  protected Map<String, Long> perVector(VectorQuantization q) throws IOException {
    SyntheticCorpus corpus = corpus(q);
    SegmentedConfig config = SegmentCountTest.ONE_PER_BATCH.toBuilder().quantization(q).build();
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(tmp.resolve(q.flag()), new Schema(DIM), config)) {
      SegmentCountTest.feedBatches(index, corpus, 2, 300);
      index.refresh();
      return index.stats().vectorBytesPerVector();
    }
  }
}
