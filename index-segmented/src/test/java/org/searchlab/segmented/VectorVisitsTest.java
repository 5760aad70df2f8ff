package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.AcceptDocs;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.IndexStats;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.VectorVisits;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The segmented store's {@code vector_searches} and {@code vector_visited_nodes} counters: each
 * approximate vector search (plain or the vector part of a hybrid one) counts once, with the
 * vectors Lucene's graph search visited, recomputed here by a plain Lucene reader of the committed
 * index ({@code LeafReader.searchNearestVectors}, whose {@code totalHits} is the visited count),
 * which the counters do not see; lexical and exact-by-request searches add nothing.
 */
class VectorVisitsTest {
  private static final int DIM = 16;
  // Enough that a beam of 5 visits part of the graph, not all of it.
  private static final int DOCS = 1000;

  @TempDir Path tmp;

  @Test
  void countersSumLuceneVisitedCounts() throws IOException {
    long seed = TestSeeds.seed("segmented.VectorVisitsTest.countersSumLuceneVisitedCounts");
    SyntheticCorpus corpus = new SyntheticCorpus(seed, DIM);
    Path dir = tmp.resolve("idx");
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(dir, new Schema(DIM), SegmentCountTest.ONE_PER_BATCH)) {
      // One segment: over several, Lucene gives each segment a share of k (and may search a
      // segment twice), which a per-segment recount here would have to reimplement.
      SegmentCountTest.feedBatches(index, corpus, 1, DOCS);
      index.refresh();
      index.flush();
      assertEquals(0, index.stats().counter(VectorVisits.SEARCHES), "counters start at 0");
      long expected = 0;
      int searches = 5;
      try (FSDirectory fs = FSDirectory.open(dir.resolve("index"));
          DirectoryReader reader = DirectoryReader.open(fs)) {
        assertEquals(1, reader.leaves().size());
        for (int q = 0; q < searches; q++) {
          float[] v = corpus.document(DOCS + q).embedding(); // not in the index
          SearchRequest.Builder b =
              SearchRequest.builder().vector(v).targetHits(5).exploreAdditionalHits(0);
          if (q == 0) {
            b.text(corpus.document(0).title()); // hybrid: its vector part is one vector search
          }
          SearchRequest req = b.build();
          index.search(req);
          for (LeafReaderContext leaf : reader.leaves()) {
            int max = leaf.reader().maxDoc();
            long visited =
                leaf.reader()
                    .searchNearestVectors(
                        Schema.EMBEDDING,
                        v,
                        req.candidates(),
                        AcceptDocs.fromLiveDocs(leaf.reader().getLiveDocs(), max),
                        Integer.MAX_VALUE)
                    .totalHits
                    .value();
            assertTrue(
                visited > 0 && visited < DOCS,
                "query " + q + " walked the graph: " + visited + " visited; seed " + seed);
            expected += visited;
          }
        }
      }
      index.search(SearchRequest.builder().text(corpus.document(1).title()).build());
      index.search(
          SearchRequest.builder()
              .vector(corpus.document(DOCS + searches).embedding())
              .approximate(false)
              .build());
      IndexStats after = index.stats();
      assertEquals(searches, after.counter(VectorVisits.SEARCHES), "seed " + seed);
      assertEquals(expected, after.counter(VectorVisits.VISITED), "seed " + seed);
    }
  }
}
