package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.RunInfo;

/**
 * The segment-count sweep: the segmented store indexes the sweep corpus once with one segment per
 * bulk batch and merge policy {@code none} (batches sent one at a time, refresh only on request, so
 * B batches make exactly B segments), then is force-merged down through the profile's segment
 * counts. At each count, filtered vector, lexical, hybrid and faceted queries ({@link
 * FacetedRounds}; their buckets checked against the exact oracle's) run at the sweep's client
 * counts with {@code searchThreads} = 0 (segments searched one after another) and with the server's
 * default pool (Elasticsearch's concurrent segment search). Each setting is measured on a server
 * restarted on the same data directory after the merge and warmed up the same way, so neither
 * carries the merge's garbage or the other's JIT state; the order alternates between counts. Runs
 * on the caller's thread; not thread-safe.
 */
final class SegmentSweep {
  static final String VARIANT = "segmented";
  static final String SEQUENTIAL = "0";
  static final String DEFAULT_POOL = "default";

  private final RunContext ctx;
  private final Corpus corpus;
  private final List<BenchQuery> qualityQueries;
  private final ExactSearch exact;
  private final Map<QueryType, List<ExactAnswer>> truths = new java.util.EnumMap<>(QueryType.class);
  private final Facets facets;
  private List<List<String>> facetTruths;

  SegmentSweep(RunContext ctx, Corpus corpus, List<BenchQuery> qualityQueries, ExactSearch exact) {
    this.ctx = ctx;
    this.corpus = corpus;
    this.qualityQueries = qualityQueries;
    this.exact = exact;
    this.facets = Facets.of(corpus.mapping(), corpus.docs());
  }

  static int cells(Profile p) {
    return p.sweepSegments().size() * 2 * 4 * p.sweepClients().size();
  }

  static double seconds(Profile p) {
    return (Math.min(1000, p.warmup().toMillis()) + p.sweepDuration().toMillis()) / 1000.0;
  }

  void run() throws IOException, InterruptedException {
    Profile p = ctx.profile;
    RunInfo info = ctx.info.withDocs(corpus.docs().size());
    int maxSegments = p.sweepSegments().get(0);
    int batch = Math.max(1, (corpus.docs().size() + maxSegments - 1) / maxSegments);
    ServerOptions base =
        ServerOptions.defaults("segmented", corpus.dimension()).toBuilder()
            .segmentPerBatch(true)
            .mergePolicyNone(true)
            .refreshIntervalMs(-1)
            .build();
    Path data = ctx.dataDir("sweep");
    Path log = ctx.serverLog("sweep");
    String threads = DEFAULT_POOL;
    Session s = Session.start(options(base, threads), data, p.serverHeap(), log, ctx.load);
    try {
      s.admin.createIndex(corpus.dimension(), 16, 200);
      ctx.progress.step(
          Phases.SWEEP,
          String.format(
              "indexing %d docs in batches of %d, one segment each", corpus.docs().size(), batch));
      FeedStats feed = s.feeder(batch).feed(corpus.docs(), FeedOp.PUT, s.cpu, 1);
      ctx.progress.fed(feed.docs(), feed.seconds());
      s.admin.refresh();
      ctx.progress.step(
          Phases.SWEEP, ProcedureRun.describe(feed) + ", segments " + s.admin.segments());
      s.warmUp(corpus.queries(), ProcedureRun.jitWarmup(p));
      for (int target : p.sweepSegments()) {
        Integer before = s.admin.segments();
        if (before == null || before > target) {
          ctx.progress.step(Phases.SWEEP, "force-merging " + before + " → " + target + " segments");
          s.admin.forceMerge(target);
          s.admin.refresh();
        }
        // Both settings are measured on a freshly started, equally warmed server: the one that
        // ran the force-merge would otherwise also carry the merge's garbage into its cells. The
        // order alternates between counts.
        for (int side = 0; side < 2; side++) {
          s.admin.flush();
          s.close();
          s = Session.start(options(base, threads), data, p.serverHeap(), log, ctx.load);
          s.warmUp(corpus.queries(), ProcedureRun.jitWarmup(p));
          measure(s, info, s.admin.segments(), threads);
          if (side == 0) {
            threads = threads.equals(DEFAULT_POOL) ? SEQUENTIAL : DEFAULT_POOL;
          }
        }
      }
    } finally {
      s.close();
    }
  }

