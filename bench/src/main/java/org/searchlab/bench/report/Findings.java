package org.searchlab.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The "what this run shows" paragraph: checks the reference benchmark's directions against this
 * run's rows and says, with the numbers, where each holds and where it does not. A direction whose
 * rows are missing is said to be unmeasured. Immutable; thread-safe.
 */
final class Findings {
  private static final String[] TYPES = {"lexical", "vector", "hybrid"};

  private final RowIndex idx;
  private final Ratios ratios;
  private final Double target;

  Findings(RowIndex idx) {
    this.idx = idx;
    this.ratios = new Ratios(idx);
    this.target = idx.headlineTarget();
  }

  String paragraph() {
    List<String> s = new ArrayList<>();
    int c = idx.headlineClients();
    forceMergedVector(s, c);
    mutableVsSegmented(s, c);
    mutableVsForceMerged(s, c);
    concurrentSegmentSearch(s);
    multiSegmentLatency(s);
    refeed(s);
    writes(s);
    overlap(s);
    return s.isEmpty() ? "No query cells were measured." : String.join(" ", s);
  }

  /** Force-merged beats multi-segment on QPS per core for vector search. */
  private void forceMergedVector(List<String> s, int c) {
    List<String> parts = new ArrayList<>();
    int holds = 0;
    int total = 0;
    for (boolean f : new boolean[] {false, true}) {
      Optional<Intervals.Interval> r =
          ratios.equalRecall(
              "segmented-forcemerged", "segmented", "vector", f, c, target, ResultRow::qpsPerCore);
      if (r.isEmpty()) {
        continue;
      }
      total++;
      String dir = Ratios.direction(r.get(), "force-merged ahead", "segmented ahead");
      holds += dir.equals("force-merged ahead") ? 1 : 0;
      parts.add(
          String.format(
              Locale.ROOT,
              "%s× %s (%s)",
              Ratios.format(r.get()),
              f ? "filtered" : "unfiltered",
              dir));
    }
    if (total == 0) {
      s.add("Force-merged vs multi-segment vector QPS per core was not measured.");
      return;
    }
    s.add(
        String.format(
            Locale.ROOT,
            "**Force-merged beats multi-segment on QPS per core for vector search: %s** (force-merged"
                + " ÷ segmented QPS/core at %d clients%s: %s; the segmented index had %s).",
            verdict(holds, total),
            c,
            at(),
            String.join(", ", parts),
            segmentsOfFeeds()));
  }

  /**
   * The segment counts of the default index the rounds measured: one, or one per independent feed
   * ("15, 21 and 14 segments, one per feed, taken in turn by the rounds").
   */
  private String segmentsOfFeeds() {
    List<Integer> counts = idx.roundSegments("segmented");
    if (counts.size() <= 1) {
      return (counts.isEmpty()
              ? idx.feed("segmented", "feed").map(r -> String.valueOf(r.segments())).orElse("?")
              : String.valueOf(counts.get(0)))
          + " segments";
    }
    List<String> parts = counts.stream().map(String::valueOf).toList();
    return String.join(", ", parts.subList(0, parts.size() - 1))
        + " and "
        + parts.get(parts.size() - 1)
        + " segments, one per independent feed, taken in turn by the rounds";
  }

  /** Mutable is at least as good as segmented-default on QPS per core for every query type. */
  private void mutableVsSegmented(List<String> s, int c) {
    compare(
        s,
        c,
        "segmented",
        "segmented-default",
        "the benchmark measured 6.5–12.9× filtered" + " between the real engines");
  }

  /** Mutable against the force-merged index, which the benchmark found 2.3–3.2× behind Vespa. */
  private void mutableVsForceMerged(List<String> s, int c) {
    compare(
        s,
        c,
        "segmented-forcemerged",
        "force-merged",
        "the benchmark: Vespa 2.3–3.2× ahead" + " of force-merged Elasticsearch");
  }

