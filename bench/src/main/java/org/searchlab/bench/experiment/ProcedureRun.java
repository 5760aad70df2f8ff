package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.core.FeedNiceness;

/**
 * The write half of the benchmark's procedure on one store's server, after its query cells: refeed
 * the corpus, update every price, and refeed while filtered queries run. (Feeding 0→N and the
 * force-merge happen in {@link Servers}, the query cells in {@link PairedRounds}.) Runs on the
 * caller's thread; not thread-safe.
 */
final class ProcedureRun {
  private final RunContext ctx;
  private final Corpus corpus;

  ProcedureRun(RunContext ctx, Corpus corpus) {
    this.ctx = ctx;
    this.corpus = corpus;
  }

  static String key(QueryType t, boolean filtered) {
    return t.label() + "|" + filtered;
  }

  /** Documents the bulk write phases of one store feed: the feed, the refeed and the update. */
  static long feedDocs(Corpus corpus) {
    return 3L * corpus.docs().size();
  }

  /** Number of timed cells of the write phases of one store: each before and during the refeed. */
  static int cells(Profile p) {
    return 2 * QueryType.values().length * p.refeedClients().size();
  }

  /** Refeed, price update and refeed under queries on a server whose query cells are done. */
  void writes(Session s, String writeVariant) throws IOException, InterruptedException {
    Feeder feeder = s.feeder(Feeder.ES_BATCH);
    ctx.progress.step(Phases.REFEED, writeVariant + ": refeeding");
    FeedStats refeed = feeder.feed(corpus.docs(), FeedOp.PUT, s.cpu);
    ctx.progress.fed(refeed.docs(), refeed.seconds());
    s.admin.refresh();
    ctx.add(Rows.feed(ctx.info, writeVariant, Phases.REFEED, s.admin.segments(), null, refeed));
    ctx.progress.step(Phases.REFEED, writeVariant + ": " + describe(refeed));

    ctx.progress.step(Phases.UPDATE, writeVariant + ": price + 100 on every document");
    FeedStats update = feeder.feed(corpus.docs(), FeedOp.PRICE_UPDATE, s.cpu);
    ctx.progress.fed(update.docs(), update.seconds());
    s.admin.refresh();
    ctx.add(Rows.feed(ctx.info, writeVariant, Phases.UPDATE, s.admin.segments(), null, update));
    ctx.progress.step(Phases.UPDATE, writeVariant + ": " + describe(update));

    refeedWithQueries(s, writeVariant, feeder);
    s.admin.flush();
  }

  /**
   * Measures each filtered query type at the refeed client counts, then refeeds the corpus in a
   * loop and measures the same cells again while it runs: one feed row covers the refeed, one query
   * row each cell. The cells before are the baseline of the cells during: the same queries, clients
   * and window ({@link Profile#refeedDuration}) on the same server, a minute or two apart. (The
   * query phases' rows are medians over rounds of shorter cells, at the calibrated beam, and for a
   * segmented variant over several feeds' indexes.)
   */
  private void refeedWithQueries(Session s, String variant, Feeder feeder)
      throws IOException, InterruptedException {
    feeder.prepareLoop(corpus.docs());
    // The baseline is the index the writes left, once quiet, as the query phases had it: the
    // merges the refeed and the updates started (segmented store) done, then a moment to settle.
    double merging = s.admin.awaitMerges(Servers.MERGE_SETTLE);
    if (merging > 0) {
      s.admin.refresh();
      ctx.progress.step(
          Phases.BEFORE_REFEED,
          String.format("%s: merges settled %.1f s after the writes", variant, merging));
    }
    Thread.sleep(REFEED_SETTLE.toMillis());
    List<ResultRow> cells = new ArrayList<>();
    measureFiltered(s, variant, Phases.BEFORE_REFEED, cells, null);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<FeedStats> fed = new AtomicReference<>();
    AtomicReference<Exception> failed = new AtomicReference<>();
    AtomicInteger clientNice = new AtomicInteger(-1);
    AtomicLong acked = new AtomicLong();
    Thread background =
        Thread.ofPlatform()
            .name("refeed")
            .start(
                () -> {
                  try {
                    // The feed client's threads (the Vespa client's, the _bulk workers) start
                    // from this one and inherit its nice value (a Linux thread starts with its
                    // creator's), so the whole client yields; the query clients do not.
                    FeedNiceness.applyToCurrentThread(ctx.profile.refeedClientNiceness());
                    clientNice.set(FeedNiceness.currentThreadNice().orElse(-1));
                    fed.set(feeder.feedUntil(corpus.docs(), s.cpu, stop, acked));
                  } catch (InterruptedException | RuntimeException e) {
                    failed.set(e);
                  }
                });
    try {
      // The feed client connects and ramps up before the first cell's warm-up starts.
      Thread.sleep(REFEED_SETTLE.toMillis());
      measureFiltered(s, variant, Phases.DURING_REFEED, cells, acked);
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
    ctx.refeedClientNice(variant, clientNice.get());
    ctx.progress.step(
        Phases.REFEED_WITH_QUERIES,
        variant
            + ": "
            + describe(fed.get())
            + (clientNice.get() >= 0 ? ", feed client at nice " + clientNice.get() : ""));
  }

  /**
   * Time the refeed runs before the first cell during it, and the index rests before the first cell
   * before it.
   */
  static final java.time.Duration REFEED_SETTLE = java.time.Duration.ofSeconds(1);

  /**
   * One filtered cell per query type and refeed client count, as rows of {@code phase}, at the
   * benchmark's literal {@code k = num_candidates} for the vector part, for every variant alike.
   *
   * @param refeedAcked the running refeed's acknowledged documents, or null when none runs: each
   *     row then gets the refeed's rate over its cell, since a nice-19 writer's pace differs from
   *     cell to cell (it takes the cores the queries leave idle)
   */
  private void measureFiltered(
      Session s, String variant, String phase, List<ResultRow> out, AtomicLong refeedAcked)
      throws InterruptedException {
    Profile p = ctx.profile;
    for (QueryType t : QueryType.values()) {
      List<HttpRequest> requests = s.requests(corpus.queries(), t, true);
      for (int clients : p.refeedClients()) {
        ctx.progress.cell(
            phase,
            String.format("%s %s filtered clients=%d", variant, t.label(), clients),
            refeedSeconds(p));
        long acked0 = refeedAcked == null ? 0 : refeedAcked.get();
        long t0 = System.nanoTime();
        CellStats c = s.cell(requests, clients, p.warmup(), p.refeedDuration());
        ResultRow row = Rows.query(ctx.info, variant, phase, t, true, clients, null, null, c);
        if (refeedAcked != null) {
          row = row.withRefeedRate((refeedAcked.get() - acked0) / ((System.nanoTime() - t0) / 1e9));
        }
        // s.requests sends the benchmark's literal setting, not the calibrated beam: say so.
        out.add(
            t == QueryType.LEXICAL
                ? row
                : row.withCandidates(Setting.BENCHMARK.k(), Setting.BENCHMARK.candidates(), null));
      }
    }
  }

  /** Length of one JIT warm-up round after a server start: twice the cell warm-up. */
  static java.time.Duration jitWarmup(Profile p) {
    return p.warmup().multipliedBy(2);
  }

  static double seconds(Profile p) {
    return (p.warmup().toMillis() + p.duration().toMillis()) / 1000.0;
  }

  /** Seconds of one cell of the refeed-under-queries phase, warm-up included. */
  static double refeedSeconds(Profile p) {
    return (p.warmup().toMillis() + p.refeedDuration().toMillis()) / 1000.0;
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
}
