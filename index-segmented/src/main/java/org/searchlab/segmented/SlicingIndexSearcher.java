package org.searchlab.segmented;

import java.util.List;
import java.util.concurrent.Executor;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.IndexSearcher;

/**
 * An {@link IndexSearcher} with an executor (concurrent segment search) whose slices follow a
 * {@link Slicing} choice. Thread-safe as any {@code IndexSearcher}.
 */
final class SlicingIndexSearcher extends IndexSearcher {
  /** Lucene's defaults for {@link Slicing#LUCENE_DEFAULT}, spelled out. */
  private static final int MAX_DOCS_PER_SLICE = 250_000;

  private static final int MAX_SEGMENTS_PER_SLICE = 5;

  // Set before super() can call slices() lazily: getSlices() computes them on first use only.
  private final Slicing slicing;
  private final int threads;

  SlicingIndexSearcher(IndexReader reader, Executor executor, Slicing slicing, int threads) {
    super(reader, executor);
    this.slicing = slicing;
    this.threads = threads;
  }

  @Override
  protected LeafSlice[] slices(List<LeafReaderContext> leaves) {
    return switch (slicing) {
      case LUCENE_DEFAULT -> slices(leaves, MAX_DOCS_PER_SLICE, MAX_SEGMENTS_PER_SLICE, false);
      case SEGMENT_PER_SLICE -> slices(leaves, Integer.MAX_VALUE, 1, false);
      case PARTITIONS -> {
        long maxDoc = 0;
        for (LeafReaderContext leaf : leaves) {
          maxDoc += leaf.reader().maxDoc();
        }
        int perSlice = (int) Math.max(1, (maxDoc + threads - 1) / Math.max(1, threads));
        yield slices(leaves, perSlice, 1, true);
      }
    };
  }
}
