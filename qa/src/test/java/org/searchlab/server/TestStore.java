package org.searchlab.server;

import java.io.IOException;
import java.nio.file.Path;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.MutableIndex;
import org.searchlab.segmented.LuceneSegmentedIndex;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.testing.ExactIndex;

/** The stores the integration tests run the server against. */
enum TestStore {
  /** Core's brute-force reference store. */
  EXACT {
    @Override
    SearchIndex open(Path dir, Schema schema) throws IOException {
      return ExactIndex.open(dir, schema);
    }
  },
  /** The Lucene segmented store with explicit refreshes and two search threads. */
  SEGMENTED {
    @Override
    SearchIndex open(Path dir, Schema schema) throws IOException {
      return LuceneSegmentedIndex.open(
          dir,
          schema,
          SegmentedConfig.builder()
              .refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED)
              .searchThreads(2)
              .ramBufferMB(32)
              .build());
    }
  },
  /** The mutable store (real-time visibility). */
  MUTABLE {
    @Override
    SearchIndex open(Path dir, Schema schema) throws IOException {
      return MutableIndex.open(dir, schema, MutableConfig.DEFAULT);
    }
  };

  abstract SearchIndex open(Path dir, Schema schema) throws IOException;

  /** The store as a kind a server opens indexes of by their mappings. */
  org.searchlab.core.StoreKind kind() {
    if (this == EXACT) {
      return TestKinds.exact();
    }
    return TestKinds.both().get(name().toLowerCase(java.util.Locale.ROOT));
  }
}
