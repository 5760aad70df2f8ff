package org.searchlab.core;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.testing.BaseSearchIndexTestCase;
import org.searchlab.core.testing.ExactIndex;

/** The conformance suite run against the oracle itself: a sanity check of the suite. */
class ExactIndexConformanceTest extends BaseSearchIndexTestCase {
  @Override
  protected SearchIndex openIndex(Path dir, Schema schema) throws IOException {
    return ExactIndex.open(dir, schema);
  }
}
