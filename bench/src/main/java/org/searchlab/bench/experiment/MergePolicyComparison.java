package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.report.MergePolicyReport;
import org.searchlab.bench.report.MergeWindow;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;
import org.searchlab.bench.report.SegmentPoint;

/**
 * {@code experiment --merge-policies}: the segmented store's merge policies side by side, with the
 * mutable store as the reference line, as a job of its own. Every variant gets its own server,
 * started and fed one after the other (the others idle) with the same corpus the same way: {@code
 * _bulk} requests of the same size from the same client threads, the segmented servers with the
 * same refresh. Then:
 *
 * <ol>
 *   <li>The first feed (0 → N) of each, watched until its merges settle ({@link PolicyWindows}):
 *       docs/s per core, the store's merge figures, the kernel's, the segments over time. Policy
 *       {@code none} then force-merges to one segment, a window of its own.
 *   <li>At rest: the {@link Calibration} of the vector and hybrid beams and the query cells in
 *       {@link PairedRounds}, exactly as the main procedure measures its variants (medians over
 *       rounds with intervals, estimates at equal recall).
 *   <li>Refeeds in paired rounds: each round refeeds every variant in turn, the order reversed
 *       every other round; {@code none} force-merges after each. Each refeed is a watched window.
 *   <li>While feeding: the query cells in paired rounds while a refeed loops ({@link
 *       DuringFeedRounds}).
 * </ol>
 *
 * Writes {@code results.jsonl} (every cell, the policy and its settings in the variant's label),
 * {@code merge-policies.json} (the policies, their {@code serve} flags and every window), {@code
 * segments-timeline.jsonl}, {@code run.json} and {@code report.md} with its plots. Single-threaded
 * orchestration; not thread-safe.
 */
public final class MergePolicyComparison {
  /** The file of the policies and their write windows. */
  public static final String POLICIES_FILE = "merge-policies.json";

  /** The file of the segment polls. */
  public static final String TIMELINE_FILE = "segments-timeline.jsonl";

  private final Profile profile;
  private final List<MergePolicySpec> policies;
  private final Corpus corpus;
  private final Path outDir;
  private final Path home;
  private final PrintStream log;
  private final boolean keepData;
  private int batchSize = Feeder.ES_BATCH;
  private Integer refreshIntervalMs;

  /**
   * @param profile sizes and timings: documents, client counts, rounds, cell windows, heap
   * @param policies the segmented store's policies, each run on its own server
   * @param corpus documents and queries (the profile's document count already applied)
   * @param outDir the run's output directory, created if missing
   * @param home the source tree (for the commit id)
   * @param log where the progress line goes
   * @param keepData whether the servers' data directories survive the run
   */
  public MergePolicyComparison(
      Profile profile,
      List<MergePolicySpec> policies,
      Corpus corpus,
      Path outDir,
      Path home,
      PrintStream log,
      boolean keepData) {
    if (policies.isEmpty()) {
      throw new IllegalArgumentException("the merge-policy comparison needs at least one policy");
    }
    this.profile = profile;
    this.policies = List.copyOf(policies);
    this.corpus = corpus;
    this.outDir = outDir;
    this.home = home;
    this.log = log;
    this.keepData = keepData;
  }

  /**
   * Feeds with {@code batch} documents per {@code _bulk} request (default {@link Feeder#ES_BATCH})
   * and, where not null, refreshes every segmented server each {@code refreshMs} (default 1 s): a
   * small corpus needs smaller bulks and refreshes for its policies to have anything to merge.
   */
  public MergePolicyComparison feedWith(int batch, Integer refreshMs) {
    if (batch < 1) {
      throw new IllegalArgumentException("bulk size " + batch + " is below 1");
    }
    this.batchSize = batch;
    this.refreshIntervalMs = refreshMs;
    return this;
  }

  /** The variant of a policy: a segmented server labelled with the policy and its settings. */
  static Variant variant(MergePolicySpec spec) {
    return new Variant(spec.label(), Variant.SEGMENTED_STORE, false, null);
  }

