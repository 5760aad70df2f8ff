package org.searchlab.distribution.serve;

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

/**
 * The store kinds {@code serve} registers with the server, each with the settings its flags gave.
 * Stateless and thread-safe.
 */
final class StoreKinds {
  private StoreKinds() {}

  /** The segmented and the mutable store, configured. */
  static Map<String, StoreKind> of(SegmentedConfig segmented, MutableConfig mutable) {
    Map<String, StoreKind> kinds = new LinkedHashMap<>();
    kinds.put(
        "segmented",
        product("segmented", (dir, s) -> LuceneSegmentedIndex.open(dir, s, segmented)));
    kinds.put("mutable", product("mutable", (dir, s) -> MutableIndex.open(dir, s, mutable)));
    return kinds;
  }

  private interface Opener {
    SearchIndex open(Path dir, Schema schema) throws IOException;
  }

  /**
   * A kind whose store indexes the benchmark's mapping: the stores read only that one until their
   * own mapping work lands (#66), so another mapping is refused with that said.
   */
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
              "the "
                  + name
                  + " store of this build indexes the benchmark's product mapping only (id,"
                  + " title, description, category, price, average_rating, embedding)");
        }
        return opener.open(dir, new Schema(dims));
      }
    };
  }
}
