package org.searchlab.bench.experiment;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.load.MemorySampler;
import org.searchlab.bench.report.ReportWriter;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;
import org.searchlab.opensearch.OpenSearchConfig;

/**
 * Runs a whole experiment: starts every selected variant's server and feeds it (the force-merged
 * one from a copy of each feed of the segmented index), calibrates the vector and hybrid beams to
 * the recall targets on queries disjoint from the measured ones, measures the query cells in paired
 * rounds with tie-aware recall and overlap against exact search, runs the write phases per store,
 * then the segment-count sweep and the HNSW grid when the profile asks for them; writes {@code
 * results.jsonl} and the report. Single-threaded orchestration; not thread-safe.
 */
public final class ExperimentRunner {
  private final Profile profile;
  private final List<Variant> variants;
  private final Corpus corpus;
  private final Path outDir;
  private final Path home;
  private final PrintStream log;
  private final boolean keepData;
  private final int openSearchNodes;

  /**
   * @param profile sizes and timings
   * @param variants the variants to measure, in any order
   * @param corpus documents and queries (the profile's document count already applied)
   * @param outDir the run's output directory, created if missing
   * @param home the source tree (for the commit id)
   * @param log where the progress line goes
   * @param keepData whether the servers' data directories survive the run
   */
  public ExperimentRunner(
      Profile profile,
      List<Variant> variants,
      Corpus corpus,
      Path outDir,
      Path home,
      PrintStream log,
      boolean keepData) {
    this(profile, variants, corpus, outDir, home, log, keepData, 1);
  }

  /**
   * @param openSearchNodes nodes of each local OpenSearch cluster of the {@code opensearch}
   *     variants: 1 (the benchmark's single node, no replica) or more (one replica)
   */
  public ExperimentRunner(
      Profile profile,
      List<Variant> variants,
      Corpus corpus,
      Path outDir,
      Path home,
      PrintStream log,
      boolean keepData,
      int openSearchNodes) {
    if (openSearchNodes < 1 || openSearchNodes > OpenSearchConfig.MAX_NODES) {
      throw new IllegalArgumentException(
          "OpenSearch nodes "
              + openSearchNodes
              + " is outside [1, "
              + OpenSearchConfig.MAX_NODES
              + "]");
    }
    if (!corpus.mapping().product()) {
      for (Variant v : variants) {
        if (v.store().equals(Variant.OPENSEARCH_STORE)) {
          throw new IllegalArgumentException(
              "variant "
                  + v.label()
                  + ": the OpenSearch variants run the product mapping only; a run on another"
                  + " mapping measures searchlab's stores and Elasticsearch-dialect targets");
        }
      }
    }
    this.openSearchNodes = openSearchNodes;
    this.profile = profile;
    this.variants = List.copyOf(variants);
    this.corpus = corpus;
    this.outDir = outDir;
    this.home = home;
    this.log = log;
    this.keepData = keepData;
  }

