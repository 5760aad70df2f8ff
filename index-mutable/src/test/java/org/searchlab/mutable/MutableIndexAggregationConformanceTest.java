package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.testing.BaseAggregationTestCase;

/** Aggregations and sorts, unchanged, against the mutable store of any mapping. */
class MutableIndexAggregationConformanceTest extends BaseAggregationTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    return new MutableStoreKind(MutableConfig.DEFAULT).open(dir, settings, mapping);
  }
}
