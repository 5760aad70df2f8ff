package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.BaseSearchIndexTestCase;

/**
 * The conformance suite, unchanged, against the mutable store with 1-bit codes whose graph rows
 * also hold the neighbours' codes ({@code serve --inline-codes}): the graph's bottom level is
 * searched from those rows, with the store's writes, deletes, replay and concurrent readers.
 */
class MutableIndexBbqInlineConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    MutableConfig d = MutableConfig.DEFAULT;
    return MutableIndex.open(
        dir,
        schema,
        d.toBuilder()
            .hnsw(
                d.hnsw().toBuilder().quantization(VectorQuantization.BBQ).inlineCodes(true).build())
            .build());
  }
}
