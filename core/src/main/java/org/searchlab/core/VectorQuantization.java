package org.searchlab.core;

import java.util.Arrays;
import java.util.List;

/**
 * How a store keeps the vectors its graph search reads: as the float vectors themselves, or as
 * quantized codes (8-bit, 4-bit or 1-bit) with the floats kept beside them for rescoring. One
 * choice for both stores and both dialects: Elasticsearch's {@code dense_vector} {@code
 * index_options.type} ({@code hnsw}, {@code int8_hnsw}, {@code int4_hnsw}, {@code bbq_hnsw}) and,
 * for the first two, Vespa's tensor cell type ({@code float}, {@code int8}). Vespa has no 4-bit or
 * binary-quantized cell type for this ({@code int8} cells with hamming distance are another thing),
 * so the Vespa dialect reaches {@link #INT4} and {@link #BBQ} only through {@code serve
 * --quantization}.
 *
 * <p>Rescoring: a quantized search gathers {@code k × oversample} candidates by their code scores
 * and reorders them by the exact float dot product, so every returned score is exact (Elasticsearch
 * {@code rescore_vector.oversample}). Immutable.
 */
public enum VectorQuantization {
  /** Float vectors, read by the graph search as they are (Elasticsearch {@code hnsw}). */
  NONE("none", "hnsw", "float"),
  /** int8 codes for the graph search, floats for rescoring (Elasticsearch {@code int8_hnsw}). */
  INT8("int8", "int8_hnsw", "int8"),
  /**
   * 4-bit codes for the graph search, floats for rescoring (Elasticsearch {@code int4_hnsw}); no
   * Vespa cell type.
   */
  INT4("int4", "int4_hnsw", null),
  /**
   * 1-bit codes searched with a 4-bit query, floats for rescoring (Elasticsearch's better binary
   * quantization, {@code bbq_hnsw}); no Vespa cell type.
   */
  BBQ("bbq", "bbq_hnsw", null);

  /** The default candidates per wanted hit that a quantized search rescores (Elasticsearch's 3). */
  public static final int DEFAULT_OVERSAMPLE = 3;

  /** Elasticsearch's bound on {@code rescore_vector.oversample}: 1 to 10. */
  public static final int MAX_OVERSAMPLE = 10;

  private final String flag;
  private final String esType;
  private final String vespaCellType;

  VectorQuantization(String flag, String esType, String vespaCellType) {
    this.flag = flag;
    this.esType = esType;
    this.vespaCellType = vespaCellType;
  }

  /**
   * The name of {@code serve --quantization}: {@code none}, {@code int8}, {@code int4}, {@code
   * bbq}.
   */
  public String flag() {
    return flag;
  }

  /**
   * The Elasticsearch {@code index_options.type}: {@code hnsw}, {@code int8_hnsw}, {@code
   * int4_hnsw} or {@code bbq_hnsw}.
   */
  public String esIndexType() {
    return esType;
  }

  /** The Vespa tensor cell type ({@code float} or {@code int8}), or null where Vespa has none. */
  public String vespaCellType() {
    return vespaCellType;
  }

  /** Whether the graph search reads codes (every value but {@link #NONE}), so hits are rescored. */
  public boolean quantized() {
    return this != NONE;
  }

  /**
   * The quantization named by {@code name} in any of its three spellings (the flag, the
   * Elasticsearch index type, the Vespa cell type where there is one), case-insensitively.
   *
   * @throws InvalidRequestException naming the value and the allowed ones
   */
  public static VectorQuantization parse(String name) {
    for (VectorQuantization q : values()) {
      if (q.flag.equalsIgnoreCase(name)
          || q.esType.equalsIgnoreCase(name)
          || (q.vespaCellType != null && q.vespaCellType.equalsIgnoreCase(name))) {
        return q;
      }
    }
    throw new InvalidRequestException(
        "quantization [" + name + "] is not supported; the allowed values are " + allNames());
  }

  /** The Elasticsearch {@code index_options.type} given, or an error naming the allowed ones. */
  public static VectorQuantization fromEsIndexType(String type) {
    for (VectorQuantization q : values()) {
      if (q.esType.equals(type)) {
        return q;
      }
    }
    throw new InvalidRequestException(
        "[embedding.index_options.type] is ["
            + type
            + "]; the allowed values are "
            + esIndexTypes());
  }

  /** Every Elasticsearch {@code index_options.type} accepted, in declaration order. */
  public static List<String> esIndexTypes() {
    return Arrays.stream(values()).map(VectorQuantization::esIndexType).toList();
  }

  /** The Vespa tensor cell type given, or an error naming the allowed ones. */
  public static VectorQuantization fromVespaCellType(String cellType) {
    for (VectorQuantization q : values()) {
      if (q.vespaCellType != null && q.vespaCellType.equals(cellType)) {
        return q;
      }
    }
    throw new InvalidRequestException(
        "tensor cell type ["
            + cellType
            + "] is not supported; the allowed cell types are "
            + Arrays.stream(values())
                .map(VectorQuantization::vespaCellType)
                .filter(java.util.Objects::nonNull)
                .toList());
  }

  /** Every accepted spelling, for help texts and errors. */
  public static List<String> allNames() {
    return Arrays.stream(values())
        .flatMap(q -> java.util.stream.Stream.of(q.flag, q.esType, q.vespaCellType))
        .filter(java.util.Objects::nonNull)
        .distinct()
        .toList();
  }

  /**
   * Rejects an oversample outside [1, {@value #MAX_OVERSAMPLE}]; returns it unchanged.
   *
   * @throws InvalidRequestException naming the value and the limit
   */
  public static int checkOversample(int oversample) {
    if (oversample < 1 || oversample > MAX_OVERSAMPLE) {
      throw new InvalidRequestException(
          "rescore oversample " + oversample + " is outside [1, " + MAX_OVERSAMPLE + "]");
    }
    return oversample;
  }
}
