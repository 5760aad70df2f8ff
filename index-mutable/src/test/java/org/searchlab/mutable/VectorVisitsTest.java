package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.IndexStats;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.VectorVisits;
import org.searchlab.mutable.hnsw.AcceptBits;
import org.searchlab.mutable.hnsw.MutableHnswGraph;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The mutable store's {@code vector_searches} and {@code vector_visited_nodes} counters: each
 * approximate vector search (plain or the vector part of a hybrid one) counts once, with the
 * vectors the graph search scored ({@code GraphHits.visited}), recomputed here by searching the
 * same graph directly, which the counters do not see; lexical and exact-by-request searches add
 * nothing.
 */
class VectorVisitsTest {
  private static final int DIM = 8;

  @TempDir Path tmp;

  @Test
  void countersSumTheGraphSearchesVisits() throws IOException {
    long seed = TestSeeds.seed("VectorVisitsTest.countersSumTheGraphSearchesVisits");
    SyntheticCorpus corpus = new SyntheticCorpus(seed, DIM);
    // Enough documents that a beam of 5 walks the graph: below 80 vectors per beam slot
    // (HnswConfig.EXACT_SCAN_PER_BEAM) the store would scan them all instead.
    int docs = 1000;
    List<Operation> ops = new ArrayList<>();
    for (int i = 0; i < docs; i++) {
      ops.add(Operation.put(corpus.document(i)));
    }
    try (MutableIndex index = MutableIndex.open(tmp.resolve("m"), new Schema(DIM))) {
      index.bulk(ops);
      IndexStats before = index.stats();
      assertEquals(0, before.counter(VectorVisits.SEARCHES), "counters start at 0");
      assertEquals(0, before.counter(VectorVisits.VISITED));
      MutableHnswGraph graph = index.parts().vectors.graph();
      long expected = 0;
      int searches = 5;
      for (int q = 0; q < searches; q++) {
        float[] v = corpus.document(docs + q).embedding(); // not in the index
        SearchRequest.Builder b =
            SearchRequest.builder().vector(v).targetHits(5).exploreAdditionalHits(0);
        if (q == 0) {
          b.text(corpus.document(q).title()); // hybrid: its vector part is one vector search
        }
        SearchRequest req = b.build();
        index.search(req);
        // What the store's unfiltered view asks the graph: every live id, through a predicate.
        AcceptBits everyLive = node -> true;
        int visited =
            graph
                .search(
                    v,
                    req.targetHits(),
                    Math.max(req.targetHits(), req.candidates()),
                    everyLive,
                    docs,
                    req.thresholds(),
                    req.rescoreWindow(),
                    req.targetHits())
                .visited();
        assertTrue(
            visited > 0 && visited < docs,
            "query " + q + " walked the graph: " + visited + " scored; seed " + seed);
        expected += visited;
      }
      index.search(SearchRequest.builder().text(corpus.document(1).title()).build());
      index.search(
          SearchRequest.builder()
              .vector(corpus.document(docs + searches).embedding())
              .approximate(false)
              .build());
      IndexStats after = index.stats();
      assertEquals(searches, after.counter(VectorVisits.SEARCHES), "seed " + seed);
      assertEquals(expected, after.counter(VectorVisits.VISITED), "seed " + seed);
    }
  }
}
