package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.VectorQuantization;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * What {@link org.searchlab.core.IndexStats#vectorBytesPerVector()} must say in every store: floats
 * cost four bytes a component plus a small overhead, the graph (where reported) costs something,
 * and int8 codes, present only when quantized, a byte a component plus a small overhead, at most
 * 30% of the floats. A store subclasses it and reports its stats after feeding {@link
 * #DIM}-dimension vectors.
 */
public abstract class BaseVectorMemoryTestCase {
  /** The benchmark's dimension. */
  protected static final int DIM = 384;

  /** Overhead per vector allowed on top of the raw components (headers, scales, corrections). */
  private static final int MAX_OVERHEAD = 64;

  /** A seeded corpus of {@link #DIM}-dimension documents for one quantization's store. */
  protected static SyntheticCorpus corpus(VectorQuantization q) {
    return new SyntheticCorpus(TestSeeds.seed("VectorMemoryTest." + q.flag()), DIM);
  }

  /**
   * Whether the store always reports the graph's bytes per vector ({@code graph}); whenever it
   * reports them they must be positive.
   */
  protected boolean reportsGraph() {
    return true;
  }

  /** The store's per-vector report after it indexed some {@link #corpus} documents. */
  protected abstract Map<String, Long> perVector(VectorQuantization quantization)
      throws IOException;

  @Test
  public void floatVectorsAndGraph() throws IOException {
    Map<String, Long> m = perVector(VectorQuantization.NONE);
    System.out.println("[bytes per vector] " + getClass().getSimpleName() + " none: " + m);
    assertFloats(m);
    assertFalse(m.containsKey("int8"), m.toString());
  }

  @Test
  public void int8CodesBesideTheFloats() throws IOException {
    Map<String, Long> m = perVector(VectorQuantization.INT8);
    System.out.println("[bytes per vector] " + getClass().getSimpleName() + " int8: " + m);
    assertFloats(m);
    Long codes = m.get("int8");
    assertTrue(codes != null && codes >= DIM && codes < DIM + MAX_OVERHEAD, m.toString());
    assertTrue(codes <= 0.3 * m.get("float"), m.toString());
  }

  private void assertFloats(Map<String, Long> m) {
    Long floats = m.get("float");
    assertTrue(
        floats != null && floats >= 4L * DIM && floats < 4L * DIM + MAX_OVERHEAD, m.toString());
    Long graph = m.get("graph");
    assertTrue(graph == null ? !reportsGraph() : graph > 0, m.toString());
  }
}
