package org.searchlab.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.StoreKind;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.MutableIndex;
import org.searchlab.segmented.LuceneSegmentedIndex;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.testing.ExactIndex;

/** The store kinds the multi-index tests register, as {@code serve} registers them. */
final class TestKinds {
  private TestKinds() {}

  static Map<String, StoreKind> both() {
    Map<String, StoreKind> kinds = new LinkedHashMap<>();
    kinds.put(
        "segmented",
        product(
            "segmented",
            (dir, s) ->
                LuceneSegmentedIndex.open(
                    dir, s, SegmentedConfig.builder().searchThreads(2).ramBufferMB(32).build())));
    kinds.put(
        "mutable",
        product("mutable", (dir, s) -> MutableIndex.open(dir, s, MutableConfig.DEFAULT)));
    return kinds;
  }

  /**
   * The brute-force reference store ({@link ExactIndex}) as a kind that opens any mapping: the
   * tests of general mappings prove themselves on it while the other kinds index only the
   * benchmark's product mapping.
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

  private interface Opener {
    SearchIndex open(Path dir, Schema schema) throws IOException;
  }

  private static StoreKind product(String name, Opener opener) {
    return new StoreKind() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public SearchIndex open(Path dir, IndexSettings settings, Mapping mapping)
          throws IOException {
        FieldType.DenseVector v = mapping.vector(Schema.EMBEDDING);
        int dims = v == null ? 0 : v.dims();
        Mapping product = dims < 1 ? null : Mapping.product(dims, v.indexOptions());
        if (product == null || !product.merge(mapping).equals(product)) {
          throw new InvalidRequestException(
              "the " + name + " store indexes the benchmark's product mapping only");
        }
        return opener.open(dir, new Schema(dims));
      }
    };
  }
}
