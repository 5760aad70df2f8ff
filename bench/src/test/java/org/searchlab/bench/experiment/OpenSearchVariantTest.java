package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.load.ProcessCpu;
import org.searchlab.opensearch.NodeClasspath;
import org.searchlab.opensearch.OpenSearchCluster;
import org.searchlab.opensearch.OpenSearchConfig;
import org.searchlab.testing.TestSeeds;

/**
 * The runner's OpenSearch variant, piece by piece as {@link Servers} and {@link ProcedureRun} use
 * it, against a searchlab segmented server fed the same documents: the index created by {@link
 * ServerAdmin}, the {@code _bulk} feed with both CPU sources, refresh, flush, segments, and the
 * benchmark's six requests in {@link OsDialect}, whose answers must match the segmented store's
 * (lexical tie-aware overlap 1, vector and hybrid recall@10 within 0.02 at the same beam). One
 * OpenSearch node serves the class (starting one takes 20–50 s).
 */
class OpenSearchVariantTest {
  private static final int DIM = 16;

  @TempDir static Path tmp;

  private static Corpus corpus;
  private static LoadGenerator load;
  private static Session openSearch;
  private static Session segmented;
  private static FeedStats openSearchFeed;

  @BeforeAll
  static void startAndFeedBoth() throws Exception {
    corpus = Corpus.synthetic(TestSeeds.seed("OpenSearchVariantTest"), 600, DIM, 30);
    load = new LoadGenerator();
    OpenSearchCluster cluster =
        OpenSearchCluster.start(
            OpenSearchConfig.builder().heap("512m").startupTimeout(Duration.ofMinutes(3)).build(),
            tmp.resolve("opensearch"),
            NodeClasspath.locate());
    openSearch = Session.openSearch(cluster, 0, load);
    segmented =
        Session.start(
            ServerOptions.defaults("segmented", DIM),
            tmp.resolve("segmented"),
            "512m",
            tmp.resolve("segmented.log"),
            load);
    for (Session s : List.of(openSearch, segmented)) {
      // serve creates the benchmark's index at start; a second PUT is refused as Elasticsearch
      // refuses an index that exists (resource_already_exists_exception)
      assertEquals(s == openSearch ? 200 : 400, s.admin.createIndex(DIM, 16, 200));
      FeedStats fed = s.feeder(Feeder.ES_BATCH).feed(corpus.docs(), FeedOp.PUT, s.cpu);
      assertEquals(corpus.docs().size(), fed.docs());
      assertEquals(0, fed.errors());
      if (s == openSearch) {
        openSearchFeed = fed;
      }
      s.admin.refresh();
      s.admin.flush();
    }
  }

  @AfterAll
  static void stop() {
    if (openSearch != null) {
      openSearch.close();
    }
    if (segmented != null) {
      segmented.close();
    }
    if (load != null) {
      load.close();
    }
  }

  @Test
  void cpuComesFromProcWithNodesStatsAsTheSecondSource() throws Exception {
    assertEquals(ProcessCpu.SOURCE, openSearch.cpu.source());
    assertEquals(NodesStatsCpu.SOURCE, openSearch.cpu.second().orElseThrow().source());
    assertNotNull(openSearchFeed.secondCpuCores(), "the feed reads _nodes/stats too");
    assertTrue(openSearchFeed.secondCpuCores() >= 0, openSearchFeed.toString());
    // Both count the node JVM's CPU: over the whole start and feed, each has counted some.
    assertTrue(openSearch.cpu.cpuNanos() > 0);
    assertTrue(openSearch.cpu.second().orElseThrow().cpuNanos() > 0);
    Integer segments = openSearch.admin.segments();
    assertNotNull(segments, "OpenSearch reports its segments as _segments does");
    assertTrue(segments >= 1, "segments " + segments);
  }

  @Test
  void answersMatchTheSegmentedStore() throws Exception {
    List<BenchQuery> queries = corpus.queries();
    ExactSearch exact = new ExactSearch(corpus.docs(), queries);
    for (QueryType t : QueryType.values()) {
      for (boolean filtered : new boolean[] {false, true}) {
        Map<String, List<List<String>>> answers = new LinkedHashMap<>();
        answers.put("opensearch", openSearch.ids(openSearch.requests(queries, t, filtered)));
        answers.put("segmented", segmented.ids(segmented.requests(queries, t, filtered)));
        QualityCheck.Result q =
            QualityCheck.evaluate(
                exact, queries, t, filtered, answers, List.of(List.of("opensearch", "segmented")));
        String what = t.label() + (filtered ? " filtered" : "") + ": " + q.recall();
        if (t == QueryType.LEXICAL) {
          assertEquals(1.0, q.overlap().get("opensearch|segmented"), 1e-9, what);
          assertEquals(1.0, q.recall().get("opensearch"), 1e-9, what);
        } else {
          assertEquals(q.recall().get("segmented"), q.recall().get("opensearch"), 0.02, what);
        }
      }
    }
  }
}
