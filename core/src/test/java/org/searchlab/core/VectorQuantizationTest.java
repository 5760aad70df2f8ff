package org.searchlab.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quantizations' spellings: each parses from its flag and its Elasticsearch type, the 4-bit and
 * 1-bit ones have no Vespa cell type, and a value of none is refused naming the allowed ones.
 */
class VectorQuantizationTest {
  @Test
  void everySpellingParses() {
    for (VectorQuantization q : VectorQuantization.values()) {
      assertEquals(q, VectorQuantization.parse(q.flag()));
      assertEquals(q, VectorQuantization.parse(q.esIndexType().toUpperCase(java.util.Locale.ROOT)));
      assertEquals(q, VectorQuantization.fromEsIndexType(q.esIndexType()));
      if (q.vespaCellType() != null) {
        assertEquals(q, VectorQuantization.parse(q.vespaCellType()));
        assertEquals(q, VectorQuantization.fromVespaCellType(q.vespaCellType()));
      }
      assertEquals(q != VectorQuantization.NONE, q.quantized(), q.flag());
    }
    assertEquals(VectorQuantization.INT4, VectorQuantization.parse("int4_hnsw"));
    assertEquals(VectorQuantization.BBQ, VectorQuantization.parse("bbq"));
    assertNull(VectorQuantization.INT4.vespaCellType());
    assertNull(VectorQuantization.BBQ.vespaCellType());
    assertEquals(
        List.of("hnsw", "int8_hnsw", "int4_hnsw", "bbq_hnsw"), VectorQuantization.esIndexTypes());
    assertEquals(
        List.of(
            "none", "hnsw", "float", "int8", "int8_hnsw", "int4", "int4_hnsw", "bbq", "bbq_hnsw"),
        VectorQuantization.allNames());
  }

  @Test
  void unknownValuesNameThemselvesAndTheAllowedOnes() {
    for (String bad : List.of("int2", "bbq_disk", "int4_flat", "flat", "binary")) {
      InvalidRequestException e =
          assertThrows(InvalidRequestException.class, () -> VectorQuantization.parse(bad));
      assertTrue(e.getMessage().contains("[" + bad + "]") && e.getMessage().contains("bbq_hnsw"));
    }
    InvalidRequestException es =
        assertThrows(
            InvalidRequestException.class, () -> VectorQuantization.fromEsIndexType("bbq_disk"));
    assertTrue(
        es.getMessage().contains("[bbq_disk]")
            && es.getMessage().contains("[hnsw, int8_hnsw, int4_hnsw, bbq_hnsw]"),
        es.getMessage());
    // Vespa has no 4-bit or binary cell type here: only float and int8 are cell types.
    InvalidRequestException vespa =
        assertThrows(
            InvalidRequestException.class, () -> VectorQuantization.fromVespaCellType("bbq"));
    assertTrue(vespa.getMessage().contains("[float, int8]"), vespa.getMessage());
    assertFalse(vespa.getMessage().contains("null"), vespa.getMessage());
  }
}
