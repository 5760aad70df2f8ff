package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.BaseSearchIndexTestCase;

/**
 * The conformance suite against the segmented store in Lucene's int8 HNSW format (Elasticsearch's
 * {@code int8_hnsw}), hits rescored with the segments' floats.
 */
class Int8ConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    return LuceneSegmentedIndex.open(
        dir,
        schema,
        SegmentedConfig.DEFAULT.toBuilder().quantization(VectorQuantization.INT8).build());
  }
}
