// Just over 500 lines: one orchestration whose steps per size (feed, force-merged copy, oracle,
// calibration, rounds and profiles, memory, probe) share the grown servers and the run's state;
// the steps that stand alone are classes of their own (ScaleProbes, CellProfiles, RestartProbe).
package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.load.MemorySampler;
import org.searchlab.bench.report.ReportWriter;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;
import org.searchlab.core.Document;

/**
 * {@code experiment --scale N1,N2,…} (or {@code --profile scale}): how each store's cost grows with
 * the document count (design-68 §4.2). One mutable and one segmented server are started once and
 * grown through the sizes, ascending: at each size N_i
 *
 * <ol>
 *   <li>both are fed documents [N_{i−1}, N_i) through {@code _bulk} with the same client and bodies
 *       (so that the two feeds compare the stores, not their clients), then the merges the feed
 *       started settle and the index is refreshed and flushed. Rows {@value Phases#SCALE_FEED} (the
 *       interval's docs/s per core) and {@value Phases#SCALE_FEED_CUMULATIVE} (0 → N_i: the
 *       intervals summed, a feed with pauses), each with the segments at the end;
 *   <li>the exact oracle is built over the first N_i documents: IDF moves with N, so every size's
 *       exact answers are its own;
 *   <li>the force-merged variant's server of the previous size is stopped and a copy of the plain
 *       index (taken while its server is idle after the commit, as {@link Servers} does) is started
 *       and force-merged to one segment: row {@value Phases#FORCE_MERGE}, its seconds and server
 *       cores;
 *   <li>{@link Calibration} runs again on this size's servers (beams grow with N) and
 *   <li>{@link PairedRounds} measures the cells at {@link Profile#scaleClients}, so that its {@code
 *       at_target} rows come out with {@code docs} = N_i, as every row of the size does;
 *   <li>each server's memory is read: its store's own accounting by part ({@link StoreMemory}) and
 *       its peak resident set over the size from the {@link MemorySampler};
 *   <li>at the sizes {@link ScaleProbes} names (every size by default), the restart and memory
 *       probe ({@link RestartProbe}) of the mutable and the segmented measurement servers, not of
 *       the force-merged copy: each is stopped, opened in a probe JVM and read, and started again;
 *       the run carries on with the restarted servers, which are warmed again before the next
 *       size's cells. The check's base is the first size probed.
 * </ol>
 *
 * The plain servers stay up for the next size; the force-merged one is replaced. Writes {@code
 * results.jsonl}, {@value #SCALE_FILE} (rewritten after each size, so an interrupted run keeps its
 * sizes), {@code run.json} with the same {@code scale} section, and the report ({@link
 * ReportWriter} writes a scale run's). The vector rows carry the stores' visited vectors per search
 * ({@link PairedRounds}), and each measured server's profile of one extra cell per query type at
 * each size ({@link CellProfiles}: where its CPU went, for the report's sentences on why a cost
 * grows; §4.2 step 7). Single-threaded orchestration; not thread-safe.
 */
public final class ScaleRun {
  /** The file of the scale section: sizes, and per size each server's memory. */
  public static final String SCALE_FILE = "scale.json";

  private static final List<Variant> SUPPORTED =
      List.of(Variant.MUTABLE, Variant.SEGMENTED, Variant.SEGMENTED_FORCEMERGED);

  private final Profile profile;
  private final List<Variant> variants;
  private final Corpus corpus;
  private final Path outDir;
  private final Path home;
  private final PrintStream log;
  private final boolean keepData;
  private ScaleProbes probes = ScaleProbes.everySize(1000);

  /** The profiled cells' window, and the sizes profiled (null: every size). */
  private java.time.Duration profileCell;

  private List<Integer> profiledSizes;

  /** The grown stores' checks' bases: each one's probe at the first size probed. */
  private final Map<Variant, RestartProbe.Result> probeBase = new LinkedHashMap<>();

