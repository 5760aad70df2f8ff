package org.searchlab.distribution.serve;

import java.util.LinkedHashMap;
import java.util.Map;
import org.searchlab.core.StoreKind;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.MutableStoreKind;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.segmented.SegmentedStoreKind;

/**
 * The store kinds {@code serve} registers with the server, each with the settings its flags gave:
 * the server opens every index through {@link StoreKind} and depends on no store module. Stateless
 * and thread-safe.
 */
final class StoreKinds {
  private StoreKinds() {}

  /** The segmented and the mutable store, configured. */
  static Map<String, StoreKind> of(SegmentedConfig segmented, MutableConfig mutable) {
    Map<String, StoreKind> kinds = new LinkedHashMap<>();
    kinds.put("segmented", new SegmentedStoreKind(segmented));
    kinds.put("mutable", new MutableStoreKind(mutable));
    return kinds;
  }
}
