package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * Heap bytes per vector of the mutable store (floats, int8 codes with their scale, graph links),
 * and the same vectors' bytes after a restart.
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
    }
    return before;
  }
}
