package org.searchlab.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a searchlab store's variant kept for its vectors, for the report's quantization table.
 *
 * @param quantization {@code none} (floats), {@code int8}, {@code int4} or {@code bbq}
 * @param bytesPerVector the store's {@code vector_bytes_per_vector} after its feed: {@code float},
 *     {@code int8} (the codes, whatever their bits, for the segmented store), {@code graph} and,
 *     for the mutable store, {@code float_heap} when quantized, {@code bbq} (its 1-bit codes) with
 *     bbq, {@code bbq_inline} (the rows with the neighbours' codes) with {@code --inline-codes},
 *     and {@code scan_codes} (the codes its exact scans read) without
 */
public record VectorSetup(String quantization, Map<String, Long> bytesPerVector) {
  public VectorSetup {
    bytesPerVector = Map.copyOf(bytesPerVector);
  }

  /**
   * The setups a run kept in its {@code run.json} under {@code vector_setups}, by variant, in their
   * order (empty for a run written before they were kept): what {@code experiment --report-only}
   * writes the quantization table from.
   */
  public static Map<String, VectorSetup> fromRun(JsonNode run) {
    Map<String, VectorSetup> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : run.path("vector_setups").properties()) {
      Map<String, Long> bytes = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> b : e.getValue().path("bytesPerVector").properties()) {
        bytes.put(b.getKey(), b.getValue().asLong());
      }
      out.put(e.getKey(), new VectorSetup(e.getValue().path("quantization").asText(), bytes));
    }
    return out;
  }

  /**
   * Bytes per vector of what the graph search reads at every step and so must stay in memory: the
   * floats without quantization; with codes, the ones the graph walks plus whatever of the floats
   * stays on the heap ({@code float_heap}), and with inline rows those rows and the heap floats.
   * Null when the store did not report it.
   */
  public Long searchBytes() {
    if (quantization.equals("none")) {
      return bytesPerVector.get("float");
    }
    // The mutable store's 1-bit or 4-bit codes, which its graph walks while its int8 ones serve
    // exact scans; the segmented store reports its one code file (.veq) as int8 whatever its bits.
    Long codes =
        bytesPerVector.getOrDefault(
            "bbq", bytesPerVector.getOrDefault("int4", bytesPerVector.get("int8")));
    // With the neighbours' codes inline (mutable-bbq-inline) the graph walks those rows, and its
    // floats, which the rerank reads, stay on the heap.
    Long inline = bytesPerVector.get("bbq_inline");
    if (codes != null && inline != null) {
      return codes + inline + bytesPerVector.getOrDefault("float", 0L);
    }
    return codes == null ? null : codes + bytesPerVector.getOrDefault("float_heap", 0L);
  }
}
