package org.searchlab.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The findings of the segment-count sweep: what CPU per query the most segments cost against the
 * fewest, per query type, and what concurrent segment search does to latency and CPU per query at
 * the most segments and 1 client, each as the median of per-round ratios with its interval and a
 * direction only where the interval excludes 1. Immutable; thread-safe.
 */
final class SweepFindings {
  private final SweepRows sweep;

  SweepFindings(RowIndex idx) {
    this.sweep = new SweepRows(idx);
  }

  /** The sentences, in the order the findings paragraph states them. */
  List<String> sentences() {
    List<String> s = new ArrayList<>();
    if (sweep.isEmpty()) {
      s.add("Concurrent vs sequential segment search was not measured (no sweep).");
      return s;
    }
    segmentCount(s);
    concurrent(s);
    return s;
  }

  /** The most ÷ the fewest segments, CPU per query, sequential search, every type and client. */
  private void segmentCount(List<String> s) {
    List<Integer> segments = sweep.segments();
    List<SweepRows.Setting> settings = sweep.settings();
    if (segments.size() < 2 || !settings.getFirst().sequential()) {
      return;
    }
    int most = segments.getFirst();
    int fewest = segments.getLast();
    SweepRows.Setting seq = settings.getFirst();
    List<String> parts = new ArrayList<>();
    int more = 0;
    int less = 0;
    int total = 0;
    String coverage = "";
    for (int c : sweep.clients()) {
      List<String> perType = new ArrayList<>();
      for (String t : sweep.types()) {
        Optional<Intervals.Interval> r =
            sweep.ratio(sweep.costPhase(t), t, most, seq, fewest, seq, c, SweepRows::cpuMsPerQuery);
        if (r.isEmpty()) {
          continue;
        }
        total++;
        if (r.get().n() >= 2) {
          coverage = String.format(Locale.ROOT, ", %.1f%% coverage", 100 * r.get().coverage());
        }
        String dir = Ratios.direction(r.get(), "costlier", "cheaper");
        more += dir.equals("costlier") ? 1 : 0;
        less += dir.equals("cheaper") ? 1 : 0;
        perType.add(String.format(Locale.ROOT, "%s %s× (%s)", t, Ratios.format(r.get()), dir));
      }
      if (!perType.isEmpty()) {
        parts.add(c + " client" + (c == 1 ? "" : "s") + ": " + String.join(", ", perType));
      }
    }
    if (total == 0) {
      return;
    }
    s.add(
        String.format(
            Locale.ROOT,
            "**CPU per query at %d segments vs %d, sequential search: costlier in %d, cheaper in %d,"
                + " not distinguishable in %d of %d cells** (%d ÷ %d segments, median of the"
                + " per-round ratios [interval%s]%s; %s).",
            most,
            fewest,
            more,
            less,
            total - more - less,
            total,
            most,
            fewest,
            coverage,
            calibrated() ? "; vector and hybrid at equal recall@10" : "",
            String.join("; ", parts)));
  }

  /**
   * Each concurrent setting ÷ sequential at the most segments and the fewest clients: average
   * latency and CPU per query, every type.
   */
  private void concurrent(List<String> s) {
    List<SweepRows.Setting> settings = sweep.settings();
    if (settings.size() < 2 || !settings.getFirst().sequential()) {
      return;
    }
    SweepRows.Setting seq = settings.getFirst();
    int most = sweep.segments().getFirst();
    int c = sweep.clients().getFirst();
    for (SweepRows.Setting conc : settings.subList(1, settings.size())) {
      List<String> parts = new ArrayList<>();
      int sooner = 0;
      int later = 0;
      int costlier = 0;
      int cheaper = 0;
      int total = 0;
      for (String t : sweep.types()) {
        String phase = sweep.costPhase(t);
        Optional<Intervals.Interval> lat =
            sweep.ratio(phase, t, most, conc, most, seq, c, ResultRow::avgMs);
        Optional<Intervals.Interval> cpu =
            sweep.ratio(phase, t, most, conc, most, seq, c, SweepRows::cpuMsPerQuery);
        if (lat.isEmpty() || cpu.isEmpty()) {
          continue;
        }
        total++;
        String l = Ratios.direction(lat.get(), "later", "sooner");
        String p = Ratios.direction(cpu.get(), "costlier", "cheaper");
        sooner += l.equals("sooner") ? 1 : 0;
        later += l.equals("later") ? 1 : 0;
        costlier += p.equals("costlier") ? 1 : 0;
        cheaper += p.equals("cheaper") ? 1 : 0;
        parts.add(
            String.format(
                Locale.ROOT,
                "%s: latency %s× (%s), CPU/query %s× (%s)",
                t,
                Ratios.format(lat.get()),
                l,
                Ratios.format(cpu.get()),
                p));
      }
      if (total == 0) {
        continue;
      }
      s.add(
          String.format(
              Locale.ROOT,
              "**Concurrent segment search (%s) at %d segments, %d client%s: answers sooner in %d,"
                  + " later in %d, not distinguishable in %d of %d query types; costs more CPU per"
                  + " query in %d, less in %d, not distinguishable in %d** (%s ÷ seq, median of the"
                  + " per-round ratios [interval]: %s).",
              conc.label(),
              most,
              c,
              c == 1 ? "" : "s",
              sooner,
              later,
              total - sooner - later,
              total,
              costlier,
              cheaper,
              total - costlier - cheaper,
              conc.label(),
              String.join("; ", parts)));
    }
  }

  private boolean calibrated() {
    return sweep.types().stream().anyMatch(t -> sweep.costPhase(t).equals(SweepRows.AT_TARGET));
  }
}
