package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.testing.BaseSearchIndexTestCase;

/**
 * The product conformance suite, unchanged, against the store of any mapping given the product
 * mapping: the general evaluator answers the benchmark's shapes as the product store's plans do.
 */
class MappedIndexProductConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    return MappedIndex.open(dir, IndexSettings.DEFAULT, schema.mapping(), MutableConfig.DEFAULT);
  }
}
