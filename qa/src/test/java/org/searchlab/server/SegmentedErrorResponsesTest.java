package org.searchlab.server;

/** The error cases against the segmented store. */
class SegmentedErrorResponsesTest extends ErrorResponsesTestCase {
  @Override
  TestStore store() {
    return TestStore.SEGMENTED;
  }
}
