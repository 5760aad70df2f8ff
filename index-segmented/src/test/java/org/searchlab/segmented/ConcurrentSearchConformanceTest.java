package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.testing.BaseSearchIndexTestCase;

/**
 * The conformance suite against the segmented store with concurrent segment search on two threads.
 */
class ConcurrentSearchConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    return LuceneSegmentedIndex.open(
        dir, schema, SegmentedConfig.builder().searchThreads(2).build());
  }
}
