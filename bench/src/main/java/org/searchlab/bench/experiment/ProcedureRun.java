package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.ResultRow;

/**
 * The benchmark's procedure for one store family on one server: feed 0→N, flush, queries at every
 * client count (then, for the segmented family, force-merge to 1 segment and the same queries again
 * as {@code segmented-forcemerged}), refeed, update every price, and refeed while filtered queries
 * run. Hit ids of the quality queries are kept per (variant, type, filter) for overlap. Runs on the
 * caller's thread; not thread-safe.
 */
final class ProcedureRun {
  private final RunContext ctx;
  private final Corpus corpus;
  private final List<BenchQuery> qualityQueries;
  private final Map<String, List<List<String>>> exact;
  private final Map<String, List<List<String>>> returned;

  /**
   * @param exact exact top-10 ids per {@link #key(QueryType, boolean)}
   * @param returned where the hit ids of each variant go, keyed by {@link #key(String, QueryType,
   *     boolean)}
   */
  ProcedureRun(
      RunContext ctx,
      Corpus corpus,
      List<BenchQuery> qualityQueries,
      Map<String, List<List<String>>> exact,
      Map<String, List<List<String>>> returned) {
    this.ctx = ctx;
    this.corpus = corpus;
    this.qualityQueries = qualityQueries;
    this.exact = exact;
    this.returned = returned;
  }

  static String key(QueryType t, boolean filtered) {
    return t.label() + "|" + filtered;
  }

  static String key(String variant, QueryType t, boolean filtered) {
    return variant + "|" + key(t, filtered);
  }

  /** Number of timed cells and their planned seconds, for the progress line. */
  static int cells(Profile p, List<Variant> stages) {
    return stages.size() * 6 * p.clients().size() + 3 * p.refeedClients().size();
  }

  /**
   * Runs the procedure.
   *
   * @param stages the variants measured on this server, in order: {@code [mutable]}, {@code
   *     [segmented]}, {@code [segmented-forcemerged]} or {@code [segmented, segmented-forcemerged]}
   */
  void run(List<Variant> stages) throws IOException, InterruptedException {
    Variant first = stages.get(0);
    String family = first.store();
    String writeVariant = first.label();
    Profile p = ctx.profile;
    try (Session s =
        Session.start(
            ServerOptions.defaults(family, corpus.dimension()),
            ctx.dataDir(family),
            p.serverHeap(),
            ctx.serverLog(family),
            ctx.load)) {
      int status = s.admin.createIndex(corpus.dimension(), 16, 200);
      ctx.progress.step(Phases.FEED, writeVariant + ": PUT /product answered " + status);
      ctx.progress.step(Phases.FEED, writeVariant + ": feeding " + corpus.docs().size() + " docs");
      Feeder feeder = s.feeder(Feeder.ES_BATCH);
      FeedStats feed = feeder.feed(corpus.docs(), FeedOp.PUT, s.server.cpu());
      s.admin.refresh();
      s.admin.flush();
      Integer segments = s.admin.segments();
      ctx.add(Rows.feed(ctx.info, writeVariant, Phases.FEED, segments, null, feed));
      ctx.progress.step(
          Phases.FEED, writeVariant + ": " + describe(feed) + ", segments " + segments);

      ctx.progress.step(Phases.AFTER_FLUSH, writeVariant + ": JIT warm-up");
      s.warmUp(corpus.queries(), jitWarmup(p));
      for (Variant v : stages) {
        String phase = Phases.AFTER_FLUSH;
        if (v.forceMerged()) {
          ctx.progress.step(Phases.AFTER_MERGE, v.label() + ": force-merging to 1 segment");
          long t0 = System.nanoTime();
          s.admin.forceMerge(1);
          s.admin.refresh();
          segments = s.admin.segments();
          ctx.progress.step(
              Phases.AFTER_MERGE,
              String.format(
                  "%s: force-merged in %.1f s, segments %s",
                  v.label(), (System.nanoTime() - t0) / 1e9, segments));
          phase = Phases.AFTER_MERGE;
        }
        queryPhase(s, v.label(), phase, segments);
      }

      ctx.progress.step(Phases.REFEED, writeVariant + ": refeeding");
      FeedStats refeed = feeder.feed(corpus.docs(), FeedOp.PUT, s.server.cpu());
      s.admin.refresh();
      ctx.add(Rows.feed(ctx.info, writeVariant, Phases.REFEED, s.admin.segments(), null, refeed));
      ctx.progress.step(Phases.REFEED, writeVariant + ": " + describe(refeed));

      ctx.progress.step(Phases.UPDATE, writeVariant + ": price + 100 on every document");
      FeedStats update = feeder.feed(corpus.docs(), FeedOp.PRICE_UPDATE, s.server.cpu());
      s.admin.refresh();
      ctx.add(Rows.feed(ctx.info, writeVariant, Phases.UPDATE, s.admin.segments(), null, update));
      ctx.progress.step(Phases.UPDATE, writeVariant + ": " + describe(update));

      refeedWithQueries(s, writeVariant, feeder);
      s.admin.flush();
    }
  }

