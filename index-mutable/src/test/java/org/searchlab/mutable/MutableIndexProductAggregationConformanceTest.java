package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.testing.BaseProductAggregationTestCase;

/**
 * Aggregations and sorts over the product mapping, unchanged, against the mutable store's product
 * index (its attribute columns), not the store of any mapping.
 */
class MutableIndexProductAggregationConformanceTest extends BaseProductAggregationTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    SearchIndex index = new MutableStoreKind(MutableConfig.DEFAULT).open(dir, settings, mapping);
    return assertInstanceOf(MutableIndex.class, index, "the product store");
  }
}
