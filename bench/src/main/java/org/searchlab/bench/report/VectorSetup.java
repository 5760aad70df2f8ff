package org.searchlab.bench.report;

import java.util.Map;

/**
 * What a searchlab store's variant kept for its vectors, for the report's quantization table.
 *
 * @param quantization {@code none} (floats) or {@code int8}
 * @param bytesPerVector the store's {@code vector_bytes_per_vector} after its feed: {@code float},
 *     {@code int8}, {@code graph} and, for the mutable store, {@code float_heap} with int8 and
 *     {@code scan_codes} (the codes its exact scans read) without
 */
public record VectorSetup(String quantization, Map<String, Long> bytesPerVector) {
  public VectorSetup {
    bytesPerVector = Map.copyOf(bytesPerVector);
  }

  /**
   * Bytes per vector of what the graph search reads at every step and so must stay in memory: the
   * floats without quantization; with int8, the codes plus whatever of the floats stays on the heap
   * ({@code float_heap}). Null when the store did not report it.
   */
  public Long searchBytes() {
    if (quantization.equals("none")) {
      return bytesPerVector.get("float");
    }
    Long codes = bytesPerVector.get("int8");
    return codes == null ? null : codes + bytesPerVector.getOrDefault("float_heap", 0L);
  }
}
