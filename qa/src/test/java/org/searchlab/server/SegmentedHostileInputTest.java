package org.searchlab.server;

/** The hostile-input suite on the segmented store. */
class SegmentedHostileInputTest extends HostileInputTestCase {
  @Override
  TestStore store() {
    return TestStore.SEGMENTED;
  }
}
