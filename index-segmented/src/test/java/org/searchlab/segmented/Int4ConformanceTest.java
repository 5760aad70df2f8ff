package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.BaseSearchIndexTestCase;

/**
 * The conformance suite, unchanged, against the segmented store in Lucene's scalar-quantized HNSW
 * format with 4-bit codes (Lucene's PACKED_NIBBLE encoding), Elasticsearch's {@code int4_hnsw}: the
 * graph built and searched on the codes, hits rescored with the segments' floats.
 */
class Int4ConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    return LuceneSegmentedIndex.open(
        dir,
        schema,
        SegmentedConfig.DEFAULT.toBuilder().quantization(VectorQuantization.INT4).build());
  }
}
