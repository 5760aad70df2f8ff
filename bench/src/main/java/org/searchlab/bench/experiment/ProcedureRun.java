package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;
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

  /**
   * Documents the bulk write phases of one store feed: the feed, and the refeed and the update of
   * the profile's {@link Profile#writeDocs} of them.
   */
  static long feedDocs(Profile p, Corpus corpus) {
    int n = corpus.docs().size();
    return n + 2L * p.writeDocsOf(n);
  }

  /**
   * The documents the write phases rewrite: the corpus's own list when they are all of it (the same
   * list the feed used, so that its pre-encoded bodies are reused, {@link Feeder}), else one prefix
   * of it, taken once and kept, for the same reason.
   */
  private List<org.searchlab.core.Document> writeDocs;

  private List<org.searchlab.core.Document> writeDocs() {
    if (writeDocs == null) {
      int n = ctx.profile.writeDocsOf(corpus.docs().size());
      writeDocs = n == corpus.docs().size() ? corpus.docs() : corpus.docs().subList(0, n);
    }
    return writeDocs;
  }

  /** Number of timed cells of the write phases of one store: each before and during the refeed. */
  static int cells(Profile p) {
    return 2 * QueryType.values().length * p.refeedClients().size() * p.refeedRounds();
  }

  /** Refeed, price update and refeed under queries on a server whose query cells are done. */
  void writes(Session s, String writeVariant) throws IOException, InterruptedException {
    Feeder feeder = s.feeder(Feeder.ES_BATCH);
    List<org.searchlab.core.Document> docs = writeDocs();
    ctx.progress.step(
        Phases.REFEED,
        writeVariant
            + ": refeeding"
            + (docs.size() == corpus.docs().size()
                ? ""
                : String.format(
                    " the first %,d of %,d documents", docs.size(), corpus.docs().size())));
    FeedStats refeed = feeder.feed(docs, FeedOp.PUT, s.cpu);
    ctx.progress.fed(refeed.docs(), refeed.seconds());
    s.admin.refresh();
    ctx.add(Rows.feed(ctx.info, writeVariant, Phases.REFEED, s.admin.segments(), null, refeed));
    ctx.progress.step(Phases.REFEED, writeVariant + ": " + describe(refeed));

    ctx.progress.step(
        Phases.UPDATE,
        writeVariant
            + (docs.size() == corpus.docs().size()
                ? ": price + 100 on every document"
                : String.format(": price + 100 on the first %,d documents", docs.size())));
    FeedStats update = feeder.feed(docs, FeedOp.PRICE_UPDATE, s.cpu);
    ctx.progress.fed(update.docs(), update.seconds());
    s.admin.refresh();
    ctx.add(Rows.feed(ctx.info, writeVariant, Phases.UPDATE, s.admin.segments(), null, update));
    ctx.progress.step(Phases.UPDATE, writeVariant + ": " + describe(update));

    refeedWithQueries(s, writeVariant, feeder);
    s.admin.flush();
  }

  /**
   * Measures each filtered query type at the refeed client counts, then refeeds the corpus in a
   * loop and measures the same cells again while it runs, in {@link Profile#refeedRounds} rounds:
   * one feed row covers the refeeds of all rounds, one query row each cell, its latencies pooled
   * over the rounds. The cells before are the baseline of the cells during: the same queries,
   * clients and window ({@link Profile#refeedDuration}) on the same server, a minute or two apart.
   * (The query phases' rows are medians over rounds of shorter cells, at the calibrated beam, and
   * for a segmented variant over several feeds' indexes.)
   */
  private void refeedWithQueries(Session s, String variant, Feeder feeder)
      throws IOException, InterruptedException {
    List<org.searchlab.core.Document> docs = writeDocs();
    feeder.prepareLoop(docs);
    int rounds = ctx.profile.refeedRounds();
    Map<String, PooledCell> before = new LinkedHashMap<>();
    Map<String, PooledCell> during = new LinkedHashMap<>();
    List<FeedStats> refeeds = new ArrayList<>();
    int clientNice = -1;
    for (int round = 1; round <= rounds; round++) {
      settle(s, variant);
      measureFiltered(s, variant, Phases.BEFORE_REFEED, before, null, round);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<FeedStats> fed = new AtomicReference<>();
      AtomicReference<Exception> failed = new AtomicReference<>();
      AtomicInteger nice = new AtomicInteger(-1);
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
                      nice.set(FeedNiceness.currentThreadNice().orElse(-1));
                      fed.set(feeder.feedUntil(docs, s.cpu, stop, acked));
                    } catch (InterruptedException | RuntimeException e) {
                      failed.set(e);
                    }
                  });
      try {
        // The feed client connects and ramps up before the first cell's warm-up starts.
        Thread.sleep(REFEED_SETTLE.toMillis());
        measureFiltered(s, variant, Phases.DURING_REFEED, during, acked, round);
      } finally {
        stop.set(true);
        background.join();
      }
      if (failed.get() != null) {
        throw new IOException("refeed under queries failed", failed.get());
      }
      refeeds.add(fed.get());
      clientNice = nice.get();
    }
    Integer segments = s.admin.segments();
    for (PooledCell c : before.values()) {
      ctx.add(c.row(ctx.info, variant, Phases.BEFORE_REFEED));
    }
    for (PooledCell c : during.values()) {
      ctx.add(c.row(ctx.info, variant, Phases.DURING_REFEED));
    }
    FeedStats fed = FeedStats.sum(refeeds);
    ctx.add(Rows.feed(ctx.info, variant, Phases.REFEED_WITH_QUERIES, segments, null, fed));
    ctx.refeedClientNice(variant, clientNice);
    ctx.progress.step(
        Phases.REFEED_WITH_QUERIES,
        variant
            + ": "
            + describe(fed)
            + (rounds > 1 ? " over " + rounds + " rounds" : "")
            + (clientNice >= 0 ? ", feed client at nice " + clientNice : ""));
  }

  /**
   * The baseline is the index the writes left, once quiet, as the query phases had it: the merges
   * the refeed and the updates started (segmented store) done, then a moment to settle.
   */
  private void settle(Session s, String variant) throws IOException, InterruptedException {
    double merging = s.admin.awaitMerges(Servers.MERGE_SETTLE);
    if (merging > 0) {
      s.admin.refresh();
      ctx.progress.step(
          Phases.BEFORE_REFEED,
          String.format("%s: merges settled %.1f s after the writes", variant, merging));
    }
    Thread.sleep(REFEED_SETTLE.toMillis());
  }

  /**
   * Time the refeed runs before the first cell during it, and the index rests before the first cell
   * before it.
   */
  static final java.time.Duration REFEED_SETTLE = java.time.Duration.ofSeconds(1);

  /**
   * One filtered cell per query type and refeed client count, added to the pooled cells of {@code
   * phase}, at the benchmark's literal {@code k = num_candidates} for the vector part, for every
   * variant alike.
   *
   * @param refeedAcked the running refeed's acknowledged documents, or null when none runs: each
   *     cell then gets the refeed's rate over it, since a nice-19 writer's pace differs from cell
   *     to cell (it takes the cores the queries leave idle)
   */
  private void measureFiltered(
      Session s,
      String variant,
      String phase,
      Map<String, PooledCell> pooled,
      AtomicLong refeedAcked,
      int round)
      throws InterruptedException {
    Profile p = ctx.profile;
    for (QueryType t : QueryType.values()) {
      List<HttpRequest> requests = s.requests(corpus.queries(), t, true);
      for (int clients : p.refeedClients()) {
        ctx.progress.cell(
            phase,
            String.format(
                "%s %s filtered clients=%d%s",
                variant,
                t.label(),
                clients,
                p.refeedRounds() > 1 ? " round " + round + "/" + p.refeedRounds() : ""),
            refeedSeconds(p));
        PooledCell cell =
            pooled.computeIfAbsent(t.label() + "|" + clients, k -> new PooledCell(t, clients));
        long acked0 = refeedAcked == null ? 0 : refeedAcked.get();
        long t0 = System.nanoTime();
        CellStats c = s.cell(requests, clients, p.warmup(), p.refeedDuration(), cell.latencies);
        cell.add(
            c,
            refeedAcked == null ? 0 : refeedAcked.get() - acked0,
            (System.nanoTime() - t0) / 1e9);
      }
    }
  }

  /**
   * One filtered cell measured in one or more rounds: the latencies of every round in one
   * histogram, requests, errors and seconds summed, the server's CPU averaged over the windows, and
   * the refeed's documents over the cells' whole time, warm-ups included.
   */
  private static final class PooledCell {
    final QueryType type;
    final int clients;
    final org.HdrHistogram.Histogram latencies =
        org.searchlab.bench.load.LoadGenerator.newHistogram();
    long errors;
    String firstError;
    long retries;
    double seconds;
    double cpuSeconds;
    long refeedDocs;
    double refeedSeconds;

    PooledCell(QueryType type, int clients) {
      this.type = type;
      this.clients = clients;
    }

    void add(CellStats c, long refeedDocs, double cellSeconds) {
      errors += c.errors();
      if (firstError == null) {
        firstError = c.firstError();
      }
      retries += c.clientRetries();
      seconds += c.seconds();
      cpuSeconds += c.cpuCores() * c.seconds();
      this.refeedDocs += refeedDocs;
      refeedSeconds += cellSeconds;
    }

    /**
     * The cell's row; during the refeed it carries the refeed's pace. {@code s.requests} sends the
     * benchmark's literal setting, not the calibrated beam, and the row says so.
     */
    ResultRow row(RunInfo info, String variant, String phase) {
      CellStats c =
          CellStats.of(
              latencies,
              errors,
              firstError,
              retries,
              seconds,
              seconds > 0 ? cpuSeconds / seconds : 0);
      ResultRow row = Rows.query(info, variant, phase, type, true, clients, null, null, c);
      if (phase.equals(Phases.DURING_REFEED) && refeedSeconds > 0) {
        row = row.withRefeedRate(refeedDocs / refeedSeconds);
      }
      return type == QueryType.LEXICAL
          ? row
          : row.withCandidates(Setting.BENCHMARK.k(), Setting.BENCHMARK.candidates(), null);
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
        "%d docs in %.1f s = %.0f docs/s, %.2f cores, %.0f docs/s/core%s%s",
        f.docs(),
        f.seconds(),
        f.docsPerSec(),
        f.cpuCores(),
        f.docsPerSecPerCore(),
        // The runner's own JVM: the feed client, on the cores the server is measured on.
        f.clientCores() == null
            ? ""
            : String.format(java.util.Locale.ROOT, ", client %.2f cores", f.clientCores()),
        f.errors() > 0 ? ", " + f.errors() + " REJECTED" : "");
  }
}