  /**
   * The exact answers of the quality queries for {@code t}, computed on first use and kept: every
   * segment count and thread setting checks the same queries on the same documents: 42 checks in
   * the standard profile, and the exact hybrid answer scores the whole corpus for each query.
   */
  private List<ExactAnswer> truths(QueryType t) {
    return truths.computeIfAbsent(t, x -> QualityCheck.truths(exact, qualityQueries, x, true));
  }

  private static ServerOptions options(ServerOptions base, String threads) {
    return base.toBuilder().searchThreads(threads.equals(SEQUENTIAL) ? 0 : null).build();
  }

  private void measure(Session s, RunInfo info, Integer segments, String threads)
      throws IOException, InterruptedException {
    for (QueryType t : List.of(QueryType.VECTOR, QueryType.LEXICAL, QueryType.HYBRID)) {
      QualityCheck.Result q =
          QualityCheck.evaluate(
              truths(t), Map.of(VARIANT, s.ids(s.requests(qualityQueries, t, true))), List.of());
      cells(s, info, segments, threads, t.label(), s.requests(corpus.queries(), t, true), q);
    }
    if (facets.any()) {
      measureFaceted(s, info, segments, threads);
    }
  }

  /**
   * The filtered faceted cells: how faceting cost grows with the segment count. The buckets of the
   * quality queries must equal the exact oracle's at every count and setting; recall@10 is the
   * lexical hits'.
   */
  private void measureFaceted(Session s, RunInfo info, Integer segments, String threads)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    if (facetTruths == null) {
      facetTruths = new java.util.ArrayList<>();
      for (BenchQuery q : qualityQueries) {
        facetTruths.add(exact.facetBuckets(q, true, facets));
      }
    }
    List<HttpRequest> check = new java.util.ArrayList<>();
    for (BenchQuery q : qualityQueries) {
      check.add(s.dialect.faceted(s.base, q, true, facets));
    }
    List<List<String>> ids = new java.util.ArrayList<>();
    List<java.net.http.HttpResponse<byte[]>> answers = s.responses(check);
    for (int i = 0; i < answers.size(); i++) {
      java.net.http.HttpResponse<byte[]> r = answers.get(i);
      String body = new String(r.body(), java.nio.charset.StandardCharsets.UTF_8);
      if (r.statusCode() != 200) {
        throw new IOException("sweep: a faceted search answered " + r.statusCode() + ": " + body);
      }
      List<String> got = Facets.buckets(Json.MAPPER.readTree(r.body()).path("aggregations"));
      if (!got.equals(facetTruths.get(i))) {
        throw new IllegalStateException(
            String.format(
                "sweep at %s segments, threads %s: faceted buckets of \"%s\" differ from the exact"
                    + " oracle's: expected %s, got %s",
                segments, threads, qualityQueries.get(i).text(), facetTruths.get(i), got));
      }
      ids.add(EsDialect.hitIds(r.body()));
    }
    QualityCheck.Result q =
        QualityCheck.evaluate(truths(QueryType.LEXICAL), Map.of(VARIANT, ids), List.of());
    List<HttpRequest> requests = new java.util.ArrayList<>();
    for (BenchQuery bq : corpus.queries()) {
      requests.add(s.dialect.faceted(s.base, bq, true, facets));
    }
    cells(s, info, segments, threads, FacetedRounds.LABEL, requests, q);
  }

  /** One filtered cell per sweep client count, its row carrying the quality check's recall. */
  private void cells(
      Session s,
      RunInfo info,
      Integer segments,
      String threads,
      String type,
      List<HttpRequest> requests,
      QualityCheck.Result q)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    for (int clients : p.sweepClients()) {
      ctx.progress.cell(
          Phases.SWEEP,
          String.format(
              "segments=%s threads=%s %s filtered clients=%d", segments, threads, type, clients),
          seconds(p));
      CellStats c =
          s.cell(
              requests,
              clients,
              java.time.Duration.ofMillis(Math.min(1000, p.warmup().toMillis())),
              p.sweepDuration());
      ctx.add(
          Rows.query(info, VARIANT, Phases.SWEEP, type, true, clients, segments, threads, c)
              .withQuality(q.recall().get(VARIANT), null)
              .withIdQuality(q.recallIds().get(VARIANT), null));
    }
  }
}