  /** The grown stores restarted by a probe, whose JIT is cold until they are warmed again. */
  private final java.util.Set<Variant> restarted = new java.util.HashSet<>();

  /**
   * @param profile a profile with {@link Profile#scaleSizes}; its clients are replaced by {@link
   *     Profile#scaleClients}
   * @param variants among mutable, segmented and segmented-forcemerged (the force-merged one alone
   *     still grows a segmented index to copy)
   * @param corpus at least the largest size's documents, and the queries
   * @param outDir the run's output directory, created if missing
   * @param home the source tree (for the commit id)
   * @param log where the progress line goes
   * @param keepData whether the servers' data directories survive the run
   * @throws IllegalArgumentException naming the variant or size the run cannot use
   */
  public ScaleRun(
      Profile profile,
      List<Variant> variants,
      Corpus corpus,
      Path outDir,
      Path home,
      PrintStream log,
      boolean keepData) {
    if (profile.scaleSizes().isEmpty()) {
      throw new IllegalArgumentException("a scale run needs sizes (--scale)");
    }
    int largest = profile.scaleSizes().getLast();
    if (largest > corpus.docs().size()) {
      throw new IllegalArgumentException(
          "scale size "
              + largest
              + " is above the corpus's "
              + corpus.docs().size()
              + " documents");
    }
    checkVariants(variants);
    this.profile = profile;
    this.variants = SUPPORTED.stream().filter(variants::contains).toList();
    this.corpus = corpus;
    this.outDir = outDir;
    this.home = home;
    this.log = log;
    this.keepData = keepData;
  }

  /**
   * Sets which sizes get the restart and memory probe and its warm queries (default: every size,
   * 1,000 warm queries per type); returns this runner.
   *
   * @throws IllegalArgumentException naming a probe size that is not one of the run's sizes
   */
  public ScaleRun probing(ScaleProbes plan) {
    plan.check(profile.scaleSizes());
    this.probes = plan;
    return this;
  }

  /**
   * Sets the profiled cells ({@link CellProfiles}): their window (default: the profile's, at least
   * {@link CellProfiles#MIN_DURATION}; {@link java.time.Duration#ZERO} profiles nothing) and the
   * sizes profiled (null: every size); returns this runner.
   *
   * @throws IllegalArgumentException naming a size that is not one of the run's sizes
   */
  public ScaleRun profiling(java.time.Duration cell, List<Integer> sizes) {
    if (sizes != null) {
      for (int n : sizes) {
        if (!profile.scaleSizes().contains(n)) {
          throw new IllegalArgumentException(
              "profiled size " + n + " is not one of the run's sizes " + profile.scaleSizes());
        }
      }
    }
    this.profileCell = cell;
    this.profiledSizes = sizes == null ? null : List.copyOf(sizes);
    return this;
  }

  /**
   * Refuses variants a scale run cannot grow, naming the first.
   *
   * @throws IllegalArgumentException when one is not mutable, segmented or segmented-forcemerged,
   *     or there is none
   */
  public static void checkVariants(List<Variant> variants) {
    for (Variant v : variants) {
      if (!SUPPORTED.contains(v)) {
        throw new IllegalArgumentException(
            "variant "
                + v.label()
                + " does not run in a scale job; it grows mutable, segmented and"
                + " segmented-forcemerged");
      }
    }
    if (variants.isEmpty()) {
      throw new IllegalArgumentException("a scale run needs at least one variant");
    }
  }

