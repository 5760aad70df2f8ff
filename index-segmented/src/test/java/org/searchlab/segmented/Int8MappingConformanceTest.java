package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.testing.BaseMappingTestCase;

/**
 * The mapping half of the conformance suite with int8 HNSW as the store's default vector format:
 * the fields without an index_options type are quantized and rescored with their floats.
 */
class Int8MappingConformanceTest extends BaseMappingTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    return LuceneSegmentedIndex.open(
        dir,
        settings,
        mapping,
        SegmentedConfig.DEFAULT.toBuilder().quantization(VectorQuantization.INT8).build());
  }
}
