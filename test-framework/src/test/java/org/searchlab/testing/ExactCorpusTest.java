package org.searchlab.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The oracle's direct path for the benchmark's searches agrees with its general evaluation of the
 * same queries, so the experiment's recall (which uses the direct path) and the conformance suite's
 * second mapping (which uses the general one) measure against one definition.
 */
class ExactCorpusTest {
  @Test
  void theBenchmarksPathEqualsTheGeneralOne() {
    long seed = TestSeeds.seed("ExactCorpusTest.theBenchmarksPathEqualsTheGeneralOne");
    SplittableRandom random = new SplittableRandom(seed);
    SyntheticCorpus corpus =
        new SyntheticCorpus(seed, 16, SyntheticCorpus.Params.builder().vocabulary(800).build());
    List<Document> docs = corpus.documents(700);
    ExactCorpus exact = new ExactCorpus();
    docs.forEach(exact::put);
    for (int q = 0; q < 120; q++) {
      int target = random.nextInt(docs.size());
      SearchRequest.Builder b = corpus.query(target, q % 2 == 0).targetHits(20).hits(20);
      if (q % 5 == 1) {
        b.filter(Filter.ALL.withPrice(new Filter.PriceRange(0, 100 + random.nextInt(900))));
      }
      RankProfile profile = RankProfile.values()[q % RankProfile.values().length];
      SearchRequest r = b.rankProfile(profile).build();
      List<Hit> fast = exact.search(r).hits();
      ExactQueries.Result general = new ExactQueries(exact, exact.mapping()).search(r);
      List<Hit> slow = general.ranked().subList(0, Math.min(20, general.ranked().size()));
      assertEquals(fast.size(), slow.size(), "seed " + seed + " " + r);
      for (int i = 0; i < fast.size(); i++) {
        assertEquals(
            fast.get(i).score(),
            slow.get(i).score(),
            1e-6,
            "seed " + seed + " rank " + i + " " + r);
      }
      if (profile != RankProfile.UNRANKED) {
        assertEquals(
            exact.search(r).total().value(),
            Math.min(general.total(), r.trackTotalHitsUpTo()),
            "total of " + r);
      }
    }
  }
}