  /** Runs every size and returns the rows written to {@code results.jsonl}. */
  public List<ResultRow> run() throws IOException, InterruptedException {
    Files.createDirectories(outDir);
    long t0 = System.nanoTime();
    List<Integer> sizes = profile.scaleSizes();
    RunInfo info = RunInfo.detect(home, profile.name(), sizes.getLast(), corpus.dimension());
    Profile sized = profile.toBuilder().clients(List.of(profile.scaleClients())).build();
    List<BenchQuery> quality =
        corpus.queries().subList(0, Math.min(sized.recallQueries(), corpus.queries().size()));
    int nv = variants.size();
    int cells = sizes.size() * (Calibration.cells(sized, nv) + PairedRounds.cells(sized, nv));
    boolean growsMutable = variants.contains(Variant.MUTABLE);
    boolean growsSegmented = nv > (growsMutable ? 1 : 0);
    long feedDocs = (long) sizes.getLast() * ((growsMutable ? 1 : 0) + (growsSegmented ? 1 : 0));
    Progress progress = new Progress(log, cells, cells * PairedRounds.seconds(sized), feedDocs);
    progress.planChecks(
        sizes.size() * (Calibration.checks(sized, nv) + PairedRounds.checks(sized, nv)));
    progress.step(
        "plan",
        String.format(
            "scale %s of %s, %s at %d clients; %d timed cells ≈ %s of measurement; output %s",
            sizes,
            corpus.source(),
            profile.scaleTypes().stream().map(QueryType::label).toList(),
            profile.scaleClients(),
            cells,
            Progress.format(cells * PairedRounds.seconds(sized)),
            outDir));
    ObjectNode scale = Json.object();
    scale.putPOJO("sizes", sizes);
    scale.put("clients", profile.scaleClients());
    scale.putPOJO("types", profile.scaleTypes().stream().map(QueryType::label).toList());
    scale.put("probe", describe(probes, sizes));
    ArrayNode perSize = scale.putArray("per_size");
    List<ResultRow> rows = new ArrayList<>();
    Map<String, MemorySampler.Peak> wholeRun;
    try (LoadGenerator load = new LoadGenerator();
        MemorySampler memory = new MemorySampler(Duration.ofSeconds(1));
        Grown grown = new Grown()) {
      RunContext first =
          new RunContext(
              sized, outDir, info.withDocs(sizes.get(0)), progress, load, log, 1, memory);
      if (growsMutable) {
        grown.mutable = start(first, Variant.MUTABLE);
      }
      if (growsSegmented) {
        grown.segmented = start(first, Variant.SEGMENTED);
      }
      int from = 0;
      for (int n : sizes) {
        RunContext ctx =
            new RunContext(
                sized.toBuilder().docs(n).build(),
                outDir,
                info.withDocs(n),
                progress,
                load,
                log,
                1,
                memory);
        measureSize(ctx, grown, from, n, quality, perSize.addObject());
        rows.addAll(ctx.rows());
        Files.writeString(outDir.resolve(SCALE_FILE), scale.toPrettyString());
        from = n;
      }
      wholeRun = memory.peaks();
    }
    if (!keepData) {
      ExperimentRunner.deleteData(outDir.resolve("data"));
    }
    ExperimentRunner.writeJsonl(outDir.resolve("results.jsonl"), rows);
    Files.deleteIfExists(outDir.resolve("results.partial.jsonl"));
    double minutes = (System.nanoTime() - t0) / 60e9;
    ObjectNode run = Json.object();
    run.put("job", "scale");
    run.put("profile", profile.name());
    run.put("source", corpus.source());
    run.put("minutes", minutes);
    List<String> labels = variants.stream().map(Variant::label).toList();
    run.putPOJO("variants", labels);
    run.putPOJO("variant_descriptions", labels);
    run.put("server_heaps", profile.heaps().describe());
    run.set("server_memory", ExperimentRunner.memoryPeaks(wholeRun));
    run.set("scale", scale);
    Files.writeString(outDir.resolve("run.json"), run.toString());
    new ReportWriter(outDir).write(rows, profile.name(), corpus.source(), labels, minutes);
    progress.step(
        "done",
        String.format(
            "%d rows in %.1f min; report %s", rows.size(), minutes, outDir.resolve("report.md")));
    return rows;
  }

