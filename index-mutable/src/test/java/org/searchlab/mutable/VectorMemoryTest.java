package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.BaseVectorMemoryTestCase;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Bytes per vector of the mutable store (floats, int8 codes with their scale, graph links), the
 * same after a restart, and, with int8 codes, floats off the heap.
 */
class VectorMemoryTest extends BaseVectorMemoryTestCase {
  @TempDir Path tmp;

  @Override
  protected Map<String, Long> perVector(VectorQuantization q) throws IOException {
    SyntheticCorpus corpus = corpus(q);
    MutableConfig d = MutableConfig.DEFAULT;
    MutableConfig config = d.toBuilder().hnsw(d.hnsw().toBuilder().quantization(q).build()).build();
    Path dir = tmp.resolve(q.flag());
    Map<String, Long> before = feed(dir, config, corpus);
    try (MutableIndex index = MutableIndex.open(dir, new Schema(DIM), config)) {
      Map<String, Long> after = index.stats().vectorBytesPerVector();
      assertEquals(before.get("float"), after.get("float"), "floats after a restart");
      assertEquals(before.get("int8"), after.get("int8"), "codes after a restart");
      assertEquals(before.get("float_heap"), after.get("float_heap"), "heap floats after one");
      assertEquals(before.get("bbq"), after.get("bbq"), "1-bit codes after a restart");
    }
    if (q != VectorQuantization.NONE) {
      // The floats of an int8 (or 1-bit) store are read only to rescore and build: they live in a
      // mapped
      // scratch file, and what stays on the heap per vector is a stamp, not 1,536 bytes.
      Long heap = before.get("float_heap");
      assertTrue(heap != null && heap < 32, before.toString());
    } else {
      assertFalse(before.containsKey("float_heap"), before.toString());
    }
    return before;
  }

  /**
   * With 1-bit codes the store reports them apart from the int8 codes it keeps for exact scans: the
   * code's {@code DIM / 8} bytes and 16 of corrections, plus an array header and a table slot; the
   * int8 codes cost what they cost in an int8 store.
   */
  @org.junit.jupiter.api.Test
  void oneBitCodesAreCountedApartFromTheInt8Ones() throws IOException {
    Map<String, Long> bbq = perVector(VectorQuantization.BBQ);
    long code = DIM / 8 + 16;
    assertTrue(bbq.get("bbq") >= code && bbq.get("bbq") <= code + 32, bbq.toString());
    assertEquals(perVector(VectorQuantization.INT8).get("int8"), bbq.get("int8"), bbq.toString());
  }

  /**
   * With the neighbours' 1-bit codes inline ({@code --inline-codes}) the store reports those rows
   * as their own part, {@code bbq_inline}, at least 2M slots of a code's words and two floats each
   * a vector, not again under {@code graph}; its floats stay on the heap (no stamp-only {@code
   * float_heap}); both the same after a restart, which rebuilds the rows.
   */
  @org.junit.jupiter.api.Test
  void theNeighboursCodesInlineAreTheirOwnPartWithTheFloatsOnTheHeap() throws IOException {
    Map<String, Long> plain = perVector(VectorQuantization.BBQ);
    MutableConfig d = MutableConfig.DEFAULT;
    MutableConfig config =
        d.toBuilder()
            .hnsw(
                d.hnsw().toBuilder().quantization(VectorQuantization.BBQ).inlineCodes(true).build())
            .build();
    Path dir = tmp.resolve("bbq-inline");
    Map<String, Long> before = feed(dir, config, corpus(VectorQuantization.BBQ));
    long slots = 2L * d.hnsw().m();
    long words = (DIM + 63) / 64;
    assertTrue(before.get("bbq_inline") >= slots * (8 * words + 8), before.toString());
    assertTrue(before.get("graph") < before.get("bbq_inline"), before.toString());
    assertEquals(plain.get("bbq"), before.get("bbq"), before.toString());
    assertFalse(before.containsKey("float_heap"), before.toString());
    assertTrue(before.get("float") >= 4L * DIM, before.toString());
    try (MutableIndex index = MutableIndex.open(dir, new Schema(DIM), config)) {
      Map<String, Long> after = index.stats().vectorBytesPerVector();
      for (String part : List.of("bbq_inline", "bbq", "float", "int8")) {
        assertEquals(before.get(part), after.get(part), part + " after a restart");
      }
    }
  }

  /** Feeds 600 documents of {@code corpus} into a new index and returns its bytes per vector. */
  private static Map<String, Long> feed(Path dir, MutableConfig config, SyntheticCorpus corpus)
      throws IOException {
    try (MutableIndex index = MutableIndex.open(dir, new Schema(DIM), config)) {
      List<Operation> ops = new ArrayList<>();
      for (int i = 0; i < 600; i++) {
        ops.add(Operation.put(corpus.document(i)));
      }
      index.bulk(ops);
      return index.stats().vectorBytesPerVector();
    }
  }
}
