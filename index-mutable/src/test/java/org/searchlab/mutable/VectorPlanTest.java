package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.FilterThresholds;
import org.searchlab.core.Operation;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.testing.ExactIndex;
import org.searchlab.testing.TestSeeds;

/**
 * The mutable store's filtered-vector plan follows its thresholds at the store level: a category
 * whose hit ratio is below the approximate threshold is scanned exactly (and so returns the exact
 * top k), one at or above it goes to the graph, a request's thresholds override the index's, and a
 * graph search that costs more distances than the filter accepts ids falls back to the exact scan.
 */
class VectorPlanTest {
  private static final int DIM = 16;
  private static final int DOCS = 2000;

  @TempDir Path tmp;

  @Test
  void planFollowsTheHitRatio() throws IOException {
    long seed = TestSeeds.seed("VectorPlanTest.planFollowsTheHitRatio");
    SplittableRandom r = new SplittableRandom(seed);
    Schema schema = new Schema(DIM);
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < DOCS; i++) {
      // "rare": 1% of the documents, "common": 30%, the rest "other".
      String cat = i % 100 == 0 ? "rare" : i % 10 < 3 ? "common" : "other";
      docs.add(new Document("d" + i, "t", "d", cat, i, 1f, unit(r)));
    }
    try (MutableIndex index = MutableIndex.open(tmp.resolve("m"), schema);
        ExactIndex oracle = ExactIndex.open(tmp.resolve("o"), schema)) {
      List<Operation> ops = docs.stream().map(Operation::put).toList();
      index.bulk(ops);
      oracle.bulk(ops);
      for (int q = 0; q < 20; q++) {
        float[] v = unit(r);
        SearchRequest rare =
            SearchRequest.builder()
                .vector(v)
                .filter(Filter.category("rare"))
                .targetHits(10)
                .build();
        SearchResult got = index.search(rare);
        assertEquals(
            QueryPlan.EXACT,
            got.plan().vector(),
            "20 accepted ids at beam 10 are scanned, seed " + seed);
        assertEquals(oracle.search(rare).ids(), got.ids(), "the exact plan is exact, seed " + seed);
        SearchRequest common = rare.toBuilder().filter(Filter.category("common")).build();
        SearchResult graph = index.search(common);
        if (!graph.plan().vector().equals(QueryPlan.HNSW)) {
          // 30% goes to the graph, which may give up for the exact scan after more distances than
          // the 600 accepted ids (16 random dimensions are hard for a graph); that scan is exact.
          assertEquals(QueryPlan.EXACT, graph.plan().vector(), "30% goes to the graph");
          assertEquals(oracle.search(common).ids(), graph.ids(), "fallback is exact, seed " + seed);
        }
        SearchRequest forced =
            common.toBuilder().thresholds(new FilterThresholds(0.5, 0.5)).build();
        assertEquals(QueryPlan.EXACT, index.search(forced).plan().vector(), "a request overrides");
        assertEquals(oracle.search(forced).ids(), index.search(forced).ids());
        // Forced into the graph, a 1% filter (20 accepted ids) costs more distances than it
        // accepts ids long before the beam holds 10 of them: the search falls back to the exact
        // scan, as Lucene's does, and so returns the exact top k.
        SearchRequest graphOnly = rare.toBuilder().thresholds(new FilterThresholds(0, 0)).build();
        SearchResult fellBack = index.search(graphOnly);
        assertEquals(QueryPlan.EXACT, fellBack.plan().vector(), "fallback, seed " + seed);
        assertEquals(oracle.search(rare).ids(), fellBack.ids(), "fallback is exact, seed " + seed);
      }
    }
  }

  private static float[] unit(SplittableRandom r) {
    float[] v = new float[DIM];
    double n = 0;
    for (int i = 0; i < DIM; i++) {
      v[i] = (float) r.nextGaussian();
      n += v[i] * v[i];
    }
    for (int i = 0; i < DIM; i++) {
      v[i] /= (float) Math.sqrt(n);
    }
    return v;
  }
}