  /** What the scale section says of the probe plan. */
  private static String describe(ScaleProbes plan, List<Integer> sizes) {
    if (plan.off(sizes)) {
      return "restart and memory probe: not run (no size probed)";
    }
    List<Integer> probed = sizes.stream().filter(n -> plan.probes(n, sizes)).toList();
    return String.format(
        "restart and memory probe at %s documents, %d warm queries per type; base %,d",
        probed, plan.warmQueriesPerType(), probed.get(0));
  }

  /** The servers grown through the sizes, and the force-merged copy of the current size. */
  private static final class Grown implements AutoCloseable {
    Session mutable;
    Session segmented;
    Session merged;

    @Override
    public void close() {
      for (Session s : new Session[] {merged, segmented, mutable}) {
        if (s != null) {
          s.close();
        }
      }
    }
  }

  /** Starts a variant's server on its data directory and creates the empty index. */
  private Session start(RunContext ctx, Variant v) throws IOException, InterruptedException {
    Session s = Servers.server(ctx, corpus, v, v.label());
    int status = s.admin.createIndex(corpus.dimension(), 16, 200, Servers.quantizationOf(ctx, v));
    ctx.progress.step(
        Phases.SCALE_FEED,
        v.label() + ": PUT /" + corpus.mapping().index() + " answered " + status);
    return s;
  }

