package org.searchlab.server;

/** The hostile-input suite on the mutable store. */
class MutableHostileInputTest extends HostileInputTestCase {
  @Override
  TestStore store() {
    return TestStore.MUTABLE;
  }
}
