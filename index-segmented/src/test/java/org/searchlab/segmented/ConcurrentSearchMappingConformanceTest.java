package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.testing.BaseMappingTestCase;

/** The mapping half of the conformance suite with concurrent segment search on two threads. */
class ConcurrentSearchMappingConformanceTest extends BaseMappingTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    return LuceneSegmentedIndex.open(
        dir, settings, mapping, SegmentedConfig.builder().searchThreads(2).build());
  }
}
