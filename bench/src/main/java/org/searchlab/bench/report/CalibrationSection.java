package org.searchlab.bench.report;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The report's calibration section: per variant, vector and hybrid query type and filter setting,
 * the beam chosen for each recall target, the tie-aware recall@10 it reached on the calibration
 * queries and the recall@10 it then measured on the measured queries; and the calibration grid
 * itself (recall and QPS per core of every beam, the points of the recall/QPS plots). Immutable;
 * thread-safe.
 */
final class CalibrationSection {
  private static final String[] TYPES = {"vector", "hybrid"};

  private final RowIndex idx;

  CalibrationSection(RowIndex idx) {
    this.idx = idx;
  }

  void write(StringBuilder md) {
    List<ResultRow> grid =
        idx.all().stream().filter(r -> r.isQueryCell() && r.phase().equals("calibration")).toList();
    if (grid.isEmpty()) {
      return;
    }
    md.append("## Calibration\n\n")
        .append(
            "Chosen setting (k/candidates) per variant: the smallest beam of the grid whose"
                + " tie-aware recall@10 on the calibration queries reached the target, then moved"
                + " along the grid to the smallest beam at which the measured queries reach it"
                + " (up where they fell short, down where the beam below still reached it), one"
                + " line per independent feed where the rounds took several (the calibration ran"
                + " on the first; each feed moved on its own); \"measured recall@10\" is that of"
                + " the measured queries at the setting.\n\n")
        .append(
            "| target | variant | query | k/candidates | calibration recall@10 | measured recall@10 |"
                + " reached |\n")
        .append("|---:|---|---|---:|---:|---:|---|\n");
    for (Double target : idx.targets()) {
      for (String v : idx.queryVariants()) {
        for (String t : TYPES) {
          for (boolean f : new boolean[] {false, true}) {
            Optional<ResultRow> cell =
                idx.queries(v, RowIndex.mainPhase(v), t, f, target)
                    .filter(r -> r.round() == null && Objects.equals(r.recallTarget(), target))
                    .findFirst();
            if (cell.isEmpty() || cell.get().numCandidates() == null) {
              continue;
            }
            // One line per independent feed where the rounds took several (each at its own beam,
            // with its own measured recall), else the summary's.
            List<ResultRow> feeds = idx.feedRows(cell.get());
            boolean perFeed = feeds.size() > 1 && feeds.get(0).recallAt10() != null;
            List<ResultRow> lines = perFeed ? feeds : List.of(cell.get());
            for (int i = 0; i < lines.size(); i++) {
              ResultRow c = lines.get(i);
              Optional<ResultRow> cal =
                  grid.stream()
                      .filter(
                          r ->
                              r.variant().equals(v)
                                  && r.queryType().equals(t)
                                  && r.filtered() == f
                                  && Objects.equals(r.numCandidates(), c.numCandidates())
                                  && Objects.equals(r.targetHits(), c.targetHits()))
                      .findFirst();
              // The calibration ran on the first feed only.
              Double calRecall = i == 0 ? cal.map(ResultRow::recallAt10).orElse(null) : null;
              md.append(
                  String.format(
                      Locale.ROOT,
                      "| %.2f | %s | %s%s | %d/%d | %s | %s | %s |%n",
                      target,
                      perFeed ? v + " (feed " + (i + 1) + ")" : v,
                      t,
                      f ? " filtered" : "",
                      c.targetHits(),
                      c.numCandidates(),
                      ReportWriter.num(calRecall),
                      ReportWriter.num(c.recallAt10()),
                      c.recallAt10() != null && c.recallAt10() >= target ? "yes" : "NO"));
            }
          }
        }
      }
    }
    md.append("\n### Calibration grid\n\n")
        .append(
            "| variant | query | k/candidates | calibration recall@10 | recall@10 ids | clients |"
                + " QPS | QPS/core |\n")
        .append("|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (ResultRow r : grid) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s%s | %d/%d | %s | %s | %d | %.0f | %s |%n",
              r.variant(),
              r.queryType(),
              r.filtered() ? " filtered" : "",
              r.targetHits(),
              r.numCandidates(),
              ReportWriter.num(r.recallAt10()),
              ReportWriter.num(r.recallAt10Ids()),
              r.clients(),
              r.qps(),
              ReportWriter.perCore(r)));
    }
    md.append('\n');
  }
}