  /** Runs everything and returns the rows written to {@code results.jsonl}. */
  public List<ResultRow> run() throws IOException, InterruptedException {
    Files.createDirectories(outDir);
    long t0 = System.nanoTime();
    String loadBefore = loadAverage();
    RunInfo info = RunInfo.detect(home, profile.name(), corpus.docs().size(), corpus.dimension());
    List<BenchQuery> quality =
        corpus.queries().subList(0, Math.min(profile.recallQueries(), corpus.queries().size()));
    Map<Variant, MergePolicySpec> specs = new LinkedHashMap<>();
    specs.put(Variant.MUTABLE, null);
    for (MergePolicySpec s : policies) {
      specs.put(variant(s), s);
    }
    List<Variant> variants = new ArrayList<>(specs.keySet());
    int nv = variants.size();
    int cells =
        Calibration.cells(profile, nv)
            + PairedRounds.cells(profile, nv)
            + DuringFeedRounds.cells(profile, nv);
    long feedDocs = (long) nv * corpus.docs().size() * (1 + profile.rounds());
    Progress progress = new Progress(log, cells, cells * PairedRounds.seconds(profile), feedDocs);
    progress.planChecks(Calibration.checks(profile, nv) + PairedRounds.checks(profile, nv));
    progress.step(
        "plan",
        String.format(
            "merge policies %s beside mutable: %d docs (%s), bulks of %d, %d refeed rounds, %d"
                + " timed cells; output %s; load average %s",
            policies.stream().map(MergePolicySpec::label).toList(),
            corpus.docs().size(),
            corpus.source(),
            batchSize,
            profile.rounds(),
            cells,
            outDir,
            loadBefore));
    List<MergeWindow> windows;
    List<SegmentPoint> timeline;
    List<ResultRow> rows;
    try (LoadGenerator load = new LoadGenerator()) {
      RunContext ctx = new RunContext(profile, outDir, info, progress, load, log, 1);
      PolicyWindows writes = new PolicyWindows(ctx, corpus, batchSize);
      Map<Variant, Session> sessions = new LinkedHashMap<>();
      Servers servers = null;
      try {
        startAll(ctx, variants, specs, sessions);
        Map<Variant, Integer> segments = new LinkedHashMap<>();
        for (Variant v : variants) {
          segments.put(v, firstFeed(ctx, writes, v, sessions.get(v), specs.get(v)));
        }
        for (Map.Entry<Variant, Session> e : sessions.entrySet()) {
          progress.step(Phases.AFTER_FLUSH, e.getKey().label() + ": JIT warm-up");
          e.getValue().warmUp(corpus.queries(), ProcedureRun.jitWarmup(profile));
        }
        servers = Servers.of(sessions, segments);
        ExactSearch exact = new ExactSearch(corpus.docs(), quality, corpus.mapping());
        Calibration calibration =
            new Calibration(
                ctx, corpus, ExperimentRunner.calibrationQueries(corpus, profile), exact, servers);
        calibration.run();
        new PairedRounds(ctx, corpus, quality, exact, servers, calibration).run();
        refeedRounds(ctx, writes, variants, sessions, specs);
        new DuringFeedRounds(ctx, corpus, quality, exact, servers, calibration, batchSize).run();
      } finally {
        if (servers != null) {
          servers.close();
        } else {
          sessions.values().forEach(Session::close);
        }
      }
      windows = writes.windows();
      timeline = writes.timeline();
      rows = ctx.rows();
    }
    if (!keepData) {
      ExperimentRunner.deleteData(outDir.resolve("data"));
    }
    StringBuilder jsonl = new StringBuilder();
    for (ResultRow r : rows) {
      jsonl.append(Json.MAPPER.writeValueAsString(r)).append('\n');
    }
    Files.writeString(outDir.resolve("results.jsonl"), jsonl);
    Files.deleteIfExists(outDir.resolve("results.partial.jsonl"));
    writeJson(windows, timeline);
    double minutes = (System.nanoTime() - t0) / 60e9;
    String loadAfter = loadAverage();
    ObjectNode run = Json.object();
    run.put("job", "merge-policies");
    run.put("profile", profile.name());
    run.put("source", corpus.source());
    run.put("minutes", minutes);
    run.put("bulk_size", batchSize);
    run.put("refresh_interval_ms", refreshIntervalMs == null ? 1000 : refreshIntervalMs);
    run.put("load_average_before", loadBefore);
    run.put("load_average_after", loadAfter);
    run.putPOJO("policies", policies.stream().map(MergePolicySpec::label).toList());
    Files.writeString(outDir.resolve("run.json"), run.toString());
    new MergePolicyReport(outDir)
        .write(
            rows,
            windows,
            timeline,
            new MergePolicyReport.Header(
                profile.name(),
                corpus.source(),
                info,
                minutes,
                batchSize,
                refreshIntervalMs == null ? 1000 : refreshIntervalMs,
                Feeder.ES_THREADS,
                loadBefore,
                loadAfter));
    progress.step(
        "done",
        String.format(
            "%d rows, %d write windows in %.1f min; report %s",
            rows.size(), windows.size(), minutes, outDir.resolve("report.md")));
    return rows;
  }

