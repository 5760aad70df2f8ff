package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;

/** The sweep's batch sizes: tiered (log-uniform) spread, every document once, seeded. */
class SweepIndexesTest {
  @Test
  void batchSizesSpreadLikeTiersAndAddUpToTheCorpus() {
    long seed = TestSeeds.seed("SweepIndexesTest");
    List<Integer> sizes = SweepIndexes.batchSizes(30_000, 100, seed);
    assertEquals(100, sizes.size());
    assertEquals(30_000, sizes.stream().mapToInt(Integer::intValue).sum());
    for (int i = 1; i < sizes.size(); i++) {
      assertTrue(sizes.get(i) >= 1 && sizes.get(i) <= sizes.get(i - 1), "largest first: " + sizes);
    }
    // 100 draws over a 100× range: the extremes come close to its ends.
    double spread = sizes.getFirst() / (double) sizes.getLast();
    assertTrue(spread > 30 && spread < 110, "spread " + spread + " of " + sizes);
    // Each decade of size holds about as many segments, so the largest tenth of the segments
    // holds far more than a tenth of the documents.
    int top = sizes.subList(0, 10).stream().mapToInt(Integer::intValue).sum();
    assertTrue(top > 6_000, "the 10 largest hold " + top);
    assertEquals(sizes, SweepIndexes.batchSizes(30_000, 100, seed));
    assertNotEquals(sizes, SweepIndexes.batchSizes(30_000, 100, seed + 1));
  }

  @Test
  void everyBatchKeepsAtLeastOneDocument() {
    List<Integer> sizes = SweepIndexes.batchSizes(12, 10, 3);
    assertEquals(12, sizes.stream().mapToInt(Integer::intValue).sum());
    assertTrue(sizes.stream().allMatch(s -> s >= 1), sizes.toString());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> SweepIndexes.batchSizes(5, 10, 3));
    assertTrue(e.getMessage().contains("5 documents cannot make 10 segments"), e.getMessage());
  }
}
