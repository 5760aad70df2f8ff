package org.searchlab.mutable;

import java.util.List;
import java.util.Map;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingException;

/**
 * The vector quantizations the mutable store keeps, checked before an index is opened or a mapping
 * is changed: floats, int8 codes and 1-bit codes ({@code bbq_hnsw}). Elasticsearch's {@code
 * int4_hnsw} is a valid type that only the segmented store has so far (issue 69 adds the mutable
 * store's 4-bit mode later), so it is refused here with a 400 naming the value, before anything is
 * written: an index whose mapping or flag is refused is not created, a refused {@code PUT _mapping}
 * changes nothing. Stateless and thread-safe.
 */
final class MutableQuantizations {
  /** What this store keeps, in {@link VectorQuantization}'s order. */
  static final List<VectorQuantization> SUPPORTED =
      List.of(VectorQuantization.NONE, VectorQuantization.INT8, VectorQuantization.BBQ);

  private MutableQuantizations() {}

  /**
   * Refuses a store-wide quantization ({@code serve --quantization}) this store does not keep yet.
   *
   * @throws InvalidRequestException naming the value and the supported ones
   */
  static void check(VectorQuantization q) {
    if (!SUPPORTED.contains(q)) {
      throw new InvalidRequestException(
          "quantization ["
              + q.flag()
              + "] ("
              + q.esIndexType()
              + ") is not supported by the mutable store yet; it supports "
              + SUPPORTED.stream().map(VectorQuantization::flag).toList()
              + " (the segmented store supports "
              + VectorQuantization.esIndexTypes()
              + ")");
    }
  }

  /**
   * Refuses {@code mapping} when one of its {@code dense_vector} fields names, or by leaving its
   * type unset inherits from {@code storeDefault}, a quantization this store does not keep yet.
   *
   * @throws InvalidRequestException a {@code mapper_parsing_exception} naming the field and the
   *     value, or the store-wide one's error
   */
  static void check(Mapping mapping, VectorQuantization storeDefault) {
    for (Map.Entry<String, FieldType> e : mapping.leaves().entrySet()) {
      if (!(e.getValue() instanceof FieldType.DenseVector v)) {
        continue;
      }
      String type = v.indexOptions().type();
      if (type == null) {
        check(storeDefault);
      } else if (!SUPPORTED.contains(VectorQuantization.fromEsIndexType(type))) {
        throw MappingException.parsing(
            "["
                + e.getKey()
                + ".index_options.type] is ["
                + type
                + "], which is not supported by the mutable store yet; it supports "
                + SUPPORTED.stream().map(VectorQuantization::esIndexType).toList()
                + " (the segmented store supports "
                + VectorQuantization.esIndexTypes()
                + ")");
      }
    }
  }
}