  /**
   * Starts every variant's server at once (a JVM's start is mostly one thread, and the servers then
   * idle until their feed) and puts each into {@code into} as it comes up, so that the caller stops
   * the ones that started when another fails.
   */
  private void startAll(
      RunContext ctx,
      List<Variant> variants,
      Map<Variant, MergePolicySpec> specs,
      Map<Variant, Session> into)
      throws IOException, InterruptedException {
    ctx.progress.step(Phases.FEED, "starting " + variants.size() + " servers");
    Map<Variant, java.util.concurrent.Future<Session>> started = new LinkedHashMap<>();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(variants.size());
    try {
      for (Variant v : variants) {
        started.put(v, pool.submit(() -> start(ctx, v, specs.get(v))));
      }
      Exception failed = null;
      for (Map.Entry<Variant, java.util.concurrent.Future<Session>> e : started.entrySet()) {
        try {
          into.put(e.getKey(), e.getValue().get());
        } catch (java.util.concurrent.ExecutionException x) {
          if (failed == null) {
            failed = x.getCause() instanceof Exception c ? c : x;
          }
        }
      }
      if (failed instanceof IOException io) {
        throw io;
      }
      if (failed != null) {
        throw new IOException("starting the servers failed", failed);
      }
    } finally {
      pool.shutdown();
    }
  }

  /** Starts a variant's server: the mutable store, or the segmented store with the policy. */
  private Session start(RunContext ctx, Variant v, MergePolicySpec spec)
      throws IOException, InterruptedException {
    ServerOptions.Builder b = Servers.optionsOf(ctx, corpus, v).toBuilder();
    if (spec != null) {
      b.mergePolicyFlags(spec.serveFlags());
      if (refreshIntervalMs != null) {
        b.refreshIntervalMs(refreshIntervalMs);
      }
    }
    String dir = spec == null ? v.label() : spec.directoryName();
    Session s =
        Session.start(
            b.build(),
            ctx.dataDir(dir),
            profile.serverHeap(),
            ctx.serverLog(dir),
            ctx.load,
            corpus.mapping());
    ctx.cpuSource(v.label(), s.cpu.source());
    return s;
  }

