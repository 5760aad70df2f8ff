package org.searchlab.mutable;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.testing.BaseSearchIndexTestCase;

/** The conformance suite, unchanged, against the mutable store with its default settings. */
class MutableIndexConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    return MutableIndex.open(dir, schema);
  }
}