  /** Runs everything and returns the rows written to {@code results.jsonl}. */
  public List<ResultRow> run() throws IOException, InterruptedException {
    Files.createDirectories(outDir);
    long t0 = System.nanoTime();
    RunInfo info = RunInfo.detect(home, profile.name(), corpus.docs().size(), corpus.dimension());
    List<BenchQuery> quality =
        corpus.queries().subList(0, Math.min(profile.recallQueries(), corpus.queries().size()));

    int cells = 0;
    double planned = 0;
    long feedDocs = 0;
    int nv = variants.size();
    if (profile.mainPhases()) {
      cells +=
          PairedRounds.cells(profile, nv)
              + FacetedRounds.cells(profile, nv)
              + Calibration.cells(profile, nv);
      planned += cells * PairedRounds.seconds(profile);
      int writeCells = Servers.feeds(variants) * ProcedureRun.cells(profile);
      feedDocs += Servers.feeds(variants) * ProcedureRun.feedDocs(profile, corpus);
      feedDocs += (long) Servers.extraFeeds(profile, variants) * corpus.docs().size();
      cells += writeCells;
      planned += writeCells * ProcedureRun.refeedSeconds(profile);
    }
    // The segment sweep and the HNSW grid set the product index's graph themselves: they run on
    // the product mapping only.
    boolean product = corpus.mapping().product();
    Corpus sweepCorpus = product && profile.sweepDocs() > 0 ? head(profile.sweepDocs()) : null;
    boolean sweep = sweepCorpus != null && !profile.sweepSegments().isEmpty();
    if (sweep) {
      cells += SegmentSweep.cells(profile);
      planned +=
          SegmentSweep.cells(profile) * SegmentSweep.seconds(profile)
              + SegmentSweep.warmupSeconds(profile);
      feedDocs += sweepCorpus.docs().size();
    }
    List<String> gridStores =
        variants.stream()
            .map(Variant::store)
            .filter(s -> s.equals(Variant.MUTABLE_STORE) || s.equals(Variant.SEGMENTED_STORE))
            .distinct()
            .sorted()
            .toList();
    boolean grid = product && profile.gridDocs() > 0;
    if (grid) {
      cells += HnswGrid.cells(gridStores.size());
      planned += HnswGrid.cells(gridStores.size()) * ProcedureRun.seconds(profile);
      feedDocs +=
          (long) gridStores.size()
              * HnswGrid.M.size()
              * HnswGrid.EF_CONSTRUCTION.size()
              * Math.min(profile.gridDocs(), corpus.docs().size());
    }
    Progress progress = new Progress(log, cells, planned, feedDocs);
    if (profile.mainPhases()) {
      progress.planChecks(
          Calibration.checks(profile, nv)
              + PairedRounds.checks(profile, nv)
              + FacetedRounds.checks(profile, nv));
    }
    progress.step(
        "plan",
        String.format(
            "%d docs (%s), %d queries, %d timed cells ≈ %s of measurement; output %s",
            corpus.docs().size(),
            corpus.source(),
            corpus.queries().size(),
            cells,
            Progress.format(planned),
            outDir));

    try (LoadGenerator load = new LoadGenerator();
        MemorySampler memory = new MemorySampler(java.time.Duration.ofSeconds(1))) {
      RunContext ctx =
          new RunContext(profile, outDir, info, progress, load, log, openSearchNodes, memory);
      if (profile.mainPhases()) {
        mainPhases(ctx, quality);
      }
      if (sweep) {
        List<BenchQuery> sweepQuality = sweepCorpus.queries().subList(0, quality.size());
        new SegmentSweep(
                ctx, sweepCorpus, sweepQuality, new ExactSearch(sweepCorpus.docs(), sweepQuality))
            .run();
        if (!keepData) {
          deleteData(ctx.outDir.resolve("data").resolve("sweep"));
        }
      }
      if (grid) {
        Corpus gridCorpus = head(profile.gridDocs());
        List<BenchQuery> gridQuality =
            gridCorpus
                .queries()
                .subList(0, Math.min(profile.recallQueries(), gridCorpus.queries().size()));
        new HnswGrid(ctx, gridCorpus, gridQuality, new ExactSearch(gridCorpus.docs(), gridQuality))
            .run(gridStores);
      }
      if (!keepData) {
        deleteData(outDir.resolve("data"));
      }
      List<ResultRow> rows = ctx.rows();
      writeJsonl(outDir.resolve("results.jsonl"), rows);
      Files.deleteIfExists(outDir.resolve("results.partial.jsonl"));
      double minutes = (System.nanoTime() - t0) / 60e9;
      com.fasterxml.jackson.databind.node.ObjectNode run = Json.object();
      run.put("profile", profile.name());
      run.put("source", corpus.source());
      if (!product) {
        run.put("index", corpus.mapping().describe());
      }
      run.put("minutes", minutes);
      run.putPOJO("variants", variants.stream().map(Variant::label).toList());
      List<String> described = variants.stream().map(v -> describe(v, ctx)).toList();
      run.putPOJO("variant_descriptions", described);
      run.put("refeed_client_niceness", profile.refeedClientNiceness());
      run.put("refeed_rounds", profile.refeedRounds());
      if (profile.serverFeedNiceness() != null) {
        // Only when set: a run with each store's own niceness writes what it always wrote.
        run.put("server_feed_niceness", profile.serverFeedNiceness());
      }
      run.putPOJO("refeed_client_nice", new java.util.TreeMap<>(ctx.refeedClientNice()));
      run.put("server_heaps", profile.heaps().describe());
      run.set("server_memory", memoryPeaks(ctx.memory.peaks()));
      Map<String, org.searchlab.bench.report.VectorSetup> setups = new java.util.LinkedHashMap<>();
      for (Variant v : variants) {
        Map<String, Long> bytes = ctx.vectorBytes().get(v.label());
        if (bytes != null
            && (v.store().equals(Variant.MUTABLE_STORE)
                || v.store().equals(Variant.SEGMENTED_STORE))) {
          setups.put(
              v.label(),
              new org.searchlab.bench.report.VectorSetup(
                  Servers.quantizationOf(ctx, v).flag(), bytes));
        }
      }
      // Kept for `experiment --report-only`, which writes the quantization table from them.
      run.putPOJO("vector_setups", setups);
      Files.writeString(outDir.resolve("run.json"), run.toString());
      new ReportWriter(outDir)
          .write(
              rows,
              profile.name(),
              product ? corpus.source() : corpus.source() + "; " + corpus.mapping().describe(),
              described,
              minutes,
              setups);
      progress.step(
          "done",
          String.format(
              "%d rows in %.1f min; report %s", rows.size(), minutes, outDir.resolve("report.md")));
      return rows;
    }
  }

