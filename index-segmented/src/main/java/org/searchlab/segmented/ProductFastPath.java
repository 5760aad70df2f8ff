package org.searchlab.segmented;

import java.util.List;
import org.searchlab.core.Schema;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.VectorSimilarity;

/**
 * When an index of any mapping may answer the benchmark's requests ({@link
 * org.searchlab.core.ProductShape}) with the query building made for them: its product fields are
 * mapped exactly as the benchmark's mapping maps them, so {@link MappedDocuments} indexes them as
 * that code expects (analysed text with the project's analyzer and default BM25, an indexed keyword
 * category, a doc-values price, a dot-product embedding in the store's default format).
 */
final class ProductFastPath {
  private static final List<String> SAME = List.of("title", "description", "category", "price");

  private ProductFastPath() {}

  static boolean fits(Mapping m, SegmentedConfig config) {
    Mapping product = Mapping.product(1);
    for (String f : SAME) {
      if (!product.leaf(f).equals(m.leaf(f))) {
        return false;
      }
    }
    FieldType.DenseVector v = m.vector(Schema.EMBEDDING);
    return v != null
        && v.indexed()
        && v.similarity() == VectorSimilarity.DOT_PRODUCT
        // serve writes the type, m and ef_construction it configured the store with
        && (v.indexOptions().type() == null
            || v.indexOptions().type().equals(config.quantization().esIndexType()))
        && (v.indexOptions().m() == 0 || v.indexOptions().m() == config.hnswM())
        && (v.indexOptions().efConstruction() == 0
            || v.indexOptions().efConstruction() == config.hnswBeamWidth());
  }
}