  /**
   * Mutable ÷ a segmented variant, QPS per core, every query type: a direction per cell only where
   * the ratio's interval excludes 1.
   */
  private void compare(List<String> s, int c, String seg, String name, String reference) {
    List<String> parts = new ArrayList<>();
    int ahead = 0;
    int behind = 0;
    int total = 0;
    for (String t : TYPES) {
      for (boolean f : new boolean[] {false, true}) {
        Optional<Intervals.Interval> r =
            ratios.equalRecall("mutable", seg, t, f, c, target, ResultRow::qpsPerCore);
        if (r.isEmpty()) {
          continue;
        }
        total++;
        String dir = Ratios.direction(r.get(), "mutable ahead", name + " ahead");
        ahead += dir.equals("mutable ahead") ? 1 : 0;
        behind += dir.equals(name + " ahead") ? 1 : 0;
        // A variant that stayed below the target makes the ratio a bound (see ReportWriter).
        String bound =
            target == null || t.equals("lexical")
                ? ""
                : ReportWriter.bound(idx.estimates(target), seg, t, f, target);
        parts.add(
            String.format(
                Locale.ROOT,
                "%s%s %s%s× (%s)",
                t,
                f ? " filtered" : "",
                bound,
                Ratios.format(r.get()),
                dir));
      }
    }
    if (total == 0) {
      s.add("Mutable vs " + name + " QPS per core was not measured.");
      return;
    }
    s.add(
        String.format(
            Locale.ROOT,
            "**Mutable vs %s on QPS per core at %d clients%s: mutable ahead in %d, %s ahead in %d,"
                + " not distinguishable in %d of %d query types** (mutable ÷ %s, median of the"
                + " per-round ratios [interval]: %s; %s).",
            name,
            c,
            at(),
            ahead,
            name,
            behind,
            total - ahead - behind,
            total,
            seg,
            String.join(", ", parts),
            reference));
  }

  private String at() {
    if (target == null) {
      return ", fixed k = num_candidates = 100";
    }
    int c = idx.headlineClients();
    return idx.atTarget(target).stream().noneMatch(r -> r.clients() != null && r.clients() == c)
        ? String.format(Locale.ROOT, ", vector and hybrid at recall@10 ≥ %.2f", target)
        : String.format(
                Locale.ROOT,
                ", vector and hybrid at recall@10 = %.2f (interpolated between the two beams around"
                    + " it",
                target)
            + raised()
            + ")";
  }

  /**
   * "; vector filtered at 0.983–0.988, ..." for the cells whose common recall a variant's smallest
   * beam raised above the target (see {@link ReportWriter#raisedCells}); else "".
   */
  private String raised() {
    List<String> parts = ReportWriter.raisedCells(idx.estimates(target), target);
    return parts.isEmpty()
        ? ""
        : "; "
            + String.join(", ", parts)
            + ", where a variant passed the target at the grid's smallest beam and the others are"
            + " estimated within "
            + ReportWriter.EQUAL
            + " of it";
  }

  /**
   * The segment sweep: the most ÷ the fewest segments, and concurrent ÷ sequential search, a
   * direction only where the interval excludes 1 ({@link SweepFindings}).
   */
  private void concurrentSegmentSearch(List<String> s) {
    s.addAll(new SweepFindings(idx).sentences());
  }

  /** Multi-segment wins latency at 1 client and loses at the highest client count. */
  private void multiSegmentLatency(List<String> s) {
    List<Integer> clients = idx.clients();
    if (clients.size() < 2) {
      return;
    }
    int hi = clients.get(clients.size() - 1);
    Optional<ResultRow> seg1 = idx.main("segmented", "vector", true, clients.get(0));
    Optional<ResultRow> fm1 = idx.main("segmented-forcemerged", "vector", true, clients.get(0));
    Optional<ResultRow> segHi = idx.main("segmented", "vector", true, hi);
    Optional<ResultRow> fmHi = idx.main("segmented-forcemerged", "vector", true, hi);
    if (seg1.isEmpty() || fm1.isEmpty() || segHi.isEmpty() || fmHi.isEmpty()) {
      return;
    }
    s.add(
        String.format(
            Locale.ROOT,
            "Filtered vector average latency, multi-segment vs force-merged: %.2f vs %.2f ms at %d"
                + " client (%s), %.2f vs %.2f ms at %d clients (%s).",
            seg1.get().avgMs(),
            fm1.get().avgMs(),
            clients.get(0),
            seg1.get().avgMs() < fm1.get().avgMs()
                ? "multi-segment faster, as in the benchmark"
                : "multi-segment not faster, unlike the benchmark",
            segHi.get().avgMs(),
            fmHi.get().avgMs(),
            hi,
            segHi.get().avgMs() > fmHi.get().avgMs()
                ? "multi-segment slower, as in the benchmark"
                : "multi-segment not slower, unlike the benchmark"));
  }

