package org.searchlab.opensearch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.core.Operation;
import org.searchlab.core.RankProfile;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.analysis.TextAnalysis;
import org.searchlab.core.scoring.VectorScores;
import org.searchlab.core.wal.SyncPolicy;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.segmented.LuceneSegmentedIndex;
import org.searchlab.segmented.SegmentedConfig;
import org.searchlab.testing.ExactCorpus;
import org.searchlab.testing.SearchAssertions;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * One real OpenSearch node against the segmented store, both force-merged to one segment, on the
 * same 1,000 seeded synthetic documents (5 % duplicates, so ties occur): the analyzer produces the
 * same tokens, lexical top 10s have the same scores and (tie-aware) the same ids and totals, and
 * vector, filtered-vector and hybrid top 10s reach the same tie-aware recall against the exact
 * oracle at the same {@code num_candidates}, with OpenSearch's vector scores equal to the exact
 * closeness (through {@link OpenSearchDialect#closeness} where the dot product is negative). One
 * node serves every test of the class (starting one takes 20–50 s).
 */
class OpenSearchVsSegmentedTest {
  private static final int DOCS = 1_000;
  private static final int DIM = Schema.DEFAULT_DIMENSION;
  private static final int K = 10;
  private static final int NUM_CANDIDATES = 100;

  @TempDir static Path tmp;

  private static long seed;
  private static SyntheticCorpus corpus;
  private static List<Document> docs;
  private static Map<String, Document> byId;
  private static ExactCorpus exact;
  private static LuceneSegmentedIndex segmented;
  private static OpenSearchCluster cluster;
  private static OpenSearchHttp http;
  private static URI base;

  @BeforeAll
  static void startBoth() throws Exception {
    seed = TestSeeds.seed("OpenSearchVsSegmentedTest");
    corpus =
        new SyntheticCorpus(
            seed, DIM, SyntheticCorpus.Params.DEFAULT.toBuilder().duplicateRate(0.05).build());
    docs = corpus.documents(DOCS);
    byId = new HashMap<>();
    exact = new ExactCorpus();
    for (Document d : docs) {
      byId.put(d.id(), d);
      exact.put(d);
    }
    http = new OpenSearchHttp(Duration.ofMinutes(2));
    cluster =
        OpenSearchCluster.start(
            OpenSearchConfig.DEFAULT.toBuilder().heap("512m").build(),
            tmp.resolve("opensearch"),
            NodeClasspath.locate());
    base = cluster.httpUri();
    http.expectOk("PUT", base.resolve("/product"), ProductIndex.DEFAULT.body());
    for (int from = 0; from < DOCS; from += 250) {
      String body = OpenSearchDialect.bulkBody("product", docs.subList(from, from + 250));
      OpenSearchHttp.Response r = http.bulk(base.resolve("/_bulk"), body);
      assertEquals(200, r.status(), r.text());
      assertEquals(250, OpenSearchDialect.checkBulk(r.json()));
    }
    http.expectOk("POST", base.resolve("/product/_refresh"), null);
    http.expectOk("POST", base.resolve("/product/_forcemerge?max_num_segments=1"), null);
    http.expectOk("POST", base.resolve("/product/_refresh"), null);
    JsonNode stats = http.expectOk("GET", base.resolve("/product/_stats/segments,docs"), null);
    JsonNode primaries = stats.path("indices").path("product").path("primaries");
    assertEquals(DOCS, primaries.path("docs").path("count").asInt(), stats.toString());
    assertEquals(1, primaries.path("segments").path("count").asInt(), stats.toString());

    segmented =
        LuceneSegmentedIndex.open(
            tmp.resolve("segmented"),
            new Schema(DIM),
            SegmentedConfig.DEFAULT.toBuilder()
                .searchThreads(0)
                .wal(WalConfig.DEFAULT.toBuilder().syncPolicy(SyncPolicy.ASYNC).build())
                .build());
    List<Operation> ops = new ArrayList<>();
    docs.forEach(d -> ops.add(Operation.put(d)));
    segmented.bulk(ops);
    segmented.refresh();
    segmented.forceMerge(1);
    segmented.refresh();
    assertEquals(1, segmented.stats().segmentCount());
  }

  @AfterAll
  static void stopBoth() throws Exception {
    try (OpenSearchHttp h = http;
        OpenSearchCluster c = cluster;
        LuceneSegmentedIndex s = segmented) {
      // closes all three, even when one of them fails to close
    }
  }

  @Test
  void analyzerProducesTheSameTokensAsTextAnalysis() throws Exception {
    List<String> texts =
        List.of(
            "Running shoes for the RUNNERS' club: généralement très légères",
            "Libraries, library's, programmers and programming generalizations",
            "x86_64 e-mail 3.14 U.S.A. Ünïcödé naïve café crème brûlée",
            "GNU/Linux daemons (dæmon) ﬁle-systems, Straße and Œuvres",
            "don't won't it's o'neill's 1990s 2nd-hand well-known",
            "Arguing argued argues argument; happily happiness; flies flying");
    for (String text : texts) {
      ObjectNode req = OpenSearchHttp.MAPPER.createObjectNode();
      req.put("analyzer", TextAnalysis.NAME);
      req.put("text", text);
      JsonNode r = http.expectOk("POST", base.resolve("/product/_analyze"), req.toString());
      List<String> tokens = new ArrayList<>();
      r.path("tokens").forEach(t -> tokens.add(t.path("token").asText()));
      assertEquals(TextAnalysis.tokens(text), tokens, text);
    }
  }

  @Test
  void lexicalTopTenHasTheSegmentedStoresScoresAndTotals() throws Exception {
    SplittableRandom random = new SplittableRandom(seed ^ 1);
    int nonEmpty = 0;
    for (int q = 0; q < 100; q++) {
      String text =
          q % 2 == 0
              ? corpus.query(random.nextInt(DOCS), false).build().text()
              : corpus.randomQueryText(random, 1 + random.nextInt(6));
      Filter filter = randomFilter(random, q);
      SearchRequest req = SearchRequest.builder().text(text).filter(filter).hits(K).build();
      SearchResult expected = segmented.search(req);
      SearchResult actual = search(req);
      String what = "'" + text + "' " + filter + " seed=" + seed;
      SearchAssertions.assertSameScores(expected, actual, what);
      assertEquals(expected.total(), actual.total(), what + ": total hits");
      nonEmpty += expected.hits().isEmpty() ? 0 : 1;
    }
    assertTrue(nonEmpty >= 70, "only " + nonEmpty + " of 100 lexical queries matched anything");
  }

  @Test
  void vectorRecallEqualsTheSegmentedStoresAndScoresAreClosenesses() throws Exception {
    compareVectorRecall(RankProfile.CLOSENESS, false);
  }

  @Test
  void filteredVectorHitsPassTheFilterWithTheSegmentedStoresRecall() throws Exception {
    compareVectorRecall(RankProfile.CLOSENESS, true);
  }

  @Test
  void hybridRecallEqualsTheSegmentedStores() throws Exception {
    compareVectorRecall(RankProfile.HYBRID, false);
    compareVectorRecall(RankProfile.HYBRID, true);
  }

  /**
   * Hybrid in OpenSearch is exactly its two parts added: its top 10 equals the fusion of its own
   * lexical matches (all of them) and its own vector top-k, as the stores define hybrid.
   */
  @Test
  void hybridIsTheSumOfOpenSearchsOwnParts() throws Exception {
    SplittableRandom random = new SplittableRandom(seed ^ 3);
    for (int q = 0; q < 30; q++) {
      SearchRequest.Builder b = corpus.query(random.nextInt(DOCS), q % 2 == 1);
      SearchRequest hybrid =
          b.hits(K).targetHits(K).exploreAdditionalHits(NUM_CANDIDATES - K).build();
      SearchResult lexical =
          search(hybrid.toBuilder().rankProfile(RankProfile.BM25).hits(DOCS).build());
      SearchResult vector = search(hybrid.toBuilder().rankProfile(RankProfile.CLOSENESS).build());
      Map<String, Float> sum = new HashMap<>();
      lexical.hits().forEach(h -> sum.merge(h.id(), h.score(), Float::sum));
      vector.hits().forEach(h -> sum.merge(h.id(), h.score(), Float::sum));
      List<Hit> fused = new ArrayList<>();
      sum.forEach((id, s) -> fused.add(new Hit(id, s)));
      fused.sort(ExactCorpus.BY_SCORE);
      SearchResult expected =
          new SearchResult(
              fused.subList(0, Math.min(K, fused.size())),
              lexical.total(),
              lexical.plan(),
              lexical.timings());
      SearchAssertions.assertSameScores(
          expected, search(hybrid), "hybrid " + hybrid.text() + " seed=" + seed);
    }
  }

  /**
   * Runs 40 queries (vectors of random cluster points and of documents) through both engines and
   * the exact oracle; both engines' mean tie-aware recall@10 must be at least 0.95 and within 0.02
   * of each other, every OpenSearch hit must pass the filter, and for vector queries its score must
   * be the hit's exact closeness.
   */
  private static void compareVectorRecall(RankProfile profile, boolean filtered) throws Exception {
    SplittableRandom random = new SplittableRandom(seed ^ (profile.ordinal() * 31L + 7));
    double recallOs = 0;
    double recallSeg = 0;
    int queries = 40;
    for (int q = 0; q < queries; q++) {
      int doc = random.nextInt(DOCS);
      SearchRequest.Builder b = corpus.query(doc, filtered);
      if (q % 2 == 0) {
        b.vector(corpus.randomQueryVector(random));
      }
      SearchRequest req =
          b.rankProfile(profile)
              .hits(K)
              .targetHits(K)
              .exploreAdditionalHits(NUM_CANDIDATES - K)
              .build();
      SearchResult os = search(req);
      SearchResult seg = segmented.search(req);
      SearchResult truth = exact.search(req);
      String what = profile + " " + req.filter() + " query " + q + " seed=" + seed;
      for (Hit h : os.hits()) {
        Document d = byId.get(h.id());
        assertTrue(req.filter().matches(d), what + ": " + h.id() + " fails the filter");
        if (profile == RankProfile.CLOSENESS) {
          float closeness = VectorScores.closeness(req.vector(), d.embedding());
          assertEquals(
              closeness,
              OpenSearchDialect.closeness(h.score()),
              SearchAssertions.SCORE_TOLERANCE,
              what + " " + h);
        }
      }
      recallOs += tieAwareRecall(truth, os);
      recallSeg += tieAwareRecall(truth, seg);
    }
    recallOs /= queries;
    recallSeg /= queries;
    System.out.printf(
        "[opensearch-vs-segmented] %s filtered=%s recall@10 opensearch=%.4f segmented=%.4f"
            + " seed=%d%n",
        profile, filtered, recallOs, recallSeg, seed);
    String what = profile + " filtered=" + filtered + " seed=" + seed;
    assertTrue(recallOs >= 0.95, what + ": OpenSearch recall@10 " + recallOs);
    assertTrue(recallSeg >= 0.95, what + ": segmented recall@10 " + recallSeg);
    assertEquals(recallSeg, recallOs, 0.02, what + ": recall@10 gap");
  }

  /**
   * The share of the exact top k that {@code actual} found, where any hit scoring at least the
   * exact k-th score (within the tolerance) counts, because tied documents are interchangeable.
   */
  private static double tieAwareRecall(SearchResult truth, SearchResult actual) {
    if (truth.hits().isEmpty()) {
      return actual.hits().isEmpty() ? 1 : 0;
    }
    Set<String> relevant = new HashSet<>(truth.ids());
    float kth = truth.hits().get(truth.hits().size() - 1).score();
    Map<String, Float> truthScore = new HashMap<>();
    truth.hits().forEach(h -> truthScore.put(h.id(), h.score()));
    int correct = 0;
    for (Hit h : actual.hits()) {
      // A hit outside the exact list is correct only if it ties the k-th: its own score (the
      // stores report exact scores for what they return) reaches it.
      if (relevant.contains(h.id()) || h.score() >= kth - SearchAssertions.SCORE_TOLERANCE) {
        correct++;
      }
    }
    return Math.min(1.0, correct / (double) truth.hits().size());
  }

  private static Filter randomFilter(SplittableRandom random, int q) {
    Document d = docs.get(random.nextInt(DOCS));
    return switch (q % 4) {
      case 1 -> Filter.category(d.category());
      case 3 -> Filter.category(d.category()).withPrice(new Filter.PriceRange(100, d.price()));
      default -> Filter.ALL;
    };
  }

  private static SearchResult search(SearchRequest req) throws Exception {
    JsonNode r =
        http.expectOk("POST", base.resolve("/product/_search"), OpenSearchDialect.searchBody(req));
    return OpenSearchDialect.result(r);
  }
}
