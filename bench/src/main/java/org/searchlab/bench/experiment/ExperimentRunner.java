package org.searchlab.bench.experiment;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.report.ReportWriter;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;

/**
 * Runs a whole experiment: loads the corpus, computes exact top-10s, runs the benchmark's procedure
 * for each selected variant (one server at a time; the segmented variants share one server, the
 * force-merged one measured after the other), then the segment-count sweep and the HNSW grid when
 * the profile asks for them; computes overlap@10 between variants; writes {@code results.jsonl} and
 * the report. Single-threaded orchestration; not thread-safe.
 */
public final class ExperimentRunner {
  private final Profile profile;
  private final List<Variant> variants;
  private final Corpus corpus;
  private final Path outDir;
  private final Path home;
  private final PrintStream log;
  private final boolean keepData;

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

    List<List<Variant>> families = families();
    int cells = 0;
    if (profile.mainPhases()) {
      for (List<Variant> f : families) {
        cells += ProcedureRun.cells(profile, f);
      }
    }
    double planned = cells * ProcedureRun.seconds(profile);
    Corpus sweepCorpus = profile.sweepDocs() > 0 ? head(profile.sweepDocs()) : null;
    boolean sweep = sweepCorpus != null && !profile.sweepSegments().isEmpty();
    if (sweep) {
      cells += SegmentSweep.cells(profile);
      planned += SegmentSweep.cells(profile) * SegmentSweep.seconds(profile);
    }
    List<String> gridStores = families.stream().map(f -> f.get(0).store()).distinct().toList();
    boolean grid = profile.gridDocs() > 0;
    if (grid) {
      cells += HnswGrid.cells(gridStores.size());
      planned += HnswGrid.cells(gridStores.size()) * ProcedureRun.seconds(profile);
    }
    Progress progress = new Progress(log, cells, planned);
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

    try (LoadGenerator load = new LoadGenerator()) {
      RunContext ctx = new RunContext(profile, outDir, info, progress, load, log);
      Map<String, List<List<String>>> returned = new HashMap<>();
      if (profile.mainPhases()) {
        progress.step("exact", "exact top-10 for " + quality.size() + " quality queries");
        ExactSearch exact = new ExactSearch(corpus.docs(), quality);
        Map<String, List<List<String>>> truth = ProcedureRun.exactTopTen(exact, quality);
        for (List<Variant> f : families) {
          new ProcedureRun(ctx, corpus, quality, truth, returned).run(f);
          deleteData(ctx.outDir.resolve("data").resolve(f.get(0).store()));
        }
        ctx.replaceAll(withOverlap(ctx.rows(), returned));
        // Overlap exists only in memory: write the rows now so an interrupted sweep keeps it.
        writeJsonl(outDir.resolve("results.partial.jsonl"), ctx.rows());
      }
      if (sweep) {
        List<BenchQuery> sweepQuality = sweepCorpus.queries().subList(0, quality.size());
        progress.step("exact", "exact top-10 over the sweep corpus");
        Map<String, List<List<String>>> truth =
            ProcedureRun.exactTopTen(
                new ExactSearch(sweepCorpus.docs(), sweepQuality), sweepQuality);
        new SegmentSweep(ctx, sweepCorpus, sweepQuality, truth).run();
        deleteData(ctx.outDir.resolve("data").resolve("sweep"));
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
      run.put("minutes", minutes);
      run.putPOJO("variants", variants.stream().map(Variant::label).toList());
      Files.writeString(outDir.resolve("run.json"), run.toString());
      new ReportWriter(outDir)
          .write(
              rows,
              profile.name(),
              corpus.source(),
              variants.stream().map(Variant::label).toList(),
              minutes);
      progress.step(
          "done",
          String.format(
              "%d rows in %.1f min; report %s", rows.size(), minutes, outDir.resolve("report.md")));
      return rows;
    }
  }

  /** The variants grouped by the server they run on, mutable first. */
  private List<List<Variant>> families() {
    List<List<Variant>> out = new ArrayList<>();
    if (variants.contains(Variant.MUTABLE)) {
      out.add(List.of(Variant.MUTABLE));
    }
    List<Variant> segmented =
        variants.stream().filter(v -> v.store().equals("segmented")).distinct().sorted().toList();
    if (!segmented.isEmpty()) {
      out.add(segmented);
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
        docs, Corpus.sampleQueries(docs, corpus.queries().size(), 42L * n), corpus.source());
  }

  /**
   * Sets overlap@10 on the query rows measured after flush or merge: the segmented variants against
   * {@code mutable}, {@code mutable} against {@code segmented} (or the force-merged one when only
   * that ran).
   */
  private List<ResultRow> withOverlap(List<ResultRow> rows, Map<String, List<List<String>>> ids) {
    List<ResultRow> out = new ArrayList<>(rows.size());
    for (ResultRow r : rows) {
      boolean measured =
          r.isQueryCell()
              && (r.phase().equals(Phases.AFTER_FLUSH) || r.phase().equals(Phases.AFTER_MERGE));
      if (!measured) {
        out.add(r);
        continue;
      }
      QueryType t = QueryType.valueOf(r.queryType().toUpperCase(java.util.Locale.ROOT));
      List<List<String>> mine = ids.get(ProcedureRun.key(r.variant(), t, r.filtered()));
      List<List<String>> other = null;
      for (Variant ref :
          r.variant().equals(Variant.MUTABLE.label())
              ? List.of(Variant.SEGMENTED, Variant.SEGMENTED_FORCEMERGED)
              : List.of(Variant.MUTABLE)) {
        other = ids.get(ProcedureRun.key(ref.label(), t, r.filtered()));
        if (other != null) {
          break;
        }
      }
      Double overlap = mine == null || other == null ? null : Quality.overlap(mine, other, 10);
      out.add(r.withQuality(r.recallAt10(), overlap));
    }
    return out;
  }

  private static void writeJsonl(Path file, List<ResultRow> rows) throws IOException {
    StringBuilder jsonl = new StringBuilder();
    for (ResultRow r : rows) {
      jsonl.append(Json.MAPPER.writeValueAsString(r)).append('\n');
    }
    Files.writeString(file, jsonl);
  }

  private static void deleteData(Path dir) throws IOException {
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
