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
    Map<String, Long> before;
    try (MutableIndex index = MutableIndex.open(dir, new Schema(DIM), config)) {
      List<Operation> ops = new ArrayList<>();
      for (int i = 0; i < 600; i++) {
        ops.add(Operation.put(corpus.document(i)));
      }
      index.bulk(ops);
      before = index.stats().vectorBytesPerVector();
    }
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
}
