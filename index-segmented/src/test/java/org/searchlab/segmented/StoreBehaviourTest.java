package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.IndexStats;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.WriteResult;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/** Store-specific behaviour: plans, partial-update modes, real-time get, flush and WAL trim. */
class StoreBehaviourTest {
  private static final Schema SCHEMA = new Schema(32);

  @TempDir Path tmp;

  private SyntheticCorpus corpus(String test) {
    return new SyntheticCorpus(TestSeeds.seed("StoreBehaviourTest." + test), 32);
  }

  @Test
  void plansAreReported() throws IOException {
    SyntheticCorpus corpus = corpus("plans");
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(tmp.resolve("idx"), SCHEMA, SegmentCountTest.ONE_PER_BATCH)) {
      SegmentCountTest.feedBatches(index, corpus, 4, 500);
      float[] v = corpus.document(3).embedding();
      SearchResult unfiltered =
          index.search(SearchRequest.builder().vector(v).targetHits(10).build());
      assertEquals(new QueryPlan(QueryPlan.NONE, QueryPlan.HNSW), unfiltered.plan());
      assertEquals("doc-3", unfiltered.hits().get(0).id(), "a document's own vector finds it");

      // The rarest category passes fewer documents per segment than k: Lucene scans them exactly.
      List<String> cats = corpus.categories();
      String rare = cats.get(cats.size() - 1);
      SearchResult selective =
          index.search(
              SearchRequest.builder()
                  .vector(v)
                  .filter(Filter.category(rare))
                  .targetHits(200)
                  .build());
      assertEquals(QueryPlan.EXACT, selective.plan().vector(), selective.toString());
      for (var h : selective.hits()) {
        assertEquals(rare, index.get(h.id()).orElseThrow().category());
      }

      SearchResult exact =
          index.search(SearchRequest.builder().vector(v).targetHits(10).approximate(false).build());
      assertEquals(QueryPlan.EXACT, exact.plan().vector());

      String common = corpus.randomQueryText(new java.util.SplittableRandom(1), 1);
      SearchResult capped =
          index.search(SearchRequest.builder().text(common).trackTotalHitsUpTo(5).build());
      if (!capped.total().exact()) {
        assertEquals(QueryPlan.LUCENE_PRUNED, capped.plan().lexical());
        assertEquals(5, capped.total().value(), "a lower bound is reported as the limit");
      }
      SearchResult full =
          index.search(
              SearchRequest.builder().text(common).trackTotalHitsUpTo(Integer.MAX_VALUE).build());
      assertEquals(QueryPlan.EXHAUSTIVE, full.plan().lexical());
      assertTrue(full.total().exact());

      SearchResult unranked =
          index.search(SearchRequest.builder().filter(Filter.category(cats.get(0))).build());
      assertEquals(QueryPlan.FILTER_SCAN, unranked.plan().lexical());
      for (var h : unranked.hits()) {
        assertEquals(1f, h.score());
      }
      SearchResult hybrid =
          index.search(
              SearchRequest.builder()
                  .text(corpus.document(3).title())
                  .vector(v)
                  .rankProfile(RankProfile.HYBRID)
                  .build());
      assertEquals(QueryPlan.HNSW, hybrid.plan().vector());
      assertTrue(hybrid.timings().vectorNanos() > 0 && hybrid.timings().lexicalNanos() > 0);
    }
  }

  @Tag("restart")
  @Test
  void docValuesUpdatesRewriteOnlyAttributesAndSurviveReopen() throws IOException {
    SyntheticCorpus corpus = corpus("docvalues");
    SegmentedConfig config =
        SegmentCountTest.ONE_PER_BATCH.toBuilder()
            .partialUpdateMode(PartialUpdateMode.DOCVALUES)
            .build();
    Path dir = tmp.resolve("idx");
    Document d = corpus.document(7);
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, SCHEMA, config)) {
      SegmentCountTest.feedBatches(index, corpus, 2, 50);
      index.flush();
      WriteResult r =
          index.update(PartialUpdate.of(d.id()).withPrice(9_999_999).withAverageRating(0.5f));
      assertEquals(WriteResult.Outcome.UPDATED, r.outcome());
      Document expected =
          PartialUpdate.of(d.id()).withPrice(9_999_999).withAverageRating(0.5f).applyTo(d);
      assertEquals(expected, index.get(d.id()).orElseThrow(), "real-time before refresh");
      index.refresh();
      assertEquals(expected, index.get(d.id()).orElseThrow(), "from doc values after refresh");
      Filter priced = Filter.ALL.withPrice(new Filter.PriceRange(9_999_999, 9_999_999));
      assertEquals(
          List.of(d.id()), index.search(SearchRequest.builder().filter(priced).build()).ids());
      // A category change needs re-indexing (the keyword is indexed), even in this mode.
      index.update(PartialUpdate.of(d.id()).withCategory("moved"));
      IndexStats stats = index.stats();
      assertEquals(1, stats.counter("docvalues_updates"));
      assertEquals(1, stats.counter("reindex_updates"));
      assertEquals(
          WriteResult.Outcome.NOOP,
          index.update(PartialUpdate.of(d.id()).withCategory("moved")).outcome(),
          "an update that changes nothing is a no-op, as Elasticsearch's detect_noop");
    }
    Document moved =
        PartialUpdate.of(d.id())
            .withCategory("moved")
            .applyTo(
                PartialUpdate.of(d.id()).withPrice(9_999_999).withAverageRating(0.5f).applyTo(d));
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, SCHEMA, config)) {
      assertEquals(moved, index.get(d.id()).orElseThrow(), "committed on close");
      assertEquals(0, index.stats().counter("replayed_operations"), "close committed them");
      index.flush();
    }
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, SCHEMA, config)) {
      assertEquals(moved, index.get(d.id()).orElseThrow(), "from the commit");
      assertEquals(0, index.stats().counter("replayed_operations"));
    }
  }

  @Tag("restart")
  @Test
  void flushCommitsTheSerialAndTrimsTheLog() throws IOException {
    SyntheticCorpus corpus = corpus("flush");
    Path dir = tmp.resolve("idx");
    SegmentedConfig config =
        SegmentedConfig.builder().refreshIntervalMs(SegmentedConfig.REFRESH_DISABLED).build();
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, SCHEMA, config)) {
      for (int i = 0; i < 30; i++) {
        index.put(corpus.document(i));
      }
      assertTrue(index.get("doc-29").isPresent(), "real-time get, no refresh");
      assertEquals(0, index.stats().docCount(), "not searchable before a refresh");
      IndexStats before = index.stats();
      assertEquals(30, before.lastSerial());
      assertEquals(0, before.flushedSerial());
      index.flush();
      IndexStats after = index.stats();
      assertEquals(30, after.flushedSerial());
      assertTrue(after.walBytes() < before.walBytes(), "trimmed: " + after.walBytes());
      index.put(corpus.document(30));
      assertEquals(31, index.stats().lastSerial(), "serials continue after a trim");
    }
    try (LuceneSegmentedIndex index = LuceneSegmentedIndex.open(dir, SCHEMA, config)) {
      // The close committed the write after the flush; crash recovery is CrashSafetyTest's.
      assertEquals(0, index.stats().counter("replayed_operations"));
      assertEquals(31, index.stats().flushedSerial());
      assertEquals(31, index.stats().docCount());
      assertEquals(32, index.put(corpus.document(31)).serial());
    }
  }
}
