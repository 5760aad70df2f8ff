package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Filter;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.testing.BaseSearchIndexTestCase;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Concurrent segment search gives the same answers as sequential search on a 20-segment index:
 * identical lexical top-k (ids and scores), and vector recall@10 within 0.01.
 */
class ConcurrentSearchTest {
  private static final int SEGMENTS = 20;
  private static final int DIM = 32;

  /** The benchmark's k: recall@100 of the top 100 is sensitive enough to show a difference. */
  private static final int K = 10;

  @TempDir Path tmp;

  @Tag("restart")
  @Test
  void concurrentEqualsSequential() throws IOException {
    long seed = TestSeeds.seed("ConcurrentSearchTest.concurrentEqualsSequential");
    SyntheticCorpus corpus =
        new SyntheticCorpus(seed, DIM, SyntheticCorpus.Params.builder().noise(10.0).build());
    SplittableRandom random = new SplittableRandom(seed);
    Path built = tmp.resolve("built");
    int perBatch = 400;
    // A deliberately weak graph (M 2, beam 2), so approximate recall is below 1 and a difference
    // between sequential and concurrent search could show.
    SegmentedConfig base =
        SegmentCountTest.ONE_PER_BATCH.toBuilder().hnswM(2).hnswBeamWidth(2).build();
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(built, corpusSchema(), base)) {
      SegmentCountTest.feedBatches(index, corpus, SEGMENTS, perBatch);
      index.flush();
    }
    // Three copies of the same segments (the writer locks its directory).
    copy(built, tmp.resolve("seq"));
    copy(built, tmp.resolve("conc"));
    copy(built, tmp.resolve("part"));
    try (LuceneSegmentedIndex seq =
            LuceneSegmentedIndex.open(
                tmp.resolve("seq"), corpusSchema(), base.toBuilder().searchThreads(0).build());
        LuceneSegmentedIndex conc =
            LuceneSegmentedIndex.open(
                tmp.resolve("conc"),
                corpusSchema(),
                base.toBuilder().searchThreads(4).slicing(Slicing.SEGMENT_PER_SLICE).build());
        LuceneSegmentedIndex part =
            LuceneSegmentedIndex.open(
                tmp.resolve("part"),
                corpusSchema(),
                base.toBuilder().searchThreads(3).slicing(Slicing.PARTITIONS).build())) {
      assertEquals(SEGMENTS, seq.stats().segmentCount());
      assertEquals(SEGMENTS, conc.stats().segmentCount());
      int docs = SEGMENTS * perBatch;
      for (int q = 0; q < 100; q++) {
        SearchRequest req =
            corpus
                .query(random.nextInt(docs), q % 2 == 0)
                .rankProfile(org.searchlab.core.RankProfile.BM25)
                .hits(q % 5 == 0 ? 100 : 10)
                .build();
        SearchResult s = seq.search(req);
        assertEquals(s.hits(), conc.search(req).hits(), "concurrent lexical " + req);
        assertEquals(s.hits(), part.search(req).hits(), "partitioned lexical " + req);
        assertEquals(s.total(), conc.search(req).total());
      }
      double recallSeq = 0;
      double recallConc = 0;
      int n = 200;
      for (int q = 0; q < n; q++) {
        // Uniform random directions, far from the corpus's clusters: harder for the graph.
        float[] v = new float[DIM];
        for (int i = 0; i < DIM; i++) {
          v[i] = (float) (random.nextDouble() * 2 - 1);
        }
        SyntheticCorpus.normalize(v);
        Filter filter = q % 4 == 0 ? Filter.category(corpus.categories().get(q % 5)) : Filter.ALL;
        SearchRequest req =
            SearchRequest.builder().vector(v).filter(filter).targetHits(K).hits(K).build();
        SearchResult exact = seq.search(req.toBuilder().approximate(false).build());
        SearchResult approx = seq.search(req);
        if (q < 4) {
          System.out.println("[plan] " + approx.plan() + " exact plan " + exact.plan());
        }
        recallSeq += BaseSearchIndexTestCase.recall(exact.hits(), approx.hits(), K);
        recallConc += BaseSearchIndexTestCase.recall(exact.hits(), conc.search(req).hits(), K);
      }
      recallSeq /= n;
      recallConc /= n;
      System.out.printf(
          "[recall] %d segments, recall@%d: sequential %.4f, concurrent %.4f%n",
          SEGMENTS, K, recallSeq, recallConc);
      assertTrue(
          Math.abs(recallSeq - recallConc) <= 0.01,
          "recall sequential " + recallSeq + " vs concurrent " + recallConc);
      assertTrue(recallSeq > 0.8, "sequential recall " + recallSeq);
    }
  }

  private static org.searchlab.core.Schema corpusSchema() {
    return new org.searchlab.core.Schema(DIM);
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      files.forEach(
          p -> {
            try {
              Path target = to.resolve(from.relativize(p).toString());
              if (Files.isDirectory(p)) {
                Files.createDirectories(target);
              } else if (!p.getFileName().toString().equals("write.lock")) {
                Files.copy(p, target);
              }
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }
  }
}
