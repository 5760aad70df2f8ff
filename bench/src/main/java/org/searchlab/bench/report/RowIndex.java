package org.searchlab.bench.report;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/** Look-ups over a run's rows. Immutable and thread-safe. */
final class RowIndex {
  private final List<ResultRow> rows;

  RowIndex(List<ResultRow> rows) {
    this.rows = List.copyOf(rows);
  }

  List<ResultRow> all() {
    return rows;
  }

  Stream<ResultRow> queries(String variant, String phase, String type, boolean filtered) {
    return rows.stream()
        .filter(
            r ->
                r.isQueryCell()
                    && r.variant().equals(variant)
                    && r.phase().equals(phase)
                    && r.queryType().equals(type)
                    && Objects.equals(r.filtered(), filtered));
  }

  Optional<ResultRow> query(
      String variant, String phase, String type, boolean filtered, int clients) {
    return queries(variant, phase, type, filtered)
        .filter(r -> r.clients() != null && r.clients() == clients)
        .findFirst();
  }

  /** The query-phase row of a variant: after_merge for the force-merged one, else after_flush. */
  Optional<ResultRow> main(String variant, String type, boolean filtered, int clients) {
    return query(variant, mainPhase(variant), type, filtered, clients);
  }

  static String mainPhase(String variant) {
    return variant.endsWith("forcemerged") ? "after_merge" : "after_flush";
  }

  Optional<ResultRow> feed(String variant, String phase) {
    return rows.stream()
        .filter(r -> !r.isQueryCell() && r.variant().equals(variant) && r.phase().equals(phase))
        .findFirst();
  }

  Optional<ResultRow> sweep(int segments, String threads, String type, int clients) {
    return rows.stream()
        .filter(
            r ->
                r.isQueryCell()
                    && r.phase().equals("sweep")
                    && Objects.equals(r.segments(), segments)
                    && Objects.equals(r.searchThreads(), threads)
                    && r.queryType().equals(type)
                    && r.clients() == clients)
        .findFirst();
  }

  /** Variants with query rows in their main phase, in a stable order. */
  List<String> queryVariants() {
    return Stream.of("mutable", "segmented", "segmented-forcemerged")
        .filter(
            v ->
                rows.stream()
                    .anyMatch(
                        r ->
                            r.isQueryCell()
                                && r.variant().equals(v)
                                && r.phase().equals(mainPhase(v))))
        .toList();
  }

  /** Client counts of the main query phases, ascending. */
  List<Integer> clients() {
    return rows.stream()
        .filter(
            r ->
                r.isQueryCell()
                    && (r.phase().equals("after_flush") || r.phase().equals("after_merge")))
        .map(ResultRow::clients)
        .distinct()
        .sorted()
        .toList();
  }

  /** Segment counts of the sweep, descending. */
  List<Integer> sweepSegments() {
    return rows.stream()
        .filter(r -> r.phase().equals("sweep") && r.segments() != null)
        .map(ResultRow::segments)
        .distinct()
        .sorted((a, b) -> Integer.compare(b, a))
        .toList();
  }

  List<Integer> sweepClients() {
    return rows.stream()
        .filter(r -> r.phase().equals("sweep"))
        .map(ResultRow::clients)
        .distinct()
        .sorted()
        .toList();
  }

  /** The client count the headline comparisons use: 16 if measured, else the nearest. */
  int headlineClients() {
    List<Integer> c = clients();
    if (c.isEmpty()) {
      return 16;
    }
    return c.stream().min((a, b) -> Integer.compare(Math.abs(a - 16), Math.abs(b - 16))).get();
  }
}
