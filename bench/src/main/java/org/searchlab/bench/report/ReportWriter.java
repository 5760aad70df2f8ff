// Over 500 lines: one report.md, its sections written in the order a reader meets them.
package org.searchlab.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Writes {@code report.md} and its PNG plots for a run's rows (a scale run's through {@link
 * ScaleReport}). Every number in the report comes from a row; a cell that was not measured prints
 * "–". Not thread-safe; one call per run.
 */
public final class ReportWriter {
  /**
   * How far apart two variants' recall@10 may be for a ratio between them to count as at equal
   * recall: 0.005, the tolerance #14 states ("the recall@10 of the two variants differs by at most
   * 0.005"). Where a cell's common recall is above the target, the runner estimates every other
   * variant at the common recall less this, and the report marks a ratio as a bound only when a
   * variant's estimate is further than this below the cell's common recall.
   */
  public static final double EQUAL_RECALL = 0.005;

  /** {@link #EQUAL_RECALL} as the report prints it. */
  static final String EQUAL = String.format(Locale.ROOT, "%.3f", EQUAL_RECALL);

  private static final String[] TYPES = {"lexical", "vector", "hybrid"};
  private static final String MUTABLE = "mutable";

  private final Path dir;

  public ReportWriter(Path dir) {
    this.dir = dir;
  }

  /**
   * Writes the report and plots.
   *
   * @param rows every row of the run
   * @param profile the profile's name
   * @param source where the documents came from
   * @param variants the variants asked for
   * @param minutes how long the run took
   * @return the PNG file names written
   */
  public List<String> write(
      List<ResultRow> rows, String profile, String source, List<String> variants, double minutes)
      throws IOException {
    return write(rows, profile, source, variants, minutes, Map.of());
  }

  /**
   * As {@link #write(List, String, String, List, double)}, with each searchlab store variant's
   * vectors ({@code setups}, by label) for the quantization table.
   */
  public List<String> write(
      List<ResultRow> rows,
      String profile,
      String source,
      List<String> variants,
      double minutes,
      Map<String, VectorSetup> setups)
      throws IOException {
    if (ScaleReport.isScaleRun(rows)) {
      // A scale run's rows are per size: its own report (also from --report-only).
      return new ScaleReport(dir).write(rows, profile, source, variants, minutes);
    }
    RowIndex idx = new RowIndex(rows);
    Plots plots = new Plots(dir, idx);
    List<String> pngs = new ArrayList<>();
    List<String> saturation = new ArrayList<>();
    for (String t : TYPES) {
      addIfPresent(saturation, plots.saturation(t));
    }
    pngs.addAll(saturation);
    String perCore = plots.qpsPerCore();
    String sweep = plots.sweep();
    String writes = plots.writes();
    String grid = plots.grid();
    for (String p : new String[] {perCore, sweep, writes, grid}) {
      addIfPresent(pngs, p);
    }
    for (String t : new String[] {"vector", "hybrid"}) {
      for (boolean filtered : new boolean[] {false, true}) {
        addIfPresent(pngs, plots.recallCurve(t, filtered));
      }
    }

    StringBuilder md = new StringBuilder();
    ResultRow any = rows.isEmpty() ? null : rows.get(0);
    md.append("# searchlab experiment: ").append(profile).append(" profile\n\n");
    if (any != null) {
      md.append(
          String.format(
              Locale.ROOT,
              "- Machine: %d cores, %s; JDK %s, transparent huge pages %s; commit `%s`%n- Corpus:"
                  + " %d documents, %d-d embeddings, %s%n- Variants: %s; run time %s%n",
              any.machine().cores(),
              any.machine().cpuModel(),
              any.jdk(),
              any.machine().transparentHugePages() ? "on" : "off",
              any.commit(),
              any.docs(),
              any.dim(),
              source,
              String.join(", ", variants),
              minutes > 0 ? String.format(Locale.ROOT, "%.1f min", minutes) : "not recorded"));
    }
    md.append(
        "- Every server ran alone as a child JVM on loopback; the closed-loop load generator ran in"
            + " the runner's JVM on the same cores, and other processes may have shared the"
            + " machine. CPU is the server process's own CPU time (/proc/<pid>/stat) over each"
            + " cell, less its JIT compiler threads (a one-off cost of a freshly started server);"
            + " a local OpenSearch cluster's is the sum over its node JVMs, read the same way, and"
            + " an external target's is what the engine reports (_nodes/stats) or none where it"
            + " cannot be read (the cpu_source of each row says which)."
            + " Compare ratios measured side by side in this run, not absolute numbers.\n"
            + "- Method: every variant's server was started once (fed, flushed; the force-merged"
            + " one from a copy of each feed of the segmented index) and kept up; the query cells"
            + " ran in paired"
            + " rounds, each round measuring a cell for every variant back to back, the variant"
            + " order reversed every other round. A cell's QPS and QPS/core are the median over"
            + " rounds with a distribution-free interval (the order-statistic interval of the"
            + " median, ≥ 95% coverage from 6 rounds, [min, max] with its coverage stated below 6);"
            + " a ratio's interval is the same interval over the per-round ratios, and a finding"
            + " states a direction only when that interval excludes 1.0."
            + feedsMethod(idx)
            + "\n"
            + "- Quality: recall@10 and overlap@10 are tie-aware: a returned document counts as"
            + " correct when its exact score (BM25, closeness, or their hybrid sum, from the exact"
            + " oracle) is at least the exact 10th score within a relative 1e-5 (float summation"
            + " order); two answers share a document when both return it or when they return"
            + " different documents of equal exact score (paired one to one). The id-based"
            + " measures (what the benchmark computed) are the _ids columns.\n"
            + "- Vector and hybrid cells ran at the smallest beam (num_candidates, Vespa targetHits"
            + " + exploreAdditionalHits) whose tie-aware recall@10 on calibration queries disjoint"
            + " from the measured ones reached the target, then moved along the grid to the"
            + " smallest beam at which the measured queries reach it, each feed on its own (see"
            + " Calibration); a run with"
            + " --fixed-candidates sends the benchmark's k = num_candidates = 100. At the"
            + " curve's client count each round also measures the beam below the calibrated one,"
            + " and the ratios at exactly the target interpolate QPS and server cores"
            + " log-linearly in measured recall@10 between the two (Ratios); the findings use"
            + " them for the vector and hybrid cells, so that two variants are compared at the"
            + " same recall rather than at whichever grid beam first passed it.\n"
            + ProfileNotes.keptAndDropped(profile)
            + "\n");

    md.append("## What this run shows\n\n").append(new Findings(idx).paragraph()).append("\n\n");

    md.append("## Plots\n\n");
    for (String p : pngs) {
      md.append("- [").append(p).append("](").append(p).append(")\n");
    }
    md.append('\n');
    for (String p : pngs) {
      md.append("![").append(p).append("](").append(p).append(")\n\n");
    }

    new CalibrationSection(idx).write(md);
    new EngineSection(idx).write(md);
    writesSection(md, idx);
    queryTables(md, idx);
    facetsSection(md);
    ratioTables(md, idx, setups);
    refeedSection(md, idx);
    sweepSection(md, idx);
    gridSection(md, idx);
    md.append(CorpusRealism.section(dir));
    failuresSection(md, idx);
    md.append(ProfileNotes.majorFaults(idx));
    Files.writeString(dir.resolve("report.md"), md);
    return pngs;
  }

