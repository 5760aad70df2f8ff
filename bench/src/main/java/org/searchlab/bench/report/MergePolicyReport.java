package org.searchlab.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The report of {@code experiment --merge-policies}, {@code report.md} with its plots: what each
 * policy cost to feed (first feed, refeeds in paired rounds), its merges, write amplification and
 * segments over time, its queries at rest and while a refeed runs (paired rounds, intervals, equal
 * recall), the findings (a policy is named cheapest only where every interval of its ratios lies
 * above 1 and, in vector and hybrid cells, its recall is level with the others'), and the store's
 * merge accounting checked against the kernel's and the experiment's own readings ({@link
 * MergePolicyChecks}). Not thread-safe (the plots are not).
 */
public final class MergePolicyReport {
  /** How far below another policy's recall@10 the cheapest may lie and still be compared. */
  static final double RECALL_TOLERANCE = 0.01;

  private final Path dir;

  public MergePolicyReport(Path dir) {
    this.dir = dir;
  }

  /**
   * How the run was made, for the report's head.
   *
   * @param bulkSize documents per {@code _bulk} request of every feed
   * @param refreshMs the segmented servers' refresh interval
   * @param feedThreads client threads of every feed
   * @param loadBefore the machine's load averages (1, 5, 15 min) when the run started
   * @param loadAfter the same when it ended
   */
  public record Header(
      String profile,
      String source,
      RunInfo info,
      double minutes,
      int bulkSize,
      long refreshMs,
      int feedThreads,
      String loadBefore,
      String loadAfter) {}

  /** Writes {@code report.md} and its plots. */
  public void write(
      List<ResultRow> rows, List<MergeWindow> windows, List<SegmentPoint> timeline, Header h)
      throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Merge policies side by side\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Profile `%s`, %s. %d cores (%s), %s, commit %s. %.1f minutes; load average %s at the"
                + " start, %s at the end.\n\n",
            h.profile(),
            h.source(),
            h.info().machine().cores(),
            h.info().machine().cpuModel(),
            h.info().jdk(),
            h.info().commit(),
            h.minutes(),
            h.loadBefore(),
            h.loadAfter()));
    List<String> variants = rows.stream().map(ResultRow::variant).distinct().toList();
    md.append(
        String.format(
            Locale.ROOT,
            "Each variant ran on its own server and was fed the same %,d documents the same way:"
                + " `_bulk` requests of %,d documents from %d client threads, the segmented servers"
                + " refreshing every %d ms. `mutable` is the reference line. Policy `none` never"
                + " merges on its own: after each feed it is **force-merged to one segment**, a"
                + " window of its own (`force_merge`), so its queries at rest run on one segment."
                + " Variants: %s.\n\n",
            h.info().docs(),
            h.bulkSize(),
            h.feedThreads(),
            h.refreshMs(),
            String.join(", ", variants.stream().map(v -> "`" + v + "`").toList())));
    MergePolicyPlots plots = new MergePolicyPlots(dir);
    feeding(md, windows, plots);
    md.append("## Segments over time\n\n");
    md.append(
        "Polled from `_segments` every 0.5 s (the searchable segments of the last refresh).\n\n");
    image(md, plots.timeline(timeline), "segment count over time");
    image(md, plots.sizes(timeline), "segment sizes over the first feed");
    MergePolicyCells cells = new MergePolicyCells(rows);
    queries(md, cells, MergePolicyCells.AT_REST, "At rest (after the first feed and its merges)");
    queries(md, cells, MergePolicyCells.DURING, "While a refeed runs");
    findings(md, windows, cells);
    md.append(MergePolicyChecks.section(windows));
    Files.writeString(dir.resolve("report.md"), md);
  }

  private void feeding(StringBuilder md, List<MergeWindow> windows, MergePolicyPlots plots)
      throws IOException {
    md.append("## Feeding\n\n### First feed (0 → N)\n\n");
    md.append(
        "| variant | window | docs/s | server cores | docs/s/core | settle s | segments | merges |"
            + " merge CPU s | merge wall s | merge bytes MB | index MB | write ampl. | written"
            + " (kernel) MB | written ÷ index |\n");
    md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (MergeWindow w : windows) {
      if (w.round() != null) {
        continue;
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
              w.variant(),
              w.phase(),
              w.docs() == 0 ? "" : fmt(w.docs() / w.feedSeconds(), 0),
              w.docs() == 0 ? "" : fmt(w.feedCpuCores(), 2),
              w.docs() == 0 ? "" : fmt(w.docsPerSecPerCore(), 0),
              w.settleSeconds(),
              w.segments(),
              orNa(w.mergesTotal()),
              w.mergeCpu() == null ? "n/a" : fmt(w.mergeCpu() / 1000, 2),
              w.mergeTimeMs() != null
                  ? fmt(w.mergeTimeMs() / 1000.0, 2)
                  : w.threadMergeWallMs() == null ? "n/a" : fmt(w.threadMergeWallMs() / 1000, 2),
              mb(w.mergeBytes()),
              mb(w.indexBytes()),
              w.writeAmplification() == null ? "n/a" : fmt(w.writeAmplification(), 2),
              mb(w.kernelWriteBytes()),
              w.totalWriteAmplification() == null ? "n/a" : fmt(w.totalWriteAmplification(), 2)));
    }
    md.append(
        "\nMerge bytes are the store's bytes written by merges where it reports them, else the"
            + " merge threads' `write_bytes` (see the checks below); write amplification is merge"
            + " bytes ÷ the index's bytes at the end of the window; written (kernel) is the server"
            + " process's `write_bytes` over the window (log, flushes, merges, commits, and the"
            + " files Lucene writes and deletes again), ÷ index its ratio to the index.\n\n");
    refeeds(md, windows, plots, firstFeedCosts(windows));
  }

  /** Per variant, [write amplification, merge CPU s] of its first feed with its force-merge. */
  private static Map<String, double[]> firstFeedCosts(List<MergeWindow> windows) {
    Map<String, double[]> out = new LinkedHashMap<>();
    Map<String, Long> index = new LinkedHashMap<>();
    for (MergeWindow w : windows) {
      if (w.round() != null) {
        continue;
      }
      double[] acc = out.computeIfAbsent(w.variant(), k -> new double[2]);
      acc[0] += w.mergeBytes() == null ? 0 : w.mergeBytes();
      acc[1] += w.mergeCpu() == null ? 0 : w.mergeCpu() / 1000;
      if (w.indexBytes() != null) {
        index.put(w.variant(), w.indexBytes());
      }
    }
    out.forEach((v, acc) -> acc[0] = index.getOrDefault(v, 0L) > 0 ? acc[0] / index.get(v) : 0);
    return out;
  }

  private void refeeds(
      StringBuilder md,
      List<MergeWindow> windows,
      MergePolicyPlots plots,
      Map<String, double[]> first)
      throws IOException {
    Map<String, Map<Integer, RoundCost>> rounds = refeedRounds(windows);
    if (rounds.isEmpty()) {
      return;
    }
    md.append("### Refeeds in paired rounds\n\n");
    md.append(
        "Every document again, each round every variant in turn (the order reversed every other"
            + " round); `none` force-merged after each refeed, its cost counted in the round."
            + " Medians over rounds with their intervals ([min–max] below 6 rounds).\n\n");
    md.append(
        "| variant | rounds | docs/s/core | ÷ mutable | merge CPU s | write ampl. | written ÷"
            + " index | segments after |\n|---|---|---|---|---|---|---|---|\n");
    Map<String, double[]> refeed = new LinkedHashMap<>();
    Map<Integer, RoundCost> mutable = rounds.get("mutable");
    for (Map.Entry<String, Map<Integer, RoundCost>> e : rounds.entrySet()) {
      Map<Integer, RoundCost> r = e.getValue();
      Optional<Intervals.Interval> perCore = interval(r, RoundCost::docsPerSecPerCore);
      Optional<Intervals.Interval> cpu = interval(r, RoundCost::mergeCpuSeconds);
      Optional<Intervals.Interval> wa = interval(r, RoundCost::writeAmplification);
      Optional<Intervals.Interval> total = interval(r, RoundCost::totalAmplification);
      String vsMutable =
          mutable == null || e.getKey().equals("mutable")
              ? ""
              : MergePolicyCells.ratio(r, mutable, RoundCost::docsPerSecPerCore)
                  .map(Ratios::format)
                  .orElse("");
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %s | %s | %s | %s | %s | %s |\n",
              e.getKey(),
              r.size(),
              perCore.map(i -> format(i, 0)).orElse("n/a"),
              vsMutable,
              cpu.map(i -> format(i, 2)).orElse("n/a"),
              wa.map(i -> format(i, 2)).orElse("n/a"),
              total.map(i -> format(i, 2)).orElse("n/a"),
              r.values().stream().map(c -> String.valueOf(c.segments())).toList()));
      refeed.put(
          e.getKey(),
          new double[] {
            wa.map(Intervals.Interval::median).orElse(0.0),
            cpu.map(Intervals.Interval::median).orElse(0.0)
          });
    }
    md.append('\n');
    first.keySet().retainAll(refeed.keySet());
    image(md, plots.costs(first, refeed), "write amplification and merge CPU per policy");
  }

  /** One refeed round of one variant: its refeed window with the force-merge after it. */
  record RoundCost(
      Double docsPerSecPerCore,
      Double mergeCpuSeconds,
      Double writeAmplification,
      Double totalAmplification,
      Integer segments) {}

  /** Per variant, per round, the refeed's cost (a force-merge after it added in). */
  static Map<String, Map<Integer, RoundCost>> refeedRounds(List<MergeWindow> windows) {
    Map<String, Map<Integer, List<MergeWindow>>> by = new LinkedHashMap<>();
    for (MergeWindow w : windows) {
      if (w.round() != null) {
        by.computeIfAbsent(w.variant(), k -> new java.util.TreeMap<>())
            .computeIfAbsent(w.round(), k -> new ArrayList<>())
            .add(w);
      }
    }
    Map<String, Map<Integer, RoundCost>> out = new LinkedHashMap<>();
    by.forEach(
        (v, rounds) -> {
          Map<Integer, RoundCost> m = new java.util.TreeMap<>();
          rounds.forEach((round, ws) -> m.put(round, cost(ws)));
          out.put(v, m);
        });
    return out;
  }

  private static RoundCost cost(List<MergeWindow> ws) {
    MergeWindow feed = ws.get(0);
    MergeWindow last = ws.getLast();
    Double cpu = 0.0;
    Long merged = 0L;
    Long kernel = 0L;
    for (MergeWindow w : ws) {
      cpu = cpu == null || w.mergeCpu() == null ? null : cpu + w.mergeCpu() / 1000;
      merged = merged == null || w.mergeBytes() == null ? null : merged + w.mergeBytes();
      kernel =
          kernel == null || w.kernelWriteBytes() == null ? null : kernel + w.kernelWriteBytes();
    }
    Long index = last.indexBytes();
    boolean hasIndex = index != null && index > 0;
    return new RoundCost(
        feed.docsPerSecPerCore(),
        cpu,
        merged == null || !hasIndex ? null : merged / (double) index,
        kernel == null || !hasIndex ? null : kernel / (double) index,
        last.segments());
  }

  private static Optional<Intervals.Interval> interval(
      Map<Integer, RoundCost> r, java.util.function.Function<RoundCost, Double> f) {
    double[] v =
        r.values().stream()
            .map(f)
            .filter(x -> x != null)
            .mapToDouble(Double::doubleValue)
            .toArray();
    return v.length == 0 ? Optional.empty() : Optional.of(Intervals.median(v));
  }

  private void queries(StringBuilder md, MergePolicyCells cells, String phase, String title) {
    List<MergePolicyCells.Cell> list = cells.cells(phase);
    if (list.isEmpty()) {
      return;
    }
    List<String> variants = cells.variants();
    md.append("## Queries: ").append(title).append("\n\n");
    md.append(
        "QPS per server core, median over paired rounds [interval], p99 ms median, and recall@10"
            + " (the lowest over rounds) for vector and hybrid cells, which run at each variant's"
            + " calibrated beam"
            + (phase.equals(MergePolicyCells.AT_REST)
                ? " and are the estimates at the recall target at the curve's client count"
                : "; their recall is measured again in each round while the refeed runs")
            + ".\n\n| cell |");
    variants.forEach(v -> md.append(' ').append(v).append(" |"));
    md.append("\n|---|").append("---|".repeat(variants.size())).append('\n');
    for (MergePolicyCells.Cell c : list) {
      md.append("| ")
          .append(c.type())
          .append(c.filtered() ? " filtered" : "")
          .append(", ")
          .append(c.clients())
          .append(" cl |");
      for (String v : variants) {
        Optional<Intervals.Interval> q = cells.median(v, c, ResultRow::qpsPerCore);
        Optional<Intervals.Interval> p99 = cells.median(v, c, ResultRow::p99Ms);
        Double recall = cells.recall(v, c);
        md.append(' ')
            .append(q.map(i -> format(i, 0)).orElse("n/a"))
            .append(p99.map(i -> String.format(Locale.ROOT, " · p99 %.1f", i.median())).orElse(""))
            .append(recall == null ? "" : String.format(Locale.ROOT, " · r %.3f", recall))
            .append(" |");
      }
      md.append('\n');
    }
    md.append('\n');
  }

  private void findings(StringBuilder md, List<MergeWindow> windows, MergePolicyCells cells) {
    md.append("## Findings\n\n");
    md.append(
        "A policy is named cheapest only where the interval of its per-round ratio to every other"
            + " policy lies above 1 and, in a vector or hybrid cell, its recall@10 lies no more"
            + " than "
            + RECALL_TOLERANCE
            + " below any other's (the mutable store is the reference line, not a"
            + " candidate).\n\n");
    Map<String, Map<Integer, RoundCost>> rounds = refeedRounds(windows);
    rounds.remove("mutable");
    Optional<MergePolicyCells.Verdict> feed =
        MergePolicyCells.cheapest(rounds, RoundCost::docsPerSecPerCore);
    md.append("- **Cheapest to feed** (refeed docs/s per core): ")
        .append(
            feed.map(
                    f ->
                        f.separated()
                            ? "`" + f.best() + "`; its ratio to " + f.ratios() + "."
                            : "no policy is separated: the highest median is `"
                                + f.best()
                                + "`, its ratios "
                                + f.ratios()
                                + ".")
                .orElse("fewer than two policies with refeed rounds."))
        .append('\n');
    int separated = 0;
    int total = 0;
    List<String> named = new ArrayList<>();
    List<String> unequal = new ArrayList<>();
    List<String> variants = cells.variants().stream().filter(v -> !v.equals("mutable")).toList();
    for (String phase : List.of(MergePolicyCells.AT_REST, MergePolicyCells.DURING)) {
      for (MergePolicyCells.Cell c : cells.cells(phase)) {
        Map<String, Map<Integer, ResultRow>> per = new LinkedHashMap<>();
        variants.forEach(v -> per.put(v, cells.rounds(v, c)));
        Optional<MergePolicyCells.Verdict> q =
            MergePolicyCells.cheapest(per, ResultRow::qpsPerCore);
        if (q.isEmpty()) {
          continue;
        }
        total++;
        if (q.get().separated()) {
          String below = recallBelow(cells, c, q.get().best(), variants);
          if (below != null) {
            // A QPS ratio between vector or hybrid variants counts only at equal recall.
            unequal.add(
                String.format(
                    "  - %s: `%s` is separated (ratio to %s) but its recall@10 is %s",
                    c.describe(), q.get().best(), q.get().ratios(), below));
            continue;
          }
          separated++;
          named.add(
              String.format(
                  "  - %s: `%s` (ratio to %s)", c.describe(), q.get().best(), q.get().ratios()));
        }
      }
    }
    md.append(
        String.format(
            Locale.ROOT,
            "- **Cheapest to query** (QPS per core): one policy is separated from every other in"
                + " %d of %d cells%s\n",
            separated,
            total,
            separated == 0 ? "." : ":"));
    named.forEach(n -> md.append(n).append('\n'));
    if (!unequal.isEmpty()) {
      md.append(
          String.format(
              Locale.ROOT,
              "- Not counted, because the policies' recall differs by more than %.2f (the cheapest"
                  + " answers worse, so its QPS is not comparable):\n",
              RECALL_TOLERANCE));
      unequal.forEach(n -> md.append(n).append('\n'));
    }
    md.append('\n');
  }

  /**
   * Where {@code best}'s lowest recall@10 in a vector or hybrid cell lies more than {@link
   * #RECALL_TOLERANCE} below another policy's, what it is against theirs ("0.936 against
   * log-byte-size 0.963, …"); null where the cell is lexical or the recalls are level.
   */
  private static String recallBelow(
      MergePolicyCells cells, MergePolicyCells.Cell c, String best, List<String> variants) {
    Map<String, Double> recalls = new LinkedHashMap<>();
    variants.forEach(v -> recalls.put(v, cells.recall(v, c)));
    Map<String, Double> higher = MergePolicyCells.recallAbove(recalls, best, RECALL_TOLERANCE);
    if (higher.isEmpty()) {
      return null;
    }
    List<String> out = new ArrayList<>();
    higher.forEach((v, r) -> out.add(String.format(Locale.ROOT, "%s %.3f", v, r)));
    return String.format(Locale.ROOT, "%.3f against %s", recalls.get(best), String.join(", ", out));
  }

  private static void image(StringBuilder md, String file, String alt) {
    if (file != null) {
      md.append("![").append(alt).append("](").append(file).append(")\n\n");
    }
  }

  private static String format(Intervals.Interval i, int decimals) {
    String f = "%." + decimals + "f";
    return i.n() < 2
        ? String.format(Locale.ROOT, f, i.median())
        : String.format(Locale.ROOT, f + " [" + f + "–" + f + "]", i.median(), i.low(), i.high());
  }

  private static String fmt(double v, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  private static String orNa(Long v) {
    return v == null ? "n/a" : v.toString();
  }

  private static String mb(Long bytes) {
    return bytes == null ? "n/a" : String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
  }
}
