package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.testing.BaseMappingTestCase;

/** The mapping half of the conformance suite against the segmented store, default settings. */
class MappingConformanceTest extends BaseMappingTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    return new SegmentedStoreKind(SegmentedConfig.DEFAULT).open(dir, settings, mapping);
  }
}
