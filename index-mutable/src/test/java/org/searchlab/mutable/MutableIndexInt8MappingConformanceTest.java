package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.testing.BaseMappingTestCase;

/** The mapping half of the conformance suite, unchanged, against the mutable store with int8. */
class MutableIndexInt8MappingConformanceTest extends BaseMappingTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, IndexSettings settings, Mapping mapping)
      throws IOException {
    MutableConfig d = MutableConfig.DEFAULT;
    return MutableIndex.open(
        dir,
        settings,
        mapping,
        d.toBuilder()
            .hnsw(d.hnsw().toBuilder().quantization(VectorQuantization.INT8).build())
            .build());
  }
}