  /** One size: grow, copy and merge, calibrate, measure, account. */
  private void measureSize(
      RunContext ctx, Grown grown, int from, int n, List<BenchQuery> quality, ObjectNode node)
      throws IOException, InterruptedException {
    boolean firstSize = from == 0;
    node.put("docs", n);
    ObjectNode servers = node.putObject("servers");
    Corpus upTo =
        new Corpus(
            corpus.docs().subList(0, n), corpus.queries(), corpus.source(), corpus.mapping());
    Map<Variant, Session> running = new LinkedHashMap<>();
    if (grown.mutable != null) {
      running.put(Variant.MUTABLE, grown.mutable);
    }
    if (grown.segmented != null) {
      running.put(Variant.SEGMENTED, grown.segmented);
    }
    for (Map.Entry<Variant, Session> e : running.entrySet()) {
      watch(ctx, e.getKey(), e.getValue(), n);
    }
    // 1. Feed the interval to every grown store, the same slice object (its _bulk bodies are
    // encoded once, Feeder.BulkBodies).
    List<Document> slice = corpus.docs().subList(from, n);
    Map<Variant, Integer> segments = new LinkedHashMap<>();
    for (Map.Entry<Variant, Session> e : running.entrySet()) {
      segments.put(e.getKey(), grow(ctx, e.getKey(), e.getValue(), slice, n));
    }
    // 3. The force-merged copy of this size's plain index.
    Double mergeSeconds = null;
    if (variants.contains(Variant.SEGMENTED_FORCEMERGED)) {
      mergeSeconds = forceMergedCopy(ctx, grown, upTo, n);
      running.put(Variant.SEGMENTED_FORCEMERGED, grown.merged);
      segments.put(Variant.SEGMENTED_FORCEMERGED, grown.merged.admin.segments());
    }
    Map<Variant, Session> measured = new LinkedHashMap<>();
    for (Variant v : variants) {
      measured.put(v, running.get(v));
      // A server a probe restarted at the previous size is as cold as a new one.
      if (firstSize || v.forceMerged() || restarted.remove(v)) {
        ctx.progress.step(PairedRounds.phaseOf(v), v.label() + ": JIT warm-up");
        running
            .get(v)
            .warmUp(corpus.queries(), profile.scaleTypes(), ProcedureRun.jitWarmup(ctx.profile));
      }
    }
    // 2. The exact oracle of this size.
    ExactSearch exact = new ExactSearch(upTo.docs(), quality, corpus.mapping());
    // 4 and 5. Calibration and paired rounds, on servers this run owns (Servers.of does not close
    // them here: Grown does at the end).
    Servers on = Servers.of(measured, segments);
    Calibration calibration =
        new Calibration(
            ctx, upTo, ExperimentRunner.calibrationQueries(corpus, ctx.profile), exact, on);
    calibration.run(profile.scaleTypes());
    PairedRounds rounds = new PairedRounds(ctx, upTo, quality, exact, on, calibration);
    CellProfiles cellProfiles = null;
    if (profiles(n)) {
      cellProfiles =
          new CellProfiles(
              ctx.outDir.resolve("profiles").resolve(Integer.toString(n)),
              ctx.log,
              keepData,
              profileCell == null ? CellProfiles.duration(ctx.profile) : profileCell);
      rounds.profiling(cellProfiles);
    }
    rounds.run(profile.scaleTypes());
    for (Map.Entry<Variant, Session> e : running.entrySet()) {
      Variant v = e.getKey();
      StoreMemory m = StoreMemory.of(v.store(), e.getValue().admin.stats());
      MemorySampler.Peak peak = ctx.memory.unwatch(watchName(v, n));
      ObjectNode s = servers.putObject(v.label());
      s.put("store", v.store());
      s.put("tier", m.tier());
      s.put("measured", variants.contains(v));
      if (cellProfiles != null && variants.contains(v)) {
        s.set("profile", cellProfiles.json(v));
      }
      if (segments.get(v) != null) {
        s.put("segments", segments.get(v));
      }
      if (v.forceMerged() && mergeSeconds != null) {
        s.put("force_merge_seconds", mergeSeconds);
      }
      s.putPOJO("parts_bytes", m.parts());
      s.putPOJO("bytes_per_doc", m.perDocument(n));
      s.put("total_bytes", m.total());
      s.putPOJO("reported_bytes", m.reported());
      if (peak != null) {
        s.put("peak_rss_bytes", peak.rss());
        s.put("vm_hwm_bytes", peak.highWater());
        s.put("peak_anonymous_bytes", peak.anonymous());
        s.put("peak_file_bytes", peak.file());
      }
      ctx.progress.step(
          "memory",
          String.format(
              "%s at %,d docs: %s bytes/doc by part, %,d bytes in all%s",
              v.label(),
              n,
              m.perDocument(n).entrySet().stream()
                  .map(
                      x ->
                          String.format(java.util.Locale.ROOT, "%s %.0f", x.getKey(), x.getValue()))
                  .toList(),
              m.total(),
              peak == null ? "" : String.format(", peak RSS %,d", peak.rss())));
    }
    // 8. The restart and memory probe of each grown store, after its memory above was read from
    // the measurement server (design-68 §5.4); the force-merged copy is not probed.
    if (probes.probes(n, profile.scaleSizes())) {
      if (grown.mutable != null) {
        grown.mutable = probe(ctx, Variant.MUTABLE, grown.mutable, n, servers);
      }
      if (grown.segmented != null) {
        grown.segmented = probe(ctx, Variant.SEGMENTED, grown.segmented, n, servers);
      }
    }
  }

