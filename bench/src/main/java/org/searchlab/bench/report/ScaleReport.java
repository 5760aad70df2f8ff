package org.searchlab.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The report of a scale run ({@code experiment --scale}): how each store's cost grows with the
 * document count. Its tables come from the rows ({@link ScaleSection} for CPU per query, ratios and
 * slopes; the feed and force-merge rows) and from the run's scale section ({@code scale.json}, or
 * {@code run.json}'s {@code scale}) for memory per document and the restart and memory probe
 * ({@link ScaleProbeTables}), so that {@code --report-only} renders it again from the run directory
 * alone. Not thread-safe; one call per run.
 */
final class ScaleReport {
  /** The scale section's file, as the runner writes it. */
  static final String SCALE_FILE = "scale.json";

  private final Path dir;

  ScaleReport(Path dir) {
    this.dir = dir;
  }

  /** Whether {@code rows} are a scale run's: it alone writes feed rows per size. */
  static boolean isScaleRun(List<ResultRow> rows) {
    return rows.stream().anyMatch(r -> ScalePlots.SCALE_FEED.equals(r.phase()));
  }

  /** The scale section of the run directory, or an empty object when it has none. */
  JsonNode scaleSection() throws IOException {
    ObjectMapper json = new ObjectMapper();
    Path file = dir.resolve(SCALE_FILE);
    if (Files.exists(file)) {
      return json.readTree(file.toFile());
    }
    Path run = dir.resolve("run.json");
    if (Files.exists(run)) {
      JsonNode s = json.readTree(run.toFile()).path("scale");
      if (s.isObject()) {
        return s;
      }
    }
    return json.createObjectNode();
  }

  /** Writes {@code report.md} and the plots; returns the PNG names. */
  List<String> write(
      List<ResultRow> rows, String profile, String source, List<String> variants, double minutes)
      throws IOException {
    JsonNode scale = scaleSection();
    ResultRow headline =
        rows.stream()
            .filter(r -> r.isQueryCell() && RowIndex.AT_TARGET.equals(r.phase()))
            .findFirst()
            .orElse(null);
    int clients = headline != null ? headline.clients() : scale.path("clients").asInt(16);
    Double target = headline == null ? null : headline.recallTarget();
    ScaleSection section = new ScaleSection(rows, clients, target);
    ScalePlots plots = new ScalePlots(dir);
    List<String> pngs = new ArrayList<>();
    for (String type : List.of("lexical", "vector", "hybrid")) {
      add(pngs, plots.cpu(section, type));
    }
    add(pngs, plots.ratios(section));
    add(pngs, plots.feed(rows));
    add(pngs, plots.memory(scale));
    add(pngs, plots.segments(rows));
    add(pngs, plots.forceMerge(rows));
    add(pngs, plots.restart(scale));

    StringBuilder md = new StringBuilder();
    md.append("# searchlab experiment: scale run (").append(profile).append(" profile)\n\n");
    if (!rows.isEmpty()) {
      ResultRow any = rows.get(0);
      md.append(
          String.format(
              Locale.ROOT,
              "- Machine: %d cores, %s; JDK %s; commit `%s`%n- Corpus: %s, %d-d embeddings;"
                  + " sizes %s%n- Variants: %s; run time %s%n",
              any.machine().cores(),
              any.machine().cpuModel(),
              any.jdk(),
              any.commit(),
              source,
              any.dim(),
              section.sizes(),
              String.join(", ", variants),
              minutes > 0 ? String.format(Locale.ROOT, "%.1f min", minutes) : "not recorded"));
    }
    md.append(
        "- Method: one mutable and one segmented server grown through the sizes, ascending, each"
            + " interval fed through _bulk with the same client and bodies, the merges settled,"
            + " refreshed and flushed; at each size a force-merged copy of the segmented index,"
            + " the exact oracle over that size's documents, the recall calibration again, then"
            + " paired rounds at "
            + clients
            + " clients. Vector and hybrid costs are the per-round estimates at exactly the recall"
            + " target; lexical costs are the rounds as measured. A slope is the least-squares"
            + " slope of ln(CPU per query) on ln(documents): the median of the per-round slopes"
            + " with its order-statistic interval, and the slope through the per-size medians."
            + " Visited per query is the vectors a store scored per vector search at the"
            + " calibrated beam (its counters' difference over the cell, pooled over the rounds);"
            + " the segmented store's sums its segments' graph walks (and any exact scan).\n"
            + "- Memory per document is each store's own accounting beside the peak RSS the runner"
            + " sampled; the restart and memory probe checks the accounting against the RSS of a"
            + " probe JVM (its section below).\n\n");
    md.append("## Plots\n\n");
    for (String p : pngs) {
      md.append("![").append(p).append("](").append(p).append(")\n\n");
    }
    md.append("## CPU per query by size\n\n").append(section.markdown());
    md.append("## Why the costs grow\n\n").append(new ScaleWhy(section, scale).markdown());
    recallTable(md, rows, target);
    feedTable(md, rows);
    forceMergeTable(md, rows);
    memoryTables(md, scale);
    md.append(ScaleProbeTables.markdown(scale));
    md.append(CorpusRealism.section(dir));
    Files.writeString(dir.resolve("report.md"), md);
    return pngs;
  }

