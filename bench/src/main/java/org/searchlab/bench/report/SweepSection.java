package org.searchlab.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The report's segment-count sweep section: how the index was cut into segments (their sizes per
 * count, from {@value #FILE}), the beams each count's vector and hybrid cells ran at and the recall
 * they were compared at, a table per query type of CPU per query, QPS and p99 per count, client
 * count and setting (medians over the rounds with intervals), and the ratios: the most ÷ the fewest
 * segments, and concurrent ÷ sequential search, each the median of per-round ratios with its
 * interval. Not thread-safe; one call per report.
 */
final class SweepSection {
  /** What the runner writes beside the rows: segment sizes and recall goals. */
  static final String FILE = "sweep.json";

  private final Path dir;
  private final SweepRows sweep;

  SweepSection(Path dir, RowIndex idx) {
    this.dir = dir;
    this.sweep = new SweepRows(idx);
  }

  void write(StringBuilder md) throws IOException {
    if (sweep.isEmpty()) {
      return;
    }
    List<Integer> segments = sweep.segments();
    List<SweepRows.Setting> settings = sweep.settings();
    ResultRow any =
        sweep
            .summary(
                SweepRows.SWEEP,
                sweep.types().getFirst(),
                segments.getFirst(),
                settings.getFirst(),
                sweep.clients().getFirst())
            .orElse(null);
    JsonNode json = readJson();
    md.append("## Segment-count sweep\n\n")
        .append(
            String.format(
                Locale.ROOT,
                "Segmented store, %s documents indexed with one segment per bulk batch and merge"
                    + " policy none%s, force-merged down through the segment counts below, a copy"
                    + " of each count's index per setting. Filtered queries. seq = searchThreads 0"
                    + " (one segment after another); conc = the default concurrent segment search"
                    + " pool, with the slicing named (serve --slicing). %s CPU ms/query = server"
                    + " CPU time per query (1000 ÷ QPS per core); vector and hybrid at the recall"
                    + " below, interpolated between each count's beam and the one below it.%n%n",
                any == null ? "?" : String.valueOf(any.docs()),
                json == null
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        ", the batch sizes drawn log-uniformly over a %.0f× range (seed %d) as a"
                            + " tiered merge policy leaves them",
                        json.path("size_spread").asDouble(),
                        json.path("seed").asLong()),
                sweep.inRounds()
                    ? String.format(
                        Locale.ROOT,
                        "%d rounds, each starting every count's servers afresh and measuring its"
                            + " cells with the settings back to back (counts forward, then"
                            + " backward); a cell is the median over the rounds [its"
                            + " order-statistic interval, which covers the median with"
                            + " probability %.1f%%], a ratio the median of the per-round ratios"
                            + " [interval], and a direction is stated only where the interval"
                            + " excludes 1.",
                        any == null || any.rounds() == null ? 0 : any.rounds(),
                        any == null || any.intervalCoverage() == null
                            ? 0.0
                            : 100 * any.intervalCoverage())
                    : "One measurement per cell, no interval."));
    md.append(warmups(json));
    md.append(machine(json));
    shapes(md, segments, settings, json);
    for (String t : sweep.types()) {
      table(md, t, segments, settings);
    }
    ratios(md, segments, settings);
  }

  /** Segment sizes and, per calibrated type, the beams and recalls of each count. */
  private void shapes(
      StringBuilder md, List<Integer> segments, List<SweepRows.Setting> settings, JsonNode json) {
    List<String> calibrated =
        sweep.types().stream().filter(t -> sweep.costPhase(t).equals(SweepRows.AT_TARGET)).toList();
    md.append("### Segments and beams\n\n");
    if (json != null) {
      md.append(
          String.format(
              Locale.ROOT,
              "Recall@10 goal: %s (the target, or a count's recall at the grid's smallest beam less"
                  + " %s where that is higher).%n%n",
              goals(json),
              ReportWriter.EQUAL));
    }
    md.append("| segments | docs per segment: largest / median / smallest |");
    StringBuilder sep = new StringBuilder("|---:|---|");
    for (String t : calibrated) {
      md.append(' ').append(t).append(" beam (below) |");
      sep.append("---:|");
      for (SweepRows.Setting s : settings) {
        md.append(' ')
            .append(t)
            .append(" recall@10 ")
            .append(s.label())
            .append(" at beam → estimate |");
        sep.append("---:|");
      }
    }
    md.append('\n').append(sep).append('\n');
    int c = sweep.clients().getFirst();
    for (int n : segments) {
      md.append("| ").append(n).append(" | ").append(sizes(json, n)).append(" |");
      for (String t : calibrated) {
        Optional<ResultRow> beam = sweep.summary(SweepRows.SWEEP, t, n, settings.getFirst(), c);
        Optional<ResultRow> below = sweep.summary(SweepRows.BELOW, t, n, settings.getFirst(), c);
        md.append(' ')
            .append(beam.map(r -> String.valueOf(r.numCandidates())).orElse("–"))
            .append(below.map(r -> " (" + r.numCandidates() + ")").orElse(""))
            .append(" |");
        for (SweepRows.Setting s : settings) {
          Optional<ResultRow> at = sweep.summary(SweepRows.SWEEP, t, n, s, c);
          Optional<ResultRow> est = sweep.summary(SweepRows.AT_TARGET, t, n, s, c);
          md.append(' ')
              .append(at.map(r -> ReportWriter.num(r.recallAt10())).orElse("–"))
              .append(" → ")
              .append(est.map(r -> ReportWriter.num(r.recallAt10())).orElse("–"))
              .append(" |");
        }
      }
      md.append('\n');
    }
    md.append('\n');
  }

  /** One query type: per count, a column per client count and setting. */
  private void table(
      StringBuilder md, String t, List<Integer> segments, List<SweepRows.Setting> settings) {
    String phase = sweep.costPhase(t);
    md.append("### ")
        .append(t)
        .append(" filtered\n\n")
        .append(phase.equals(SweepRows.AT_TARGET) ? "At the goal recall. " : "")
        .append("Each cell: CPU ms/query [interval] · QPS · p99 ms.\n\n| segments | recall@10 |");
    StringBuilder sep = new StringBuilder("|---:|---:|");
    for (int c : sweep.clients()) {
      for (SweepRows.Setting s : settings) {
        md.append(' ').append(s.label()).append(", ").append(c).append(" cl |");
        sep.append("---|");
      }
    }
    md.append('\n').append(sep).append('\n');
    for (int n : segments) {
      md.append("| ")
          .append(n)
          .append(" | ")
          .append(
              sweep
                  .summary(phase, t, n, settings.getFirst(), sweep.clients().getFirst())
                  .map(r -> ReportWriter.num(r.recallAt10()))
                  .orElse("–"))
          .append(" |");
      for (int c : sweep.clients()) {
        for (SweepRows.Setting s : settings) {
          md.append(' ')
              .append(sweep.summary(phase, t, n, s, c).map(SweepSection::cell).orElse("–"))
              .append(" |");
        }
      }
      md.append('\n');
    }
    md.append('\n');
  }

  /** The most ÷ the fewest segments, and concurrent ÷ sequential, per type and client count. */
  private void ratios(StringBuilder md, List<Integer> segments, List<SweepRows.Setting> settings) {
    if (segments.size() < 2 && settings.size() < 2) {
      return;
    }
    int most = segments.getFirst();
    int fewest = segments.getLast();
    md.append("### Ratios\n\n");
    if (segments.size() >= 2) {
      md.append(
          String.format(
              Locale.ROOT,
              "CPU per query at %d ÷ %d segments (above 1: more segments cost more per"
                  + " query; n.d.: the interval includes 1, no direction).%n%n| query |"
                  + " setting |",
              most,
              fewest));
      StringBuilder sep = new StringBuilder("|---|---|");
      for (int c : sweep.clients()) {
        md.append(' ').append(c).append(" cl |");
        sep.append("---|");
      }
      md.append('\n').append(sep).append('\n');
      for (String t : sweep.types()) {
        for (SweepRows.Setting s : settings) {
          md.append("| ").append(t).append(" | ").append(s.label()).append(" |");
          for (int c : sweep.clients()) {
            md.append(' ')
                .append(
                    sweep
                        .ratio(
                            sweep.costPhase(t), t, most, s, fewest, s, c, SweepRows::cpuMsPerQuery)
                        .map(SweepSection::ratioCell)
                        .orElse("–"))
                .append(" |");
          }
          md.append('\n');
        }
      }
      md.append('\n');
    }
    SweepRows.Setting seq = settings.getFirst();
    List<SweepRows.Setting> conc = settings.subList(1, settings.size());
    if (!seq.sequential() || conc.isEmpty()) {
      return;
    }
    md.append(
        "Concurrent ÷ sequential at each segment count: average latency and CPU per query (below 1"
            + " latency: concurrent answers sooner; above 1 CPU: it costs more per query).\n\n"
            + "| query | setting | segments |");
    StringBuilder sep = new StringBuilder("|---|---|---:|");
    for (int c : sweep.clients()) {
      md.append(String.format(Locale.ROOT, " latency %1$d cl | CPU/query %1$d cl |", c));
      sep.append("---|---|");
    }
    md.append('\n').append(sep).append('\n');
    for (String t : sweep.types()) {
      String phase = sweep.costPhase(t);
      for (SweepRows.Setting s : conc) {
        for (int n : segments) {
          md.append("| ")
              .append(t)
              .append(" | ")
              .append(s.label())
              .append(" | ")
              .append(n)
              .append(" |");
          for (int c : sweep.clients()) {
            md.append(' ')
                .append(
                    sweep
                        .ratio(phase, t, n, s, n, seq, c, ResultRow::avgMs)
                        .map(SweepSection::ratioCell)
                        .orElse("–"))
                .append(" | ")
                .append(
                    sweep
                        .ratio(phase, t, n, s, n, seq, c, SweepRows::cpuMsPerQuery)
                        .map(SweepSection::ratioCell)
                        .orElse("–"))
                .append(" |");
          }
          md.append('\n');
        }
      }
    }
    md.append('\n');
  }

  /** "0.85 [0.80–0.91] · 1,234 · 2.10". */
  private static String cell(ResultRow r) {
    Double cpu = SweepRows.cpuMsPerQuery(r);
    String cost =
        SweepRows.cpuInterval(r)
            .filter(i -> i.n() >= 2)
            .map(i -> String.format(Locale.ROOT, "%.3f [%.3f–%.3f]", i.median(), i.low(), i.high()))
            .orElse(cpu == null ? "–" : String.format(Locale.ROOT, "%.3f", cpu));
    return String.format(Locale.ROOT, "%s · %,.0f · %.2f", cost, r.qps(), r.p99Ms());
  }

  /**
   * "1.23 [1.10–1.35]", with "(n.d.)" (not distinguishable from 1) where the interval includes 1 or
   * there is none.
   */
  private static String ratioCell(Intervals.Interval i) {
    String s = Ratios.format(i);
    return i.n() >= 2 && i.excludes(1.0) ? s : s + " (n.d.)";
  }

  /**
   * How long the servers' JIT warm-ups took ({@code sweep.json}'s {@code warmup}), a paragraph;
   * empty where the run recorded none.
   */
  static String warmups(JsonNode json) {
    JsonNode w = json == null ? null : json.path("warmup");
    if (w == null || !w.isArray() || w.isEmpty()) {
      return "";
    }
    List<Double> seconds = new ArrayList<>();
    int unsteady = 0;
    for (JsonNode n : w) {
      seconds.add(n.path("seconds").asDouble());
      if (!n.path("steady").asBoolean()) {
        unsteady++;
      }
    }
    java.util.Collections.sort(seconds);
    return String.format(
        Locale.ROOT,
        "Before each query type's cells, every fresh server ran that type's requests from 4 clients"
            + " in rounds until its JIT was done (three rounds in a row neither lowering the best"
            + " CPU per query by more than 3%% nor giving the compiler threads more than 5%% of the"
            + " CPU%s): %d warm-ups of %.0f s on median (%.0f–%.0f s), %d stopped at the limit"
            + " still falling (their curves are in sweep.json).%n%n",
        json.has("warmup_limit_seconds")
            ? String.format(
                Locale.ROOT, ", at most %.0f s", json.path("warmup_limit_seconds").asDouble())
            : "",
        seconds.size(),
        seconds.get(seconds.size() / 2),
        seconds.getFirst(),
        seconds.getLast(),
        unsteady);
  }

  /** The machine reference of the run, a paragraph; empty where it has none. */
  static String machine(JsonNode json) {
    double median = SweepRunComparison.machineMedian(json);
    if (Double.isNaN(median)) {
      return "";
    }
    double low = Double.MAX_VALUE;
    double high = 0;
    double steal = 0;
    for (JsonNode n : json.path("machine_reference")) {
      low = Math.min(low, n.path("ns_per_op").asDouble());
      high = Math.max(high, n.path("ns_per_op").asDouble());
      steal = Math.max(steal, n.path("steal_share").asDouble(0));
    }
    return String.format(
        Locale.ROOT,
        "Machine reference: after each count's cells of a round, the runner timed a fixed CPU"
            + " workload (512 dot products of 384-d floats and a sort of 4,096 ints per operation,"
            + " its thread's CPU time): %.0f µs per operation on median (%.0f–%.0f) over %d"
            + " measurements, with at most %.2f%% of the machine's CPU stolen by the hypervisor in"
            + " a round. A run whose reference is higher saw a slower machine: compare absolute"
            + " costs between runs only with it in view.%n%n",
        median / 1e3,
        low / 1e3,
        high / 1e3,
        json.path("machine_reference").size(),
        100 * steal);
  }

  private static String goals(JsonNode json) {
    List<String> out = new ArrayList<>();
    json.path("recall_goal")
        .fields()
        .forEachRemaining(
            e ->
                out.add(
                    String.format(Locale.ROOT, "%s %.3f", e.getKey(), e.getValue().asDouble())));
    return String.join(", ", out);
  }

  private static String sizes(JsonNode json, int segments) {
    JsonNode docs =
        json == null ? null : json.path("docs_per_segment").path(String.valueOf(segments));
    if (docs == null || !docs.isArray() || docs.isEmpty()) {
      return "–";
    }
    return String.format(
        Locale.ROOT,
        "%d / %d / %d",
        docs.get(0).asInt(),
        docs.get(docs.size() / 2).asInt(),
        docs.get(docs.size() - 1).asInt());
  }

  private JsonNode readJson() throws IOException {
    Path f = dir.resolve(FILE);
    return Files.exists(f) ? new ObjectMapper().readTree(f.toFile()) : null;
  }
}