  private void queryPhase(Session s, String variant, String phase, Integer segments)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    for (QueryType t : QueryType.values()) {
      for (boolean filtered : new boolean[] {false, true}) {
        List<List<String>> ids = s.ids(s.requests(qualityQueries, t, filtered));
        returned.put(key(variant, t, filtered), ids);
        Double recall = Quality.recall(ids, exact.get(key(t, filtered)), 10);
        List<HttpRequest> requests = s.requests(corpus.queries(), t, filtered);
        for (int clients : p.clients()) {
          ctx.progress.cell(
              phase,
              String.format(
                  "%s %s%s clients=%d", variant, t.label(), filtered ? " filtered" : "", clients),
              seconds(p));
          CellStats c = s.cell(requests, clients, p.warmup(), p.duration());
          warnOnErrors(c, variant + " " + t.label());
          ctx.add(
              Rows.query(ctx.info, variant, phase, t, filtered, clients, segments, null, c)
                  .withQuality(recall, null));
        }
      }
    }
  }

  /**
   * Refeeds the corpus in a loop while filtered queries of each type run at the refeed client
   * counts; one feed row covers the whole period, one query row each cell.
   */
  private void refeedWithQueries(Session s, String variant, Feeder feeder)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<FeedStats> fed = new AtomicReference<>();
    AtomicReference<Exception> failed = new AtomicReference<>();
    Thread background =
        Thread.ofPlatform()
            .name("refeed")
            .start(
                () -> {
                  try {
                    fed.set(feeder.feedUntil(corpus.docs(), s.server.cpu(), stop));
                  } catch (InterruptedException | RuntimeException e) {
                    failed.set(e);
                  }
                });
    List<ResultRow> cells = new ArrayList<>();
    try {
      for (QueryType t : QueryType.values()) {
        List<HttpRequest> requests = s.requests(corpus.queries(), t, true);
        for (int clients : p.refeedClients()) {
          ctx.progress.cell(
              Phases.DURING_REFEED,
              String.format("%s %s filtered clients=%d", variant, t.label(), clients),
              seconds(p));
          CellStats c = s.cell(requests, clients, p.warmup(), p.duration());
          cells.add(
              Rows.query(ctx.info, variant, Phases.DURING_REFEED, t, true, clients, null, null, c));
        }
      }
    } finally {
      stop.set(true);
      background.join();
    }
    if (failed.get() != null) {
      throw new IOException("refeed under queries failed", failed.get());
    }
    Integer segments = s.admin.segments();
    for (ResultRow r : cells) {
      ctx.add(r);
    }
    ctx.add(Rows.feed(ctx.info, variant, Phases.REFEED_WITH_QUERIES, segments, null, fed.get()));
    ctx.progress.step(Phases.REFEED_WITH_QUERIES, variant + ": " + describe(fed.get()));
  }

  private void warnOnErrors(CellStats c, String what) {
    if (c.errors() > 0) {
      ctx.log.printf("WARNING: %s: %d failed requests in the cell%n", what, c.errors());
    }
  }

  /** Length of one JIT warm-up round after a server start: twice the cell warm-up. */
  static java.time.Duration jitWarmup(Profile p) {
    return p.warmup().multipliedBy(2);
  }

  static double seconds(Profile p) {
    return (p.warmup().toMillis() + p.duration().toMillis()) / 1000.0;
  }

  static String describe(FeedStats f) {
    return String.format(
        "%d docs in %.1f s = %.0f docs/s, %.2f cores, %.0f docs/s/core%s",
        f.docs(),
        f.seconds(),
        f.docsPerSec(),
        f.cpuCores(),
        f.docsPerSecPerCore(),
        f.errors() > 0 ? ", " + f.errors() + " REJECTED" : "");
  }

  /** Exact top-10 ids per (type, filter) for the quality queries, computed on all cores. */
  static Map<String, List<List<String>>> exactTopTen(ExactSearch exact, List<BenchQuery> queries) {
    List<Map<String, List<String>>> perQuery =
        queries.parallelStream().map(q -> exact.topKAll(q, 10)).toList();
    Map<String, List<List<String>>> out = new HashMap<>();
    for (QueryType t : QueryType.values()) {
      for (boolean filtered : new boolean[] {false, true}) {
        List<List<String>> ids = new ArrayList<>();
        for (Map<String, List<String>> m : perQuery) {
          ids.add(m.get(key(t, filtered)));
        }
        out.put(key(t, filtered), ids);
      }
    }
    return out;
  }
}