  /**
   * Every cell with failed requests and what the first one got, so that a reader need not take the
   * cause from the server's log. Absent when nothing failed.
   */
  private static void failuresSection(StringBuilder md, RowIndex idx) {
    List<ResultRow> failed =
        idx.all().stream()
            .filter(r -> r.isQueryCell() && r.round() == null)
            .filter(
                r ->
                    (r.errors() != null && r.errors() > 0)
                        || (r.clientRetries() != null && r.clientRetries() > 0))
            .toList();
    if (failed.isEmpty()) {
      return;
    }
    md.append("## Failed requests\n\n")
        .append(
            "Query cells in which requests failed, or had to be sent twice because the JDK HTTP"
                + " client lost the server's answer on a reused connection (its own race; the"
                + " second answer is timed from the first send). Latencies and QPS leave the"
                + " failures out. A summary row adds up its rounds. Rejected documents of the feeds"
                + " are in the writes table.\n\n")
        .append("| variant | phase | query | clients | failed | sent twice | the first failure |\n")
        .append("|---|---|---|---:|---:|---:|---|\n");
    for (ResultRow r : failed) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %d | %d | %d | %s |%n",
              r.variant(),
              r.phase(),
              r.queryType() + (Boolean.TRUE.equals(r.filtered()) ? " filtered" : ""),
              r.clients(),
              r.errors(),
              r.clientRetries() == null ? 0 : r.clientRetries(),
              r.firstError() == null
                  ? "–"
                  : "`"
                      + r.firstError().replace('`', '\'').replace('|', '/').replace('\n', ' ')
                      + "`"));
    }
    md.append('\n');
  }

  private static void addIfPresent(List<String> l, String s) {
    if (s != null) {
      l.add(s);
    }
  }

  /**
   * The method line's sentence on independent feeds of the default segmented index, empty when the
   * rounds measured one.
   */
  static String feedsMethod(RowIndex idx) {
    List<Integer> counts = idx.roundSegments("segmented");
    if (counts.size() <= 1) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        " The default segmented index was fed %d times, each feed on its own server (%s"
            + " segments): the structure a feed leaves depends on when its refreshes and"
            + " background merges happen, so round r measured feed (r - 1) mod %d, and the"
            + " intervals of ratios against it include the variation between feeds. The"
            + " force-merged variant ran on a copy of each feed merged to one segment, taken in"
            + " turn the same way. Each feed ran at its own beam: from the calibrated one, along"
            + " the grid to the smallest at which that feed's measured queries reach the"
            + " target; where a cell's"
            + " feeds ran at different beams, its candidates list them per feed (·), and its"
            + " recall@10 is the lowest over the feeds. The calibration curve and the write"
            + " phases use the first feed.",
        counts.size(),
        counts.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")),
        counts.size());
  }

  /** The phase of the mutable store's feed through the segmented store's {@code _bulk} client. */
  static final String FEED_SAME_CLIENT = "feed_same_client";

  private void writesSection(StringBuilder md, RowIndex idx) {
    List<ResultRow> feeds = idx.all().stream().filter(r -> !r.isQueryCell()).toList();
    if (feeds.isEmpty()) {
      return;
    }
    md.append("## Writes\n\n")
        .append(
            "| variant | phase | docs | seconds | docs/s | server cores | docs/s per core | client cores | segments after | rejected |\n")
        .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (ResultRow r : feeds) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d | %.1f | %.0f | %s | %s | %s | %s | %d |%n",
              r.variant(),
              r.phase(),
              r.requests(),
              r.seconds(),
              r.docsPerSec(),
              cores(r.cpuCores()),
              r.docsPerSecPerCore() == null
                  ? "–"
                  : String.format(Locale.ROOT, "%.0f", r.docsPerSecPerCore()),
              r.clientCores() == null ? "–" : cores(r.clientCores()),
              r.segments() == null ? "–" : r.segments(),
              r.errors()));
    }
    String seg = idx.feed("segmented", "feed").isPresent() ? "segmented" : "segmented-forcemerged";
    if (idx.feed(MUTABLE, "feed").isPresent() && idx.feed(seg, "feed").isPresent()) {
      md.append("\nWrite ratios, mutable ÷ ")
          .append(seg)
          .append(" (above 1 favours mutable):\n\n")
          .append("| phase | docs/s ratio | docs/s per core ratio |\n|---|---:|---:|\n");
      for (String p :
          new String[] {"feed", FEED_SAME_CLIENT, "refeed", "update", "refeed_with_queries"}) {
        Optional<ResultRow> m = idx.feed(MUTABLE, p);
        // The same-client feed is the mutable store's feed again, through the segmented store's
        // own _bulk client: it is compared with the segmented store's feed.
        Optional<ResultRow> s = idx.feed(seg, p.equals(FEED_SAME_CLIENT) ? "feed" : p);
        if (m.isPresent() && s.isPresent()) {
          md.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %s | %s |%n",
                  p,
                  ratio(m.get().docsPerSec(), s.get().docsPerSec()),
                  ratio(m.get().docsPerSecPerCore(), s.get().docsPerSecPerCore())));
        }
      }
      if (idx.feed(MUTABLE, FEED_SAME_CLIENT).isPresent()) {
        md.append(
            "\n`feed` sends the mutable store one `/document/v1` request per document with"
                + " Vespa's feed client, as the benchmark fed Vespa, and the segmented store"
                + " `_bulk` requests of 6,000 documents. Both clients run in the runner, on the"
                + " cores the servers are measured on: `client cores` is the runner's own JVM over"
                + " the feed (the client's threads, its JIT compiler and collector), CPU the server"
                + " could not have, which the server's docs/s per core leaves out and its docs/s"
                + " does not. `"
                + FEED_SAME_CLIENT
                + "` is the mutable store fed again 0→N on a fresh server through the same `_bulk`"
                + " client and bodies as the segmented store, and compared with the segmented"
                + " store's `feed`.\n");
      }
    }
    md.append('\n');
  }

  /**
   * The faceted query type's section ({@code facets.md}, written by the run's faceted cells): the
   * facets, each variant's state and bucket exactness, and where faceting time goes.
   */
  private void facetsSection(StringBuilder md) throws IOException {
    Path facets = dir.resolve(FACETS_SECTION);
    if (Files.exists(facets)) {
      md.append(Files.readString(facets));
    }
  }

  /** The file of the faceted section, which the experiment's faceted cells write. */
  static final String FACETS_SECTION = "facets.md";

  /** The faceted query type's label in results. */
  static final String FACETED = "faceted";

  /** The benchmark's query types, and the faceted one where the run measured it. */
  private static List<String> types(RowIndex idx) {
    List<String> out = new ArrayList<>(List.of(TYPES));
    if (idx.all().stream().anyMatch(r -> r.isQueryCell() && FACETED.equals(r.queryType()))) {
      out.add(FACETED);
    }
    return out;
  }

  private void queryTables(StringBuilder md, RowIndex idx) {
    md.append("## Queries after flush (and after force-merge)\n\n");
    for (String t : types(idx)) {
      for (boolean filtered : new boolean[] {false, true}) {
        md.append("### ")
            .append(t)
            .append(filtered ? ", filtered" : "")
            .append("\n\n")
            .append(
                "| variant | clients | candidates | QPS | avg ms | p50 ms | p95 ms | p99 ms | p99.9 ms | server cores | QPS/core [interval] | recall@10 | recall@10 ids | overlap@10 | overlap@10 ids | errors |\n")
            .append(
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String v : idx.queryVariants()) {
          for (int c : idx.clients()) {
            idx.main(v, t, filtered, c)
                .ifPresent(
                    r ->
                        md.append(
                            String.format(
                                Locale.ROOT,
                                "| %s | %d | %s | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %d |%n",
                                v,
                                c,
                                candidates(idx, r),
                                r.qps(),
                                r.avgMs(),
                                r.p50Ms(),
                                r.p95Ms(),
                                r.p99Ms(),
                                r.p999Ms(),
                                cores(r.cpuCores()),
                                perCore(r),
                                num(r.recallAt10()),
                                num(r.recallAt10Ids()),
                                num(r.overlapAt10()),
                                num(r.overlapAt10Ids()),
                                r.errors())));
          }
        }
        md.append('\n');
      }
    }
  }

  private void ratioTables(StringBuilder md, RowIndex idx, Map<String, VectorSetup> setups) {
    if (!idx.queryVariants().contains(MUTABLE)) {
      return;
    }
    md.append("## Ratios\n\n")
        .append(
            "Throughput ratio = mutable ÷ segmented; latency ratio = segmented ÷ mutable. Above 1")
        .append(" favours mutable, below 1 favours the segmented variant. Each cell is the median")
        .append(" of the per-round ratios with its interval in brackets")
        .append(coverageNote(idx))
        .append(".\n\n")
        .append(ProfileNotes.addRounds(idx, new Ratios(idx)));
    List<Double> targets =
        idx.targets().isEmpty() ? java.util.Collections.singletonList(null) : idx.targets();
    Ratios ratios = new Ratios(idx);
    for (int ti = 0; ti < targets.size(); ti++) {
      Double target = targets.get(ti);
      String at =
          target == null
              ? " (fixed k = num_candidates = 100)"
              : String.format(Locale.ROOT, " at recall@10 ≥ %.2f", target);
      boolean first = ti == 0;
      atTargetTables(md, idx, ratios, target);
      shortFeeds(md, idx, target);
      quantizationTable(md, idx, ratios, target, setups);
      QuantizedArchitectures.write(md, idx, ratios, target, idx.queryVariants());
      for (String seg : idx.queryVariants()) {
        if (seg.equals(MUTABLE)) {
          continue;
        }
        ratioTable(
            md,
            idx,
            ratios,
            seg,
            target,
            first,
            "QPS per core ratio (mutable ÷ " + seg + ")" + at,
            ResultRow::qpsPerCore,
            true);
        if (!first) {
          continue;
        }
        ratioTable(
            md,
            idx,
            ratios,
            seg,
            target,
            true,
            "Throughput ratio, QPS (mutable ÷ " + seg + ")" + at,
            ResultRow::qps,
            true);
        ratioTable(
            md,
            idx,
            ratios,
            seg,
            target,
            true,
            "Average latency ratio (" + seg + " ÷ mutable)" + at,
            ResultRow::avgMs,
            false);
        ratioTable(
            md,
            idx,
            ratios,
            seg,
            target,
            true,
            "p99 latency ratio (" + seg + " ÷ mutable)" + at,
            ResultRow::p99Ms,
            false);
      }
    }
  }

  /**
   * The ratios at exactly a recall target, mutable ÷ each other variant, and per variant the two
   * beams each estimate came from: the cells of one round at the calibrated beam and at the beam
   * below it, interpolated log-linearly in their measured recall@10.
   */
  private void atTargetTables(StringBuilder md, RowIndex idx, Ratios ratios, Double target) {
    List<ResultRow> at = target == null ? List.of() : idx.atTarget(target);
    List<ResultRow> estimates = target == null ? List.of() : idx.estimates(target);
    if (at.isEmpty()) {
      return;
    }
    int c = at.get(0).clients();
    List<String> others = idx.queryVariants().stream().filter(v -> !v.equals(MUTABLE)).toList();
    md.append(
            String.format(
                Locale.ROOT,
                "### QPS per core ratio at recall@10 = %.2f (mutable ÷ each variant, %d clients)\n\n",
                target,
                c))
        .append(
            "At equal recall: each round's QPS and server cores at exactly the recall its cell"
                + " is compared at, interpolated log-linearly in measured recall@10 between that"
                + " round's cells at the calibrated beam and at the beam below it; the median of the"
                + " per-round ratios [interval]. The common recall is the target, unless a"
                + " variant already passed it at the grid's smallest beam (k cannot go below 10,"
                + " nor a hybrid's below 100): then it is the highest recall measured there, and"
                + " every other variant is moved up the grid to within "
                + EQUAL
                + " of it and estimated there (second table). ≥ marks a ratio whose other variant"
                + " came within "
                + EQUAL
                + " of the common recall at no beam of the grid (it ran at the one where its recall"
                + " was highest) while mutable did: at equal recall the other variant would need a"
                + " larger beam still, so the ratio is at least that; ≤ marks the reverse, ≈ both"
                + " below it.\n\n| query | ");
    for (String o : others) {
      md.append(o).append(" | ");
    }
    md.append("\n|---|").append("---:|".repeat(others.size())).append('\n');
    for (String t : List.of("vector", "hybrid")) {
      for (boolean filtered : new boolean[] {false, true}) {
        md.append("| ").append(t).append(filtered ? " filtered" : "").append(" | ");
        for (String o : others) {
          String bound = bound(estimates, o, t, filtered, target);
          md.append(
                  ratios
                      .atTarget(MUTABLE, o, t, filtered, c, target, ResultRow::qpsPerCore)
                      .map(x -> bound + Ratios.format(x))
                      .orElse("–"))
              .append(" | ");
        }
        md.append('\n');
      }
    }
    List<String> raised = raisedCells(estimates, target);
    if (!raised.isEmpty()) {
      md.append(
              "\nCommon recall above the target (a variant passed it at the grid's smallest beam;"
                  + " every other one is estimated within "
                  + EQUAL
                  + " of what that variant measured): ")
          .append(String.join(", ", raised))
          .append(".\n");
    }
    md.append(
        "\n| variant | query | beam below → calibrated | recall@10 at them | estimate at recall@10"
            + " | QPS/core [interval] |\n|---|---|---|---|---:|---:|\n");
    for (ResultRow r : at) {
      Optional<ResultRow> below =
          idx.queries(r.variant(), RowIndex.BELOW_BEAM, r.queryType(), r.filtered(), target)
              .filter(x -> x.round() == null)
              .findFirst();
      Optional<ResultRow> beam =
          idx.queries(
                  r.variant(), RowIndex.mainPhase(r.variant()), r.queryType(), r.filtered(), target)
              .filter(x -> x.round() == null && x.clients() != null && x.clients() == c)
              .findFirst();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s%s | %s → %s | %s → %s | %.3f | %s |\n",
              r.variant(),
              r.queryType(),
              Boolean.TRUE.equals(r.filtered()) ? " filtered" : "",
              below.map(x -> beams(idx, x)).orElse("–"),
              beam.map(x -> beams(idx, x)).orElse("?"),
              below.map(x -> fmt3(x.recallAt10())).orElse("–"),
              beam.map(x -> fmt3(x.recallAt10())).orElse("?"),
              r.recallAt10(),
              qpsPerCoreCell(r)));
    }
    md.append('\n');
  }

  /** The beams (candidates) a summary row's feeds ran at, joined by " · " where they differ. */
  private static String beams(RowIndex idx, ResultRow r) {
    return idx.roundCandidates(r).stream()
        .map(x -> x.substring(x.indexOf('/') + 1))
        .collect(java.util.stream.Collectors.joining(" · "));
  }

  /**
   * Names the independent feeds whose index stayed below the recall target at the grid's largest
   * beam, and says that ratios leave their rounds out (see {@link Ratios}); nothing when every feed
   * reached it.
   */
  static void shortFeeds(StringBuilder md, RowIndex idx, Double target) {
    if (target == null) {
      return;
    }
    List<String> parts = new ArrayList<>();
    for (String v : idx.queryVariants()) {
      for (String t : List.of("vector", "hybrid")) {
        for (boolean filtered : new boolean[] {false, true}) {
          Optional<ResultRow> summary =
              idx.queries(v, RowIndex.mainPhase(v), t, filtered, target)
                  .filter(r -> r.round() == null && r.clients() != null)
                  .findFirst();
          if (summary.isEmpty()) {
            continue;
          }
          List<ResultRow> feeds = idx.feedRows(summary.get());
          for (int i = 0; i < feeds.size(); i++) {
            ResultRow r = feeds.get(i);
            if (!Ratios.reached(r)) {
              parts.add(
                  String.format(
                      Locale.ROOT,
                      "%s %s%s%s (recall@10 %.3f at candidates %d)",
                      v,
                      t,
                      filtered ? " filtered" : "",
                      feeds.size() > 1 ? ", feed " + (i + 1) : "",
                      r.recallAt10(),
                      r.numCandidates()));
            }
          }
        }
      }
    }
    if (parts.isEmpty()) {
      return;
    }
    md.append(
        String.format(
            Locale.ROOT,
            "**Below the target at the grid's largest beam:** %s. A ratio at recall@10 %.2f"
                + " compares cells at that recall, so the ratios against such a cell use only"
                + " the rounds on the variant's other feeds; where no feed reached the"
                + " target, the at-target ratio is marked as a bound (≥). The cell's own QPS row still"
                + " includes every round.\n\n",
            String.join("; ", parts),
            target));
  }

  /** A row's QPS per core with its interval where it has one, "–" without a value. */
  private static String qpsPerCoreCell(ResultRow r) {
    if (r.qpsPerCore() == null) {
      return "–";
    }
    return r.qpsPerCoreLow() == null
        ? String.format(Locale.ROOT, "%.0f", r.qpsPerCore())
        : String.format(
            Locale.ROOT, "%.0f [%.0f–%.0f]", r.qpsPerCore(), r.qpsPerCoreLow(), r.qpsPerCoreHigh());
  }

  /**
   * Per searchlab store variant, when any of them quantized: its vectors, bytes per vector, the
   * memory the graph search needs against its float peer's, recall@10 at the calibrated setting,
   * QPS per core at exactly the target and, where the float peer ran too, the ratio to it; and its
   * feed time, which includes the graph build.
   */
  private void quantizationTable(
      StringBuilder md,
      RowIndex idx,
      Ratios ratios,
      Double target,
      Map<String, VectorSetup> setups) {
    if (target == null || setups.values().stream().allMatch(v -> v.quantization().equals("none"))) {
      return;
    }
    List<ResultRow> at = idx.atTarget(target);
    int c = at.isEmpty() ? 16 : at.get(0).clients();
    md.append(
            String.format(
                Locale.ROOT, "### Quantization at recall@10 = %.2f (%d clients)\n\n", target, c))
        .append(
            "Bytes per vector as each store reported them after its feed. \"search memory\" is"
                + " what the graph search reads at every step and so needs in memory: the floats"
                + " without quantization; quantized, the codes (and, for the mutable store, the"
                + " floats' heap stamps), the floats staying in a mapped file (page cache) read"
                + " only to rescore candidates (the runner asks for the whole beam) and by the"
                + " build. \"÷ float\""
                + " compares with the same store's float variant in this run (memory: the ratio of"
                + " search memory; QPS/core: the median of the per-round ratios at the target)."
                + " Recall@10 is the measured queries' at the calibrated setting. Feed is the"
                + " 0→N feed's wall time, graph build included.\n\n"
                + "| variant | vectors | bytes per vector | search memory | ÷ float |"
                + " recall@10 vector / filtered | QPS/core vector | ÷ float | feed s |\n"
                + "|---|---|---|---:|---:|---|---:|---:|---:|\n");
    for (Map.Entry<String, VectorSetup> e : setups.entrySet()) {
      String v = e.getKey();
      VectorSetup setup = e.getValue();
      String peer = RowIndex.floatPeer(v);
      VectorSetup peerSetup = peer == null ? null : setups.get(peer);
      Long search = setup.searchBytes();
      Long peerSearch = peerSetup == null ? null : peerSetup.searchBytes();
      String recall =
          recallAtSetting(idx, v, false, target, c)
              + " / "
              + recallAtSetting(idx, v, true, target, c);
      Optional<ResultRow> estimate =
          at.stream()
              .filter(
                  r ->
                      v.equals(r.variant())
                          && "vector".equals(r.queryType())
                          && !Boolean.TRUE.equals(r.filtered()))
              .findFirst();
      String qps = estimate.map(ReportWriter::qpsPerCoreCell).orElse("–");
      String qpsVsFloat =
          peer == null
              ? "–"
              : ratios
                  .atTarget(v, peer, "vector", false, c, target, ResultRow::qpsPerCore)
                  .map(Ratios::format)
                  .orElse("–");
      String feed =
          idx.feed(v, "feed")
              .map(r -> r.seconds() == null ? "–" : String.format(Locale.ROOT, "%.1f", r.seconds()))
              .orElse("–");
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
              v,
              setup.quantization().equals("none") ? "float" : setup.quantization(),
              new java.util.TreeMap<>(setup.bytesPerVector()).toString().replace("=", " "),
              search == null ? "–" : search.toString(),
              search == null || peerSearch == null || peerSearch == 0
                  ? "–"
                  : String.format(Locale.ROOT, "%.0f%%", 100.0 * search / peerSearch),
              recall,
              qps,
              qpsVsFloat,
              feed));
    }
    md.append('\n');
  }

  /** The measured queries' recall@10 of a vector cell at its calibrated setting, or "–". */
  private static String recallAtSetting(
      RowIndex idx, String variant, boolean filtered, double target, int clients) {
    return idx.queries(variant, RowIndex.mainPhase(variant), "vector", filtered, target)
        .filter(x -> x.round() == null && x.clients() != null && x.clients() == clients)
        .findFirst()
        .map(x -> fmt3(x.recallAt10()))
        .orElse("–");
  }

  /**
   * "≥ " when {@code other}'s estimate stayed more than {@link #EQUAL_RECALL} below the cell's
   * common recall ({@link #cellRecall}; it did not get there on the grid) while mutable's did not,
   * "≤ " for the reverse, "≈ " when both stayed below, else "": two estimates within {@link
   * #EQUAL_RECALL} of the common recall are within it of each other.
   */
  static String bound(
      List<ResultRow> at, String other, String type, boolean filtered, double target) {
    return bound(at, MUTABLE, other, type, filtered, target);
  }

  /**
   * {@link #bound} of the ratio {@code variant ÷ other}, for a mutable variant other than mutable.
   */
  static String bound(
      List<ResultRow> at,
      String variant,
      String other,
      String type,
      boolean filtered,
      double target) {
    Double mutable = estimateRecall(at, variant, type, filtered);
    Double them = estimateRecall(at, other, type, filtered);
    if (mutable == null || them == null) {
      return "";
    }
    // The estimate of a variant that got to the recall its cell compares at is that recall, up to
    // rounding.
    double floor = cellRecall(at, type, filtered, target) - EQUAL_RECALL - 1e-6;
    boolean mutableShort = mutable < floor;
    boolean themShort = them < floor;
    if (themShort && mutableShort) {
      return "≈ ";
    }
    return themShort ? "≥ " : mutableShort ? "≤ " : "";
  }

  /**
   * The recall@10 a cell's variants are compared at: the target, or the highest estimate when one
   * is above it (pass the rounds' rows too, {@code RowIndex.estimates}: a summary row merges a
   * variant's feeds). The runner raises a cell's common recall to what a feed measured at the
   * grid's smallest beam when that passes the target (such a feed cannot be estimated lower), and
   * moves every other feed up to within {@link #EQUAL_RECALL} of it; an estimate further below is
   * one that did not get there on the grid.
   */
  static double cellRecall(List<ResultRow> at, String type, boolean filtered, double target) {
    double goal = target;
    for (ResultRow r : at) {
      if (type.equals(r.queryType())
          && filtered == Boolean.TRUE.equals(r.filtered())
          && r.recallAt10() != null) {
        goal = Math.max(goal, r.recallAt10());
      }
    }
    return goal;
  }

  /**
   * "vector filtered at 0.983–0.988" for each vector or hybrid cell whose common recall ({@link
   * #cellRecall}) less {@link #EQUAL_RECALL} is above the target: the runner estimated the cell's
   * variants in that range rather than at the target.
   */
  static List<String> raisedCells(List<ResultRow> at, double target) {
    List<String> raised = new ArrayList<>();
    for (String t : List.of("vector", "hybrid")) {
      for (boolean filtered : new boolean[] {false, true}) {
        double common = cellRecall(at, t, filtered, target);
        if (common - EQUAL_RECALL > target + 1e-6) {
          raised.add(
              String.format(
                  Locale.ROOT,
                  "%s%s at %.3f–%.3f",
                  t,
                  filtered ? " filtered" : "",
                  common - EQUAL_RECALL,
                  common));
        }
      }
    }
    return raised;
  }

  private static Double estimateRecall(
      List<ResultRow> at, String variant, String type, boolean filtered) {
    return at.stream()
        .filter(
            r ->
                variant.equals(r.variant())
                    && type.equals(r.queryType())
                    && filtered == Boolean.TRUE.equals(r.filtered()))
        .map(ResultRow::recallAt10)
        .filter(java.util.Objects::nonNull)
        .findFirst()
        .orElse(null);
  }

  private static String fmt3(Double d) {
    return d == null ? "?" : String.format(Locale.ROOT, "%.3f", d);
  }

  private void ratioTable(
      StringBuilder md,
      RowIndex idx,
      Ratios ratios,
      String seg,
      Double target,
      boolean withLexical,
      String title,
      Function<ResultRow, Double> metric,
      boolean mutableOverSegmented) {
    md.append("### ").append(title).append("\n\n| query | ");
    List<Integer> clients = idx.clients();
    for (int c : clients) {
      md.append(c).append(" cl | ");
    }
    md.append("\n|---|").append("---:|".repeat(clients.size())).append('\n');
    for (String t : types(idx)) {
      if (!withLexical && (t.equals("lexical") || t.equals(FACETED))) {
        continue;
      }
      for (boolean filtered : new boolean[] {false, true}) {
        md.append("| ").append(t).append(filtered ? " filtered" : "").append(" | ");
        for (int c : clients) {
          String a = mutableOverSegmented ? MUTABLE : seg;
          String b = mutableOverSegmented ? seg : MUTABLE;
          md.append(
                  ratios
                      .ratio(a, b, t, filtered, c, target, metric)
                      .map(Ratios::format)
                      .orElse("–"))
              .append(" | ");
        }
        md.append('\n');
      }
    }
    md.append('\n');
  }

  private void refeedSection(StringBuilder md, RowIndex idx) {
    List<ResultRow> during =
        idx.all().stream()
            .filter(r -> r.isQueryCell() && r.phase().equals("during_refeed"))
            .toList();
    if (during.isEmpty()) {
      return;
    }
    boolean adjacent = during.stream().anyMatch(r -> idx.sameCellBeforeRefeed(r).isPresent());
    md.append("## Filtered queries during refeed\n\n")
        .append(
            adjacent
                ? "Before: the same cell (queries, clients, window) measured on the same server just"
                    + " before the refeed started. With several rounds (`--refeed-rounds`; the"
                    + " standard profile runs 3, run.json gives the number) the two sides"
                    + " alternate, and each row pools its cell's latencies over the rounds. Vector and hybrid cells here send the"
                    + " benchmark's k = num_candidates = 100, not the calibrated beam. The"
                    + " runner's feed client ran at the niceness of `--refeed-client-nice`"
                    + " (default nice 19; run.json gives the value it had), so that it takes from"
                    + " the cores only what the server and the query clients leave. Refeed"
                    + " docs/s: what the engine acknowledged over that cell, its warm-up included;"
                    + " a writer that yields to searches (the mutable store's, at nice 19 unless"
                    + " `--feed-niceness` set another, which run.json then gives as"
                    + " `server_feed_niceness`) runs fastest beside the fewest clients.\n\n"
                : "Before: the query phase's cell (median over its rounds, at its calibrated"
                    + " beam).\n\n")
        .append(
            "| variant | query | clients | QPS before | QPS during | p99 ms before | p99 ms during | p99 during ÷ before | server cores during | refeed docs/s |\n")
        .append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (ResultRow r : during) {
      Optional<ResultRow> before = idx.beforeRefeed(r);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d | %s | %.0f | %s | %.2f | %s | %.2f | %s |%n",
              r.variant(),
              r.queryType(),
              r.clients(),
              before.map(b -> String.format(Locale.ROOT, "%.0f", b.qps())).orElse("–"),
              r.qps(),
              before.map(b -> String.format(Locale.ROOT, "%.2f", b.p99Ms())).orElse("–"),
              r.p99Ms(),
              before
                  .filter(b -> b.p99Ms() > 0)
                  .map(b -> String.format(Locale.ROOT, "%.2f×", r.p99Ms() / b.p99Ms()))
                  .orElse("–"),
              r.cpuCores(),
              r.refeedDocsPerSec() == null
                  ? "–"
                  : String.format(Locale.ROOT, "%.0f", r.refeedDocsPerSec())));
    }
    md.append('\n');
  }

  private void sweepSection(StringBuilder md, RowIndex idx) throws IOException {
    new SweepSection(dir, idx).write(md);
  }

  private void gridSection(StringBuilder md, RowIndex idx) {
    List<ResultRow> grid = idx.all().stream().filter(r -> r.phase().equals("grid")).toList();
    if (grid.isEmpty()) {
      return;
    }
    md.append("## HNSW parameter grid (unfiltered top-10 vector queries, 1 client)\n\n")
        .append(
            "| variant | M | efConstruction | ef | recall@10 | QPS | avg ms | p99 ms | QPS/core |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (ResultRow r : grid) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %d | %s | %.0f | %.2f | %.2f | %.0f |%n",
              r.variant(),
              r.hnswM(),
              r.hnswEfConstruction(),
              r.ef(),
              num(r.recallAt10()),
              r.qps(),
              r.avgMs(),
              r.p99Ms(),
              r.qpsPerCore()));
    }
    md.append('\n');
  }

  /** How many rounds the intervals come from and their coverage of the median. */
  private static String coverageNote(RowIndex idx) {
    return idx.all().stream()
        .filter(r -> r.isQueryCell() && r.round() == null && r.rounds() != null)
        .findFirst()
        .map(
            r ->
                String.format(
                    Locale.ROOT,
                    " (%d rounds: order-statistic intervals that cover the median"
                        + " with probability %.1f%%)",
                    r.rounds(),
                    100 * r.intervalCoverage()))
        .orElse("");
  }

  /**
   * "k/candidates" of a vector or hybrid summary row, one per independent feed joined by " · " when
   * its feeds ran at different beams; "–" for lexical.
   */
  static String candidates(RowIndex idx, ResultRow r) {
    return r.numCandidates() == null || r.queryType().equals("lexical")
        ? "–"
        : String.join(" · ", idx.roundCandidates(r));
  }

  /** "k/candidates" of a vector or hybrid row, "–" for lexical. */
  static String candidates(ResultRow r) {
    return r.numCandidates() == null || r.queryType().equals("lexical")
        ? "–"
        : r.targetHits() + "/" + r.numCandidates();
  }

  /** QPS per core with the interval over rounds when there is one. */
  static String perCore(ResultRow r) {
    if (r.qpsPerCore() == null) {
      return "–"; // the server's CPU could not be read (cpu_source none)
    }
    if (r.qpsPerCoreLow() == null || r.rounds() == null || r.rounds() < 2) {
      return String.format(Locale.ROOT, "%.0f", r.qpsPerCore());
    }
    return String.format(
        Locale.ROOT, "%.0f [%.0f–%.0f]", r.qpsPerCore(), r.qpsPerCoreLow(), r.qpsPerCoreHigh());
  }

  static String ratio(Double a, Double b) {
    if (a == null || b == null || b == 0 || a == 0) {
      return "–";
    }
    return String.format(Locale.ROOT, "%.2f", a / b);
  }

  /** Cores with two decimals, or "–" where the CPU was not read. */
  static String cores(Double d) {
    return d == null ? "–" : String.format(Locale.ROOT, "%.2f", d);
  }

  static String num(Double d) {
    return d == null ? "–" : String.format(Locale.ROOT, "%.3f", d);
  }
}
