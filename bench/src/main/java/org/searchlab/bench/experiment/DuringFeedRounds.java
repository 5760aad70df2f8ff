package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.Intervals;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.core.FeedNiceness;

/**
 * The merge-policy comparison's query cells while a refeed runs, in paired rounds: each round
 * refeeds every variant's server in turn (in the order of {@link PairedRounds}: forward, then
 * reversed), and while one variant's refeed loops, measures its unfiltered cells of every query
 * type at the profile's client counts, then stops the refeed and lets its merges settle before the
 * next variant. The refeed is {@link Feeder#feedUntil}'s loop of small bulks through {@code _bulk}
 * for every variant, its client thread at the profile's refeed niceness as in the main procedure.
 * The vector and hybrid cells run at the beam the at-rest rounds settled on for the variant (each
 * at the recall target there); the recall of the quality queries at that beam is measured again in
 * each round while the refeed still runs and goes into the round's rows, since the segments change
 * under the feed. Runs on the caller's thread; not thread-safe.
 */
final class DuringFeedRounds {
  private final RunContext ctx;
  private final Corpus corpus;
  private final List<BenchQuery> quality;
  private final ExactSearch exact;
  private final Servers servers;
  private final Calibration calibration;
  private final int batchSize;

  DuringFeedRounds(
      RunContext ctx,
      Corpus corpus,
      List<BenchQuery> quality,
      ExactSearch exact,
      Servers servers,
      Calibration calibration,
      int batchSize) {
    this.ctx = ctx;
    this.corpus = corpus;
    this.quality = quality;
    this.exact = exact;
    this.servers = servers;
    this.calibration = calibration;
    this.batchSize = batchSize;
  }

  /** Timed cells of all rounds, for the progress estimate. */
  static int cells(Profile p, int variants) {
    return p.rounds() * variants * QueryType.values().length * p.clients().size();
  }

  /** The recall target the cells run at, null with fixed candidates. */
  private Double target() {
    return PairedRounds.targets(ctx.profile).get(0);
  }

  void run() throws IOException, InterruptedException {
    Profile p = ctx.profile;
    Map<QueryType, List<ExactAnswer>> truths = new LinkedHashMap<>();
    for (QueryType t : Calibration.CALIBRATED) {
      truths.put(t, QualityCheck.truths(exact, quality, t, false));
    }
    Map<String, List<ResultRow>> perCell = new LinkedHashMap<>();
    for (int round = 1; round <= p.rounds(); round++) {
      List<Variant> order = new ArrayList<>(servers.variants());
      if (round % 2 == 0) {
        java.util.Collections.reverse(order);
      }
      for (Variant v : order) {
        for (ResultRow r : measure(v, round, truths)) {
          ctx.add(r);
          perCell
              .computeIfAbsent(
                  r.variant() + "|" + r.queryType() + "|" + r.clients(), k -> new ArrayList<>())
              .add(r);
        }
      }
    }
    for (List<ResultRow> rounds : perCell.values()) {
      ResultRow first = rounds.get(0);
      ctx.add(
          Rows.query(
                  ctx.info,
                  first.variant(),
                  Phases.DURING_REFEED,
                  first.queryType(),
                  false,
                  first.clients(),
                  null,
                  null,
                  PairedRounds.median(rounds))
              .withCandidates(first.targetHits(), first.numCandidates(), first.recallTarget())
              .withInterval(
                  Intervals.median(PairedRounds.values(rounds, ResultRow::qps)),
                  Intervals.median(PairedRounds.values(rounds, ResultRow::qpsPerCore)))
              .withQuality(PairedRounds.summaryRecall(rounds), null)
              .withRefeedRate(
                  Intervals.median(PairedRounds.values(rounds, r -> r.refeedDocsPerSec()))
                      .median()));
    }
  }

  /** One round of one variant: its refeed started, its cells and recall measured, stopped. */
  private List<ResultRow> measure(Variant v, int round, Map<QueryType, List<ExactAnswer>> truths)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    Session s = servers.session(v);
    Feeder feeder = s.bulkFeeder(batchSize);
    feeder.prepareLoop(corpus.docs());
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Exception> failed = new AtomicReference<>();
    AtomicLong acked = new AtomicLong();
    Thread background =
        Thread.ofPlatform()
            .name("refeed-" + v.label())
            .start(
                () -> {
                  try {
                    // As in the main procedure's refeed under queries: the client's threads inherit
                    // this nice value, so the feed client yields to the server and query clients.
                    FeedNiceness.applyToCurrentThread(p.refeedClientNiceness());
                    feeder.feedUntil(corpus.docs(), s.cpu, stop, acked);
                  } catch (InterruptedException | RuntimeException e) {
                    failed.set(e);
                  }
                });
    List<ResultRow> rows = new ArrayList<>();
    try {
      Thread.sleep(ProcedureRun.REFEED_SETTLE.toMillis());
      Map<QueryType, Double> recall = new LinkedHashMap<>();
      for (QueryType t : QueryType.values()) {
        Setting g = calibration.setting(v, t, false, target(), 0);
        List<HttpRequest> requests = s.requests(corpus.queries(), t, false, g);
        for (int clients : p.clients()) {
          ctx.progress.cell(
              Phases.DURING_REFEED,
              String.format(
                  "round %d/%d %s %s clients=%d%s (refeed running)",
                  round,
                  p.rounds(),
                  v.label(),
                  t.label(),
                  clients,
                  t == QueryType.LEXICAL ? "" : " candidates=" + g.candidates()),
              PairedRounds.seconds(p));
          long acked0 = acked.get();
          long t0 = System.nanoTime();
          CellStats c = s.cell(requests, clients, p.warmup(), p.duration());
          double rate = (acked.get() - acked0) / ((System.nanoTime() - t0) / 1e9);
          rows.add(
              Rows.query(
                      ctx.info, v.label(), Phases.DURING_REFEED, t, false, clients, null, null, c)
                  .withCandidates(g.k(), g.candidates(), t == QueryType.LEXICAL ? null : target())
                  .withRound(round)
                  .withRefeedRate(rate));
        }
        if (t != QueryType.LEXICAL) {
          Map<String, List<List<String>>> answers = new LinkedHashMap<>();
          answers.put(v.label(), s.ids(s.requests(quality, t, false, g)));
          recall.put(
              t, QualityCheck.evaluate(truths.get(t), answers, List.of()).recall().get(v.label()));
        }
      }
      List<ResultRow> withRecall = new ArrayList<>();
      for (ResultRow r : rows) {
        QueryType t = QueryType.valueOf(r.queryType().toUpperCase(java.util.Locale.ROOT));
        withRecall.add(recall.containsKey(t) ? r.withQuality(recall.get(t), null) : r);
      }
      rows = withRecall;
    } finally {
      stop.set(true);
      background.join();
    }
    if (failed.get() != null) {
      throw new IOException(v.label() + ": refeed under queries failed", failed.get());
    }
    // The next variant's cells start on a quiet machine: this one's merges done.
    s.admin.awaitMerges(Servers.MERGE_SETTLE);
    s.admin.refresh();
    return rows;
  }
}
