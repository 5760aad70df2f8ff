package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A store's accounting grouped into parts: every reported figure lands in exactly one part (an
 * unknown one in {@code other}), so the parts sum to what the store reported; the mutable store's
 * vectors in any representation are vectors; Lucene's extensions go to their parts.
 */
class StoreMemoryTest {
  @Test
  void theMutableStoresHeapPartsAndItsLog() throws Exception {
    JsonNode stats =
        Json.MAPPER.readTree(
            """
            {"wal_bytes": 7, "memory_bytes": {"vectors": 1000, "vectors_scan_codes": 300,
             "graph": 50, "postings": 40, "attributes": 30, "document_store": 20, "novel": 3},
             "counters": {"build_threads": 2}}
            """);
    StoreMemory m = StoreMemory.of(Variant.MUTABLE_STORE, stats);
    assertEquals(
        Map.of(
            "vectors", 1300L,
            "graph", 50L,
            "postings", 40L,
            "attributes", 30L,
            "document_store", 20L,
            "wal", 7L,
            "other", 3L),
        m.parts());
    assertEquals(
        List.of("vectors", "graph", "postings", "attributes", "document_store", "wal", "other"),
        List.copyOf(m.parts().keySet()),
        "report order");
    assertEquals(1450L, m.total());
    assertEquals(m.total(), m.reported().values().stream().mapToLong(Long::longValue).sum());
    assertEquals(130.0, m.perDocument(10).get("vectors"));
  }

  @Test
  void theSegmentedStoresFilesByExtension() throws Exception {
    JsonNode stats =
        Json.MAPPER.readTree(
            """
            {"wal_bytes": 5, "memory_bytes": {"indexing_buffer": 11, "version_map": 0},
             "counters": {"files_bytes_vec": 640, "files_bytes_vemf": 2, "files_bytes_vex": 100,
              "files_bytes_vem": 3, "files_bytes_doc": 10, "files_bytes_tim": 20,
              "files_bytes_nvd": 4, "files_bytes_dvd": 8, "files_bytes_kdd": 6,
              "files_bytes_fdt": 30, "files_bytes_cfs": 500, "files_bytes_cfe": 1,
              "files_bytes_si": 9, "files_bytes_zzz": 13, "merges_done": 4}}
            """);
    StoreMemory m = StoreMemory.of(Variant.SEGMENTED_STORE, stats);
    assertEquals(
        Map.of(
            "vectors", 642L,
            "graph", 103L,
            "postings", 34L,
            "attributes", 14L,
            "document_store", 30L,
            "compound_files", 501L,
            "wal", 5L,
            "other", 33L),
        m.parts());
    assertEquals(m.total(), m.reported().values().stream().mapToLong(Long::longValue).sum());
    assertEquals(1362L, m.total());
  }
}
