package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.testing.BaseAggregationTestCase;

/**
 * Aggregations and sorts against the segmented store, with concurrent segment search on two threads
 * (the collectors' per-slice results must merge to the oracle's).
 */
class AggregationConformanceTest extends BaseAggregationTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    return LuceneSegmentedIndex.open(
        dir, settings, mapping, SegmentedConfig.builder().searchThreads(2).build());
  }
}
