package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.BaseSearchIndexTestCase;

/**
 * The conformance suite, unchanged, against the mutable store with int8 vectors: the graph is built
 * and searched on int8 codes and its hits rescored with the floats.
 */
class MutableIndexInt8ConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    MutableConfig d = MutableConfig.DEFAULT;
    return MutableIndex.open(
        dir,
        schema,
        d.toBuilder()
            .hnsw(d.hnsw().toBuilder().quantization(VectorQuantization.INT8).build())
            .build());
  }
}
