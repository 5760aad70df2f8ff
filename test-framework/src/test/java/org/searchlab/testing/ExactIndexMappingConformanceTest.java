package org.searchlab.testing;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;

/** The oracle passes the mapping half of the conformance suite too: it is a real store. */
class ExactIndexMappingConformanceTest extends BaseMappingTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    return ExactIndex.open(dir, settings, mapping);
  }
}
