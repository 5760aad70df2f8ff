package org.searchlab.testing;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;

/** The conformance suite run against the oracle itself: a sanity check of the suite. */
class ExactIndexConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    return ExactIndex.open(dir, schema);
  }
}
