package org.searchlab.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The report's notes on how far a run's procedure and measurements carry: what a shortened profile
 * keeps and drops of the benchmark's procedure, which headline ratios are too wide to state a size
 * (fewer rounds or shorter cells widen them), and which cells read pages from disk. Stateless;
 * thread-safe.
 */
final class ProfileNotes {
  /** The client count of the headline ratios. */
  static final int HEADLINE_CLIENTS = 16;

  /**
   * How wide a headline ratio's interval may be, as a share of its median on either side, before
   * the report asks for more rounds: the standard profile's intervals are ±2–15%.
   */
  static final double WIDE = 0.15;

  private static final String MUTABLE = "mutable";
  private static final List<String> TYPES = List.of("lexical", "vector", "hybrid");

  private ProfileNotes() {}

  /**
   * The method line's paragraph on what the {@code full} profile keeps and drops against the
   * benchmark's procedure; empty for any other profile.
   */
  static String keptAndDropped(String profile) {
    if (!"full".equals(profile)) {
      return "";
    }
    return "- What the full profile keeps and drops against the benchmark's procedure: it keeps the"
        + " 1M documents, the feed of each store, the force-merge of a copy of the segmented"
        + " index, all three variants up together, the refeed, the price update and the refeed"
        + " under queries at 1, 16 and 64 clients, and the comparison at 16 clients at recall@10"
        + " 0.95. It drops the client counts 2, 8 and 32 (points on the curve between 1, 4, 16 and"
        + " 64, not answers), the 20 s cells (6 paired rounds of 0.5 s warm-up and 2 s cells give"
        + " the intervals instead), the 0.99 target, the faceted cells (their exact check scans"
        + " every match), the segment sweep, the second and third feeds of the segmented index and"
        + " the mutable store's second feed through _bulk (each a further server that does not fit"
        + " 24 GiB beside the others), and it refeeds and updates the first 200,000 documents"
        + " rather than all of them (the write rates are per document). Heaps: mutable 6g,"
        + " segmented 2g each (its index is mapped, outside the heap). The literal procedure is"
        + " --clients 1,2,4,8,16,32,64 --duration 20 --warmup 5 --rounds 7 --write-docs 0, which"
        + " fits neither 3 hours nor 24 GiB on 2 cores.\n";
  }

  /**
   * The warning that a headline ratio (QPS per core, mutable ÷ another variant, {@value
   * #HEADLINE_CLIENTS} clients, at the first recall target and at equal recall where the run has
   * it) has an interval wider than ±{@code WIDE} of its median, with the cells; empty when none is,
   * or when the run has no such ratios.
   */
  static String addRounds(RowIndex idx, Ratios ratios) {
    if (!idx.queryVariants().contains(MUTABLE)) {
      return "";
    }
    Double target = idx.targets().isEmpty() ? null : idx.targets().getFirst();
    List<String> wide = new ArrayList<>();
    for (String other : idx.queryVariants()) {
      if (other.equals(MUTABLE)) {
        continue;
      }
      for (String t : TYPES) {
        for (boolean filtered : new boolean[] {false, true}) {
          Optional<Intervals.Interval> r =
              ratios.equalRecall(
                  MUTABLE, other, t, filtered, HEADLINE_CLIENTS, target, ResultRow::qpsPerCore);
          if (r.isPresent() && tooWide(r.get())) {
            wide.add(
                String.format(
                    Locale.ROOT,
                    "%s%s mutable ÷ %s %s",
                    t,
                    filtered ? " filtered" : "",
                    other,
                    Ratios.format(r.get())));
          }
        }
      }
    }
    if (wide.isEmpty()) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "**Add rounds:** %d of the %d-client QPS-per-core ratios have an interval wider than"
            + " ±%.0f%% of their median, too wide to state how large the difference is; run with"
            + " more --rounds (each costs one cell per variant, query type, filter and client"
            + " count): %s.\n\n",
        wide.size(),
        HEADLINE_CLIENTS,
        100 * WIDE,
        String.join("; ", wide));
  }

  /**
   * The section that names every query cell whose server took major page faults (pages read from
   * disk: its mapped index or its heap did not stay in memory, so the cell measured the disk as
   * well); empty when none did or none were counted.
   */
  static String majorFaults(RowIndex idx) {
    List<ResultRow> faulted =
        idx.all().stream()
            .filter(r -> r.isQueryCell() && r.round() != null)
            .filter(r -> r.majorFaults() != null && r.majorFaults() > 0)
            .toList();
    if (faulted.isEmpty()) {
      return "";
    }
    StringBuilder md =
        new StringBuilder(
            "## Major page faults\n\nCells in which the server read pages from disk: its index"
                + " or heap did not stay in memory beside the other servers, so these cells"
                + " measured the disk too.\n\n| variant | phase | query | clients | round |"
                + " major faults |\n|---|---|---|---:|---:|---:|\n");
    for (ResultRow r : faulted) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s%s | %s | %s | %d |\n",
              r.variant(),
              r.phase(),
              r.queryType(),
              Boolean.TRUE.equals(r.filtered()) ? " filtered" : "",
              r.clients(),
              r.round(),
              r.majorFaults()));
    }
    return md.append('\n').toString();
  }

  /** Whether an interval reaches further than {@link #WIDE} of its median on either side. */
  static boolean tooWide(Intervals.Interval i) {
    return i.n() >= 2 && (i.low() < (1 - WIDE) * i.median() || i.high() > (1 + WIDE) * i.median());
  }
}
