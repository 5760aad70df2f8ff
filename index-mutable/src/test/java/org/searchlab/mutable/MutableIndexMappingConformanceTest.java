package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.testing.BaseMappingTestCase;

/** The mapping half of the conformance suite, unchanged, against the mutable store. */
class MutableIndexMappingConformanceTest extends BaseMappingTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    return new MutableStoreKind(MutableConfig.DEFAULT).open(dir, settings, mapping);
  }
}
