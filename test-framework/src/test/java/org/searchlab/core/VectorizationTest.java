package org.searchlab.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.ForkedJvm;

/**
 * The project's JVM flags (the ones surefire and the launcher use) give Lucene's SIMD vector code:
 * Lucene logs "Java vector incubator API enabled" when {@code jdk.incubator.vector} is present, and
 * falls back to scalar code, about 20× slower per dot product, when it is not.
 */
class VectorizationTest {
  @Test
  void luceneUsesTheVectorIncubatorApi() throws Exception {
    List<String> lines = new ArrayList<>();
    try (ForkedJvm child = ForkedJvm.start(VectorizationChild.class)) {
      for (String line; (line = child.readLine()) != null; ) {
        lines.add(line);
      }
    }
    System.out.println("[vectorization] " + lines);
    assertTrue(
        lines.stream().anyMatch(l -> l.contains("Java vector incubator API enabled")),
        "Lucene did not enable SIMD: " + lines);
    assertTrue(lines.contains("dot: 1.0"), lines.toString());
  }
}