  /**
   * Feeds {@code slice} to a grown store, waits for its merges, refreshes and flushes; adds the
   * interval's and the cumulative feed rows and returns the segments at the end.
   */
  private Integer grow(RunContext ctx, Variant v, Session s, List<Document> slice, int n)
      throws IOException, InterruptedException {
    ctx.progress.step(
        Phases.SCALE_FEED,
        String.format(
            "%s: feeding documents %,d to %,d through _bulk", v.label(), n - slice.size(), n));
    FeedStats f =
        s.bulkFeeder(Feeder.ES_BATCH)
            .feed(slice, FeedOp.PUT, s.cpu)
            .requireComplete(
                String.format(
                    "%s: the feed of documents %,d to %,d", v.label(), n - slice.size(), n));
    ctx.progress.fed(f.docs(), f.seconds());
    s.admin.refresh();
    double merging = s.admin.awaitMerges(Servers.MERGE_SETTLE);
    if (merging > 0) {
      s.admin.refresh();
    }
    s.admin.flush();
    Integer segments = s.admin.segments();
    feeds.computeIfAbsent(v, k -> new ArrayList<>()).add(f);
    FeedStats cumulative = FeedStats.sum(feeds.get(v));
    ctx.add(Rows.feed(ctx.info, v.label(), Phases.SCALE_FEED, segments, null, f));
    ctx.add(
        Rows.feed(ctx.info, v.label(), Phases.SCALE_FEED_CUMULATIVE, segments, null, cumulative));
    ctx.progress.step(
        Phases.SCALE_FEED,
        String.format(
            "%s: %s; 0 → %,d: %.0f docs/s/core; segments %s%s",
            v.label(),
            ProcedureRun.describe(f),
            n,
            cumulative.docsPerSecPerCore(),
            segments,
            merging > 0 ? String.format(", merges settled %.1f s after the feed", merging) : ""));
    return segments;
  }

  /** Every feed interval of each grown store so far, for the cumulative rows. */
  private final Map<Variant, List<FeedStats>> feeds = new LinkedHashMap<>();

  /**
   * Replaces the force-merged server by one on a copy of the plain index at this size, merged to
   * one segment; adds the {@value Phases#FORCE_MERGE} row and returns the merge's seconds.
   */
  private double forceMergedCopy(RunContext ctx, Grown grown, Corpus upTo, int n)
      throws IOException, InterruptedException {
    Variant fm = Variant.SEGMENTED_FORCEMERGED;
    if (grown.merged != null) {
      grown.merged.close();
      grown.merged = null;
    }
    ExperimentRunner.deleteData(ctx.outDir.resolve("data").resolve(fm.label()));
    Servers.copyTree(ctx.dataDir(Variant.SEGMENTED.label()), ctx.dataDir(fm.label()));
    grown.merged = Servers.server(ctx, upTo, fm, fm.label());
    watch(ctx, fm, grown.merged, n);
    ctx.progress.step(Phases.FORCE_MERGE, fm.label() + ": force-merging a copy to 1 segment");
    long cpu0 = grown.merged.cpu.cpuNanos();
    long t0 = System.nanoTime();
    grown.merged.admin.forceMerge(1);
    grown.merged.admin.refresh();
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cores = seconds > 0 ? (grown.merged.cpu.cpuNanos() - cpu0) / 1e9 / seconds : 0;
    Integer segments = grown.merged.admin.segments();
    ctx.add(
        Rows.feed(
            ctx.info,
            fm.label(),
            Phases.FORCE_MERGE,
            segments,
            null,
            new FeedStats(n, 0, seconds, cores)));
    ctx.progress.step(
        Phases.FORCE_MERGE,
        String.format(
            "%s: %,d docs force-merged in %.1f s at %.2f cores, segments %s",
            fm.label(), n, seconds, cores, segments));
    return seconds;
  }

  /** Whether size {@code n}'s cells are profiled. */
  private boolean profiles(int n) {
    return (profileCell == null || !profileCell.isZero())
        && (profiledSizes == null || profiledSizes.contains(n));
  }

  /** {@link ScaleProbes#probe} of a grown store; marks it cold for the next size. */
  private Session probe(RunContext ctx, Variant v, Session s, int n, ObjectNode servers)
      throws IOException, InterruptedException {
    Session back =
        probes.probe(ctx, corpus, v, s, n, (ObjectNode) servers.get(v.label()), probeBase);
    restarted.add(v);
    return back;
  }

  /** Watches a server's memory under a name of its own for this size. */
  private static void watch(RunContext ctx, Variant v, Session s, int n) {
    s.serverPid().ifPresent(pid -> ctx.memory.watch(watchName(v, n), pid));
  }

  private static String watchName(Variant v, int n) {
    return v.label() + "@" + n;
  }
}
