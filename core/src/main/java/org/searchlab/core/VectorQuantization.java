package org.searchlab.core;

import java.util.Arrays;
import java.util.List;

/**
 * How a store keeps the vectors its graph search reads: as the float vectors themselves, or as int8
 * codes with the floats kept beside them for rescoring. One choice for both stores and both
 * dialects: Elasticsearch's {@code dense_vector} {@code index_options.type} ({@code hnsw}, {@code
 * int8_hnsw}) and Vespa's tensor cell type ({@code float}, {@code int8}) name the same two values.
 *
 * <p>Rescoring: a quantized search gathers {@code k × oversample} candidates by their int8 scores
 * and reorders them by the exact float dot product, so every returned score is exact (Elasticsearch
 * {@code rescore_vector.oversample}). Immutable.
 */
public enum VectorQuantization {
  /** Float vectors, read by the graph search as they are (Elasticsearch {@code hnsw}). */
  NONE("none", "hnsw", "float"),
  /** int8 codes for the graph search, floats for rescoring (Elasticsearch {@code int8_hnsw}). */
  INT8("int8", "int8_hnsw", "int8");

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

  /** The name of {@code serve --quantization}: {@code none} or {@code int8}. */
  public String flag() {
    return flag;
  }

  /** The Elasticsearch {@code index_options.type}: {@code hnsw} or {@code int8_hnsw}. */
  public String esIndexType() {
    return esType;
  }

  /** The Vespa tensor cell type: {@code float} or {@code int8}. */
  public String vespaCellType() {
    return vespaCellType;
  }

  /**
   * The quantization named by {@code name} in any of its three spellings (the flag, the
   * Elasticsearch index type, the Vespa cell type), case-insensitively.
   *
   * @throws InvalidRequestException naming the value and the allowed ones
   */
  public static VectorQuantization parse(String name) {
    for (VectorQuantization q : values()) {
      if (q.flag.equalsIgnoreCase(name)
          || q.esType.equalsIgnoreCase(name)
          || q.vespaCellType.equalsIgnoreCase(name)) {
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
            + Arrays.stream(values()).map(VectorQuantization::esIndexType).toList());
  }

  /** The Vespa tensor cell type given, or an error naming the allowed ones. */
  public static VectorQuantization fromVespaCellType(String cellType) {
    for (VectorQuantization q : values()) {
      if (q.vespaCellType.equals(cellType)) {
        return q;
      }
    }
    throw new InvalidRequestException(
        "tensor cell type ["
            + cellType
            + "] is not supported; the allowed cell types are "
            + Arrays.stream(values()).map(VectorQuantization::vespaCellType).toList());
  }

  /** Every accepted spelling, for help texts and errors. */
  public static List<String> allNames() {
    return Arrays.stream(values())
        .flatMap(q -> java.util.stream.Stream.of(q.flag, q.esType, q.vespaCellType))
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
