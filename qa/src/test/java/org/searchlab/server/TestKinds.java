package org.searchlab.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.StoreKind;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.MutableStoreKind;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.segmented.SegmentedStoreKind;
import org.searchlab.testing.ExactIndex;

/** The store kinds the multi-index tests register, as {@code serve} registers them. */
final class TestKinds {
  private TestKinds() {}

  /** The segmented and the mutable store, each indexing whatever mapping it is given. */
  static Map<String, StoreKind> both() {
    Map<String, StoreKind> kinds = new LinkedHashMap<>();
    kinds.put(
        "segmented",
        new SegmentedStoreKind(SegmentedConfig.builder().searchThreads(2).ramBufferMB(32).build()));
    kinds.put("mutable", new MutableStoreKind(MutableConfig.DEFAULT));
    return kinds;
  }

  /**
   * The brute-force reference store ({@link ExactIndex}) as a kind that opens any mapping: the
   * oracle the general-mapping tests compare both stores with, in the same server.
   */
  static StoreKind exact() {
    return new StoreKind() {
      @Override
      public String name() {
        return "exact";
      }

      @Override
      public SearchIndex open(Path dir, IndexSettings settings, Mapping mapping)
          throws IOException {
        return ExactIndex.open(dir, settings, mapping);
      }
    };
  }

  /** {@link #both()} and {@link #exact()}: every kind a general-mapping test runs on. */
  static Map<String, StoreKind> all() {
    Map<String, StoreKind> kinds = new LinkedHashMap<>(both());
    kinds.put("exact", exact());
    return kinds;
  }
}
