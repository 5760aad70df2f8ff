package org.searchlab.server;

/** The error cases against the mutable store. */
class MutableErrorResponsesTest extends ErrorResponsesTestCase {
  @Override
  TestStore store() {
    return TestStore.MUTABLE;
  }
}