  /**
   * Creates the index and feeds it 0 → N (then force-merges a policy that does not merge); returns
   * the segment count its queries start at, null for the mutable store.
   */
  private Integer firstFeed(
      RunContext ctx, PolicyWindows writes, Variant v, Session s, MergePolicySpec spec)
      throws IOException, InterruptedException {
    int status = s.admin.createIndex(corpus.dimension(), 16, 200, Servers.quantizationOf(ctx, v));
    ctx.progress.step(
        Phases.FEED, v.label() + ": PUT /" + corpus.mapping().index() + " answered " + status);
    FeedStats f = writes.feed(v, s, MergeWindow.FEED, null);
    if (spec != null && spec.forceMerges()) {
      writes.forceMerge(v, s, null);
    }
    Integer n = s.admin.segments();
    ctx.add(Rows.feed(ctx.info, v.label(), Phases.FEED, n, null, f));
    return v.store().equals(Variant.SEGMENTED_STORE) ? n : null;
  }

  /**
   * Refeeds every variant in each of the profile's rounds, the order reversed every other round;
   * one feed row per round and variant, and one per variant over all its rounds.
   */
  private void refeedRounds(
      RunContext ctx,
      PolicyWindows writes,
      List<Variant> variants,
      Map<Variant, Session> sessions,
      Map<Variant, MergePolicySpec> specs)
      throws IOException, InterruptedException {
    Map<Variant, List<FeedStats>> fed = new LinkedHashMap<>();
    for (int round = 1; round <= profile.rounds(); round++) {
      List<Variant> order = new ArrayList<>(variants);
      if (round % 2 == 0) {
        java.util.Collections.reverse(order);
      }
      for (Variant v : order) {
        Session s = sessions.get(v);
        ctx.progress.step(
            Phases.REFEED, String.format("round %d/%d %s", round, profile.rounds(), v.label()));
        FeedStats f = writes.feed(v, s, MergeWindow.REFEED, round);
        MergePolicySpec spec = specs.get(v);
        if (spec != null && spec.forceMerges()) {
          writes.forceMerge(v, s, round);
        }
        fed.computeIfAbsent(v, k -> new ArrayList<>()).add(f);
        ctx.add(
            Rows.feed(ctx.info, v.label(), Phases.REFEED, s.admin.segments(), null, f)
                .withRound(round));
      }
    }
    for (Map.Entry<Variant, List<FeedStats>> e : fed.entrySet()) {
      ctx.add(
          Rows.feed(
              ctx.info,
              e.getKey().label(),
              Phases.REFEED,
              sessions.get(e.getKey()).admin.segments(),
              null,
              FeedStats.sum(e.getValue())));
    }
  }

  /** Writes {@link #POLICIES_FILE} and {@link #TIMELINE_FILE}, in snake case. */
  private void writeJson(List<MergeWindow> windows, List<SegmentPoint> timeline)
      throws IOException {
    com.fasterxml.jackson.databind.ObjectMapper snake =
        Json.MAPPER
            .copy()
            .setPropertyNamingStrategy(
                com.fasterxml.jackson.databind.PropertyNamingStrategies.SNAKE_CASE);
    ObjectNode root = Json.object();
    ArrayNode ps = root.putArray("policies");
    ObjectNode ref = ps.addObject();
    ref.put("label", Variant.MUTABLE.label());
    ref.put("store", Variant.MUTABLE_STORE);
    for (MergePolicySpec s : policies) {
      ObjectNode o = ps.addObject();
      o.put("label", s.label());
      o.put("store", Variant.SEGMENTED_STORE);
      o.put("policy", s.policy().cliName());
      o.putPOJO("settings", s.settings());
      o.putPOJO("serve_flags", s.serveFlags());
      o.put("force_merged_after_each_feed", s.forceMerges());
    }
    root.set("windows", snake.valueToTree(windows));
    Files.writeString(outDir.resolve(POLICIES_FILE), snake.writeValueAsString(root));
    StringBuilder t = new StringBuilder();
    for (SegmentPoint p : timeline) {
      t.append(snake.writeValueAsString(p)).append('\n');
    }
    Files.writeString(outDir.resolve(TIMELINE_FILE), t);
  }

  /** The 1, 5 and 15 minute load averages ({@code /proc/loadavg}), or "unknown". */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" +");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