  /**
   * p99 during refeed relative to before it ({@link RowIndex#beforeRefeed}), per family, hybrid at
   * the middle refeed count.
   */
  private void refeed(List<String> s) {
    List<String> parts = new ArrayList<>();
    for (String v : new String[] {"mutable", "segmented", "segmented-forcemerged"}) {
      idx.all().stream()
          .filter(
              r ->
                  r.isQueryCell()
                      && r.variant().equals(v)
                      && r.phase().equals("during_refeed")
                      && r.queryType().equals("hybrid"))
          .filter(r -> r.clients() == 16 || r.clients() == idx.headlineClients())
          .findFirst()
          .ifPresent(
              d ->
                  idx.beforeRefeed(d)
                      .filter(b -> b.p99Ms() > 0)
                      .ifPresent(
                          b ->
                              parts.add(
                                  String.format(
                                      Locale.ROOT,
                                      "%s %.1f→%.1f ms (%.2f×)",
                                      v,
                                      b.p99Ms(),
                                      d.p99Ms(),
                                      d.p99Ms() / b.p99Ms()))));
    }
    if (!parts.isEmpty()) {
      s.add(
          "Filtered hybrid p99 before → during refeed: "
              + String.join(", ", parts)
              + " (the benchmark: Elasticsearch roughly doubled, Vespa barely moved).");
    }
  }

  private static boolean positive(Double v) {
    return v != null && v > 0;
  }

  private void writes(List<String> s) {
    String seg = idx.feed("segmented", "feed").isPresent() ? "segmented" : "segmented-forcemerged";
    List<String> parts = new ArrayList<>();
    for (String p : new String[] {"feed", "refeed", "update"}) {
      Optional<ResultRow> m = idx.feed("mutable", p);
      Optional<ResultRow> g = idx.feed(seg, p);
      if (m.isPresent() && g.isPresent() && g.get().docsPerSecPerCore() > 0) {
        parts.add(
            String.format(
                Locale.ROOT,
                "%s %.2f×",
                p,
                m.get().docsPerSecPerCore() / g.get().docsPerSecPerCore()));
      }
    }
    Optional<ResultRow> same = idx.feed("mutable", ReportWriter.FEED_SAME_CLIENT);
    Optional<ResultRow> segFeed = idx.feed(seg, "feed");
    if (same.isPresent()
        && segFeed.isPresent()
        && same.get().docsPerSecPerCore() != null
        && same.get().docsPerSec() != null
        && positive(segFeed.get().docsPerSecPerCore())
        && positive(segFeed.get().docsPerSec())) {
      parts.add(
          String.format(
              Locale.ROOT,
              "feed with the same _bulk client %.2f× (docs/s %.2f×)",
              same.get().docsPerSecPerCore() / segFeed.get().docsPerSecPerCore(),
              same.get().docsPerSec() / segFeed.get().docsPerSec()));
    }
    if (!parts.isEmpty()) {
      s.add(
          "Writes, docs/s per core mutable ÷ segmented: "
              + String.join(", ", parts)
              + " (the benchmark: bootstrap feed ~0.33×, i.e. Elasticsearch 3× better; price"
              + " updates ~4× in Vespa's favour).");
    }
  }

  private void overlap(List<String> s) {
    List<String> parts = new ArrayList<>();
    for (String t : TYPES) {
      idx.main("segmented", t, false, idx.clients().isEmpty() ? 1 : idx.clients().get(0))
          .map(ResultRow::overlapAt10)
          .ifPresent(o -> parts.add(String.format(Locale.ROOT, "%s %.3f", t, o)));
    }
    if (!parts.isEmpty()) {
      s.add(
          "Overlap@10 segmented vs mutable (unfiltered): "
              + String.join(", ", parts)
              + " (one shared analysis chain, so lexical should be about 1.0; the real engines"
              + " gave 0.79–0.97).");
    }
  }

  private static String verdict(int holds, int total) {
    if (holds == total) {
      return "holds";
    }
    return holds == 0 ? "does not hold" : "holds in " + holds + " of " + total + " cases";
  }
}
