package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.BaseSearchIndexTestCase;

/**
 * The conformance suite, unchanged, against the mutable store with 4-bit codes (Elasticsearch's
 * {@code int4_hnsw}): the graph is searched on the codes with a 4-bit query and its candidates
 * reranked by their floats, to a depth the codes' error bounds choose.
 */
class MutableIndexInt4ConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    MutableConfig d = MutableConfig.DEFAULT;
    return MutableIndex.open(
        dir,
        schema,
        d.toBuilder()
            .hnsw(d.hnsw().toBuilder().quantization(VectorQuantization.INT4).build())
            .build());
  }
}