  /**
   * A variant as the report's header names it: the label, and for engines that are not searchlab's
   * servers what they were (a local OpenSearch cluster's nodes and replicas, a target's address and
   * dialect); for searchlab's stores their vectors (float or int8) and the bytes per vector they
   * reported after the feed.
   */
  private String describe(Variant v, RunContext ctx) {
    if (v.isTarget()) {
      return v.label() + " (target " + v.target().uri() + ", dialect " + v.target().dialect() + ")";
    }
    if (v.store().equals(Variant.OPENSEARCH_STORE)) {
      return v.label()
          + (openSearchNodes == 1
              ? " (embedded OpenSearch 3.5, 1 node)"
              : " (embedded OpenSearch 3.5, " + openSearchNodes + " nodes, 1 replica)");
    }
    Map<String, Long> bytes = ctx.vectorBytes().get(v.label());
    org.searchlab.core.VectorQuantization q = Servers.quantizationOf(ctx, v);
    String vectors =
        q == org.searchlab.core.VectorQuantization.NONE
            ? "float vectors"
            : v.equals(Variant.MUTABLE_BBQ_INLINE)
                ? "bbq vectors and the neighbours' codes in each graph row, floats on the heap"
                    + " for rescoring"
                : q.flag() + " vectors, floats in a mapped file for rescoring";
    return v.label()
        + " ("
        + vectors
        + (bytes == null ? "" : "; bytes per vector " + bytes.toString().replace("=", " "))
        + ")";
  }

  /**
   * The memory peaks of the main phases' servers for {@code run.json}, in bytes, by server (its
   * data directory's name): what each held at most while every variant was up.
   */
  static com.fasterxml.jackson.databind.node.ObjectNode memoryPeaks(
      Map<String, MemorySampler.Peak> peaks) {
    com.fasterxml.jackson.databind.node.ObjectNode out = Json.object();
    peaks.forEach(
        (name, p) -> {
          com.fasterxml.jackson.databind.node.ObjectNode o = out.putObject(name);
          o.put("peak_rss_bytes", p.rss());
          o.put("vm_hwm_bytes", p.highWater());
          o.put("peak_anonymous_bytes", p.anonymous());
          o.put("peak_file_bytes", p.file());
          o.putPOJO(
              "peak_mapped_bytes_by_extension", new java.util.TreeMap<>(p.mappedByExtension()));
          o.put("samples", p.samples());
        });
    return out;
  }

