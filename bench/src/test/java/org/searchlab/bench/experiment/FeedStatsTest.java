package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The refeed rounds' feeds summed as one: rates over the summed time, cores weighted by it. */
class FeedStatsTest {
  @Test
  void sumsDocumentsAndSecondsAndWeighsCoresByTime() {
    FeedStats sum =
        FeedStats.sum(
            List.of(
                new FeedStats(3_000, 1, 1.0, 1.5, 0.5, 0.3),
                new FeedStats(3_000, 2, 3.0, 0.5, 0.1, 0.1)));
    assertEquals(6_000, sum.docs());
    assertEquals(3, sum.errors());
    assertEquals(4.0, sum.seconds(), 1e-12);
    assertEquals(1_500, sum.docsPerSec(), 1e-9); // not the mean of 3,000 and 1,000
    assertEquals((1.5 * 1.0 + 0.5 * 3.0) / 4.0, sum.cpuCores(), 1e-12);
    assertEquals((0.5 * 1.0 + 0.1 * 3.0) / 4.0, sum.secondCpuCores(), 1e-12);
    assertEquals((0.3 * 1.0 + 0.1 * 3.0) / 4.0, sum.clientCores(), 1e-12);
  }

  @Test
  void theSecondSourceAndTheClientOnlyWhenEveryFeedHasThem() {
    FeedStats sum =
        FeedStats.sum(
            List.of(new FeedStats(10, 0, 1.0, 1.0, 0.5, 0.2), new FeedStats(10, 0, 1.0, 1.0)));
    assertNull(sum.secondCpuCores());
    assertNull(sum.clientCores());
    assertEquals(sum, FeedStats.sum(List.of(sum)));
  }

  @Test
  void theStandardProfileAlternatesThreeRounds() {
    assertEquals(3, Profile.standard().refeedRounds());
    assertEquals(1, Profile.quick().refeedRounds());
  }
}
