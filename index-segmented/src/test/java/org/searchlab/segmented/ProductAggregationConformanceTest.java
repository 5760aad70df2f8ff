package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.testing.BaseProductAggregationTestCase;

/**
 * Aggregations and sorts over the product mapping against the segmented store, with concurrent
 * segment search on two threads: the same suite the mutable store's product index passes, so the
 * two agree through the oracle.
 */
class ProductAggregationConformanceTest extends BaseProductAggregationTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    return LuceneSegmentedIndex.open(
        dir, settings, mapping, SegmentedConfig.builder().searchThreads(2).build());
  }
}
