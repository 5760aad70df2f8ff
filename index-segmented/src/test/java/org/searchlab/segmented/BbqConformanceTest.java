package org.searchlab.segmented;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.BaseSearchIndexTestCase;

/**
 * The conformance suite, unchanged, against the segmented store in Lucene's scalar-quantized HNSW
 * format with 1-bit codes searched with a 4-bit query (Lucene's SINGLE_BIT_QUERY_NIBBLE encoding),
 * Elasticsearch's {@code bbq_hnsw}: the graph built and searched on the codes, hits rescored with
 * the segments' floats.
 */
class BbqConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    return LuceneSegmentedIndex.open(
        dir,
        schema,
        SegmentedConfig.DEFAULT.toBuilder().quantization(VectorQuantization.BBQ).build());
  }
}