  /** The recall@10 each vector and hybrid estimate was made at, marked where below the target. */
  private static void recallTable(StringBuilder md, List<ResultRow> rows, Double target) {
    List<ResultRow> at =
        rows.stream()
            .filter(
                r ->
                    r.isQueryCell()
                        && RowIndex.AT_TARGET.equals(r.phase())
                        && r.round() == null
                        && r.docs() != null)
            .toList();
    if (at.isEmpty()) {
      return;
    }
    md.append("## Recall@10 of the estimates")
        .append(target == null ? "" : String.format(Locale.ROOT, " (target %.2f)", target))
        .append(
            "\n\n| documents | cell | variant | beam | recall@10 |\n|---:|---|---|---:|---:|\n");
    for (ResultRow r : at) {
      String recall =
          r.recallAt10() == null ? "–" : String.format(Locale.ROOT, "%.3f", r.recallAt10());
      if (r.recallAt10() != null && !Ratios.reached(r)) {
        recall += " below the target";
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d | %s%s | %s | %s | %s |%n",
              r.docs(),
              r.queryType(),
              Boolean.TRUE.equals(r.filtered()) ? " filtered" : "",
              r.variant(),
              r.numCandidates() == null ? "–" : r.numCandidates().toString(),
              recall));
    }
    md.append('\n');
  }

  private static void feedTable(StringBuilder md, List<ResultRow> rows) {
    Map<String, ResultRow> cumulative = new TreeMap<>();
    for (ResultRow r : rows) {
      if (ScalePlots.SCALE_FEED_CUMULATIVE.equals(r.phase())) {
        cumulative.put(r.variant() + "|" + r.docs(), r);
      }
    }
    md.append("## Feed (docs/s per server core)\n\n")
        .append(
            "| documents | variant | interval docs | interval docs/s/core | 0 → N docs/s/core |")
        .append(" segments |\n|---:|---|---:|---:|---:|---:|\n");
    for (ResultRow r : rows) {
      if (!ScalePlots.SCALE_FEED.equals(r.phase())) {
        continue;
      }
      ResultRow c = cumulative.get(r.variant() + "|" + r.docs());
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d | %s | %,d | %s | %s | %s |%n",
              r.docs(),
              r.variant(),
              r.requests(),
              ReportWriter.num(r.docsPerSecPerCore()),
              c == null ? "–" : ReportWriter.num(c.docsPerSecPerCore()),
              r.segments() == null ? "–" : r.segments().toString()));
    }
    md.append('\n');
  }

  private static void forceMergeTable(StringBuilder md, List<ResultRow> rows) {
    List<ResultRow> merges =
        rows.stream().filter(r -> ScalePlots.FORCE_MERGE.equals(r.phase())).toList();
    if (merges.isEmpty()) {
      return;
    }
    md.append("## Force-merge of a copy to 1 segment\n\n")
        .append("| documents | seconds | server cores | segments after |\n|---:|---:|---:|---:|\n");
    for (ResultRow r : merges) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %,d | %.2f | %s | %s |%n",
              r.docs(),
              r.seconds(),
              ReportWriter.cores(r.cpuCores()),
              r.segments() == null ? "–" : r.segments().toString()));
    }
    md.append('\n');
  }

  /** Per size, each server's bytes per document by part, its total and its sampled peak RSS. */
  private static void memoryTables(StringBuilder md, JsonNode scale) {
    if (!scale.path("per_size").isArray() || scale.path("per_size").isEmpty()) {
      return;
    }
    // The parts in the order the runner wrote them, over every server and size.
    java.util.LinkedHashSet<String> seen = new java.util.LinkedHashSet<>();
    for (JsonNode size : scale.path("per_size")) {
      for (JsonNode server : size.path("servers")) {
        server.path("bytes_per_doc").fieldNames().forEachRemaining(seen::add);
      }
    }
    List<String> parts = List.copyOf(seen);
    md.append("## Memory per document (each store's own accounting)\n\n")
        .append("Bytes per document by part; the mutable store's parts are on its heap, the")
        .append(" segmented store's are its files (mapped by the searches); WAL is on disk. The")
        .append(" peak RSS per document is the whole JVM's sampled peak over the size (its fixed")
        .append(" cost included) divided by the documents.\n\n");
    md.append("| documents | server |");
    parts.forEach(p -> md.append(' ').append(p.replace('_', ' ')).append(" |"));
    md.append(" total | peak RSS |\n|---:|---|").append("---:|".repeat(parts.size() + 2));
    md.append('\n');
    for (JsonNode size : scale.path("per_size")) {
      int n = size.path("docs").asInt();
      size.path("servers")
          .fields()
          .forEachRemaining(
              e -> {
                JsonNode per = e.getValue().path("bytes_per_doc");
                md.append(String.format(Locale.ROOT, "| %,d | %s |", n, e.getKey()));
                for (String p : parts) {
                  md.append(
                      per.has(p)
                          ? String.format(Locale.ROOT, " %.1f |", per.path(p).asDouble())
                          : " – |");
                }
                md.append(
                    String.format(
                        Locale.ROOT, " %.1f |", e.getValue().path("total_bytes").asDouble() / n));
                md.append(
                    e.getValue().has("peak_rss_bytes")
                        ? String.format(
                            Locale.ROOT,
                            " %.0f |",
                            e.getValue().path("peak_rss_bytes").asDouble() / n)
                        : " – |");
                md.append('\n');
              });
    }
    md.append('\n');
  }

  private static void add(List<String> pngs, String name) {
    if (name != null) {
      pngs.add(name);
    }
  }
}