  /**
   * Every variant's server up at once: calibration, the paired rounds, then the write phases of
   * each store (the force-merged copy stopped first).
   */
  private void mainPhases(RunContext ctx, List<BenchQuery> quality)
      throws IOException, InterruptedException {
    List<BenchQuery> calibrationQueries = calibrationQueries(corpus, profile);
    try (Servers servers = Servers.start(ctx, corpus, variants)) {
      measure(ctx, servers, quality, calibrationQueries);
      for (Map.Entry<String, Session> w : servers.writers().entrySet()) {
        new ProcedureRun(ctx, corpus).writes(w.getValue(), w.getKey());
      }
    }
    if (keepData) {
      return;
    }
    for (Variant v : Variant.BUILT_IN) {
      deleteData(ctx.outDir.resolve("data").resolve(v.label()));
    }
  }

  /**
   * Calibration, the paired rounds and the faceted rounds on the running servers. The exact oracle
   * lives only here: built after the feeds and unreachable again before the write phases, whose
   * bodies are encoded per request at 1M documents (at 1M it is about 1.5 GB, beside a corpus of
   * about 3.5 GB, in the runner's 6 GB heap).
   */
  private void measure(
      RunContext ctx,
      Servers servers,
      List<BenchQuery> quality,
      List<BenchQuery> calibrationQueries)
      throws IOException, InterruptedException {
    ExactSearch exact = new ExactSearch(corpus.docs(), quality, corpus.mapping());
    Calibration calibration = new Calibration(ctx, corpus, calibrationQueries, exact, servers);
    calibration.run();
    new PairedRounds(ctx, corpus, quality, exact, servers, calibration).run();
    new FacetedRounds(ctx, corpus, quality, exact, servers).run();
  }

  /**
   * The calibration queries: made like the measured ones but from documents no measured query was
   * made from and with texts no measured query has, so that the settings are not tuned on the
   * queries they are judged by.
   */
  static List<BenchQuery> calibrationQueries(Corpus corpus, Profile profile) {
    java.util.Set<String> usedIds = new java.util.HashSet<>();
    java.util.Set<String> usedTexts = new java.util.HashSet<>();
    for (BenchQuery q : corpus.queries()) {
      usedIds.add(q.sourceId());
      usedTexts.add(q.text());
    }
    List<org.searchlab.core.Document> rest =
        corpus.docs().stream().filter(d -> !usedIds.contains(d.id())).toList();
    List<BenchQuery> out = new ArrayList<>();
    for (BenchQuery q :
        corpus.queriesFrom(
            rest.isEmpty() ? corpus.docs() : rest, 4 * profile.calibrationQueries(), 7L)) {
      if (!usedTexts.contains(q.text()) && !usedIds.contains(q.sourceId())) {
        out.add(q);
        usedTexts.add(q.text());
      }
      if (out.size() == profile.calibrationQueries()) {
        break;
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(
          "no calibration query disjoint from the measured ones: the corpus has "
              + corpus.docs().size()
              + " documents and "
              + corpus.queries().size()
              + " measured queries");
    }
    return out;
  }

  /** The first {@code n} documents, with queries re-sampled from them. */
  private Corpus head(int n) {
    if (n >= corpus.docs().size()) {
      return corpus;
    }
    List<org.searchlab.core.Document> docs = corpus.docs().subList(0, n);
    return new Corpus(
        docs,
        corpus.queriesFrom(docs, corpus.queries().size(), 42L * n),
        corpus.source(),
        corpus.mapping());
  }

  static void writeJsonl(Path file, List<ResultRow> rows) throws IOException {
    StringBuilder jsonl = new StringBuilder();
    for (ResultRow r : rows) {
      jsonl.append(Json.MAPPER.writeValueAsString(r)).append('\n');
    }
    Files.writeString(file, jsonl);
  }

  /** Deletes a data directory tree, deepest entries first; nothing when it is absent. */
  static void deleteData(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
