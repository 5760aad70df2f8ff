package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/** {@link IdenticalVectors} against a count by value, on vectors with planted groups. */
class IdenticalVectorsTest {
  @Test
  void countsPlantedGroupsAsACountByValueDoes() {
    long seed = TestSeeds.seed("IdenticalVectorsTest");
    Random r = new Random(seed);
    List<float[]> vectors = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      float[] v = new float[8];
      for (int j = 0; j < v.length; j++) {
        v[j] = r.nextFloat();
      }
      vectors.add(v);
      // Plant copies: most vectors alone, some in groups of up to 6.
      int copies = r.nextInt(10) < 8 ? 0 : 1 + r.nextInt(5);
      for (int c = 0; c < copies; c++) {
        vectors.add(v.clone());
      }
    }
    Collections.shuffle(vectors, r);
    Map<List<Float>, Integer> byValue = new HashMap<>();
    for (float[] v : vectors) {
      List<Float> key = new ArrayList<>();
      for (float f : v) {
        key.add(f);
      }
      byValue.merge(key, 1, Integer::sum);
    }
    long inGroups = byValue.values().stream().filter(c -> c > 1).mapToLong(c -> c).sum();
    long groups = byValue.values().stream().filter(c -> c > 1).count();
    long largest = byValue.values().stream().mapToLong(c -> c).max().orElseThrow();

    IdenticalVectors got = IdenticalVectors.of(vectors.iterator(), vectors.size());
    assertEquals(new IdenticalVectors(inGroups, groups, largest), got, "seed " + seed);
  }

  @Test
  void vectorsThatDifferInOneBitOrInLengthAreNotOneGroup() {
    float[] a = {0.5f, 0.25f, 0f};
    float[] b = {0.5f, 0.25f, -0f};
    float[] c = {0.5f, 0.25f};
    assertNotEquals(IdenticalVectors.hash(a), IdenticalVectors.hash(b));
    assertNotEquals(IdenticalVectors.hash(a), IdenticalVectors.hash(c));
    assertEquals(
        new IdenticalVectors(0, 0, 1), IdenticalVectors.of(List.of(a, b, c).iterator(), 3));
    assertEquals(
        new IdenticalVectors(2, 1, 2), IdenticalVectors.of(List.of(a, a.clone(), c).iterator(), 3));
  }
}
