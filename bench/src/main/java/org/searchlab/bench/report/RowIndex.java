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

  /**
   * Summary query rows (not the per-round ones) of a variant, phase, type and filter; of the vector
   * and hybrid cells those at the headline recall target.
   */
  Stream<ResultRow> queries(String variant, String phase, String type, boolean filtered) {
    return queries(variant, phase, type, filtered, headlineTarget()).filter(r -> r.round() == null);
  }

  /** Query rows at a recall target (null: uncalibrated), per-round ones included. */
  Stream<ResultRow> queries(
      String variant, String phase, String type, boolean filtered, Double target) {
    return rows.stream()
        .filter(
            r ->
                r.isQueryCell()
                    && (r.recallTarget() == null || r.recallTarget().equals(target))
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

  /**
   * The baseline of a cell measured during the refeed: the same cell just before the refeed
   * started, or, in results written before those were measured, the query phase's cell.
   */
  Optional<ResultRow> beforeRefeed(ResultRow during) {
    return sameCellBeforeRefeed(during)
        .or(
            () ->
                query(during.variant(), "after_flush", during.queryType(), true, during.clients()));
  }

  /**
   * The cell measured just before the refeed with the same queries and clients as {@code during}.
   */
  Optional<ResultRow> sameCellBeforeRefeed(ResultRow during) {
    return query(during.variant(), "before_refeed", during.queryType(), true, during.clients());
  }

  /** The query-phase row of a variant: after_merge for the force-merged one, else after_flush. */
  Optional<ResultRow> main(String variant, String type, boolean filtered, int clients) {
    return query(variant, mainPhase(variant), type, filtered, clients);
  }

  static String mainPhase(String variant) {
    String floats = floatPeer(variant);
    return (floats == null ? variant : floats).endsWith("forcemerged")
        ? "after_merge"
        : "after_flush";
  }

  /**
   * The label of the float variant a quantized one is compared with ({@code segmented-forcemerged}
   * for {@code segmented-forcemerged-bbq}: the label less a {@code -int8}, {@code -int4} or {@code
   * -bbq} suffix, and {@code mutable} for {@code mutable-bbq-inline}), or null for a label without
   * one.
   */
  static String floatPeer(String variant) {
    if (variant.endsWith("-inline")) { // mutable-bbq-inline: the same store's floats
      variant = variant.substring(0, variant.length() - "-inline".length());
    }
    for (org.searchlab.core.VectorQuantization q : org.searchlab.core.VectorQuantization.values()) {
      String suffix = "-" + q.flag();
      if (q.quantized() && variant.endsWith(suffix)) {
        return variant.substring(0, variant.length() - suffix.length());
      }
    }
    return null;
  }

  /**
   * The per-round rows of a main-phase cell at a recall target, by round number (empty for a run
   * without rounds).
   */
  java.util.Map<Integer, ResultRow> rounds(
      String variant, String type, boolean filtered, int clients, Double target) {
    return rounds(variant, mainPhase(variant), type, filtered, clients, target);
  }

  /** The per-round rows of a cell of a phase at a recall target, by round number. */
  java.util.Map<Integer, ResultRow> rounds(
      String variant, String phase, String type, boolean filtered, int clients, Double target) {
    java.util.Map<Integer, ResultRow> out = new java.util.TreeMap<>();
    queries(variant, phase, type, filtered, target)
        .filter(r -> r.round() != null && r.clients() != null && r.clients() == clients)
        .forEach(r -> out.put(r.round(), r));
    return out;
  }

  /** The summary rows at exactly a recall target (phase {@code at_target}), in run order. */
  List<ResultRow> atTarget(Double target) {
    return rows.stream().filter(r -> estimate(r, target) && r.round() == null).toList();
  }

  /** Whether {@code r} is an estimate at exactly {@code target}, a round's or the summary. */
  private static boolean estimate(ResultRow r, Double target) {
    return r.isQueryCell()
        && r.phase().equals(AT_TARGET)
        && Objects.equals(r.recallTarget(), target);
  }

  /**
   * The estimates at {@code target}: the summary rows of {@link #atTarget}, then each round's. The
   * recall a cell is compared at comes from a feed's own rounds: a variant's summary row merges its
   * feeds, so the recall of the one feed that set the cell's common recall is diluted there (the
   * runner logged 0.968 for a Debian vector cell whose summary rows peaked at 0.964).
   */
  List<ResultRow> estimates(Double target) {
    List<ResultRow> out = new java.util.ArrayList<>(atTarget(target));
    rows.stream().filter(r -> estimate(r, target) && r.round() != null).forEach(out::add);
    return out;
  }

  /** The phase of the estimates at exactly the target recall. */
  static final String AT_TARGET = "at_target";

  /** The phase of the cells at the beam below the calibrated one. */
  static final String BELOW_BEAM = "below_beam";

  /** The recall targets the vector cells were measured at, in run order (may hold null). */
  List<Double> targets() {
    return rows.stream()
        .filter(
            r ->
                r.isQueryCell()
                    && r.round() != null
                    && !r.queryType().equals("lexical")
                    && !r.queryType().equals(ReportWriter.FACETED)
                    && !r.phase().equals(AT_TARGET)
                    && !r.phase().equals(BELOW_BEAM))
        .map(ResultRow::recallTarget)
        .distinct()
        .toList();
  }

  /** The first recall target of the run, or null when its candidates were fixed. */
  Double headlineTarget() {
    List<Double> t = targets();
    return t.isEmpty() ? null : t.get(0);
  }

  /**
   * The segment counts of the indexes a variant's query rounds ran on, one per independent feed in
   * the order the rounds took them (the rounds take the feeds in turn, so the per-round counts of
   * one cell repeat with the number of feeds as their period; feeds of equal count that make the
   * sequence repeat sooner are reported once).
   */
  List<Integer> roundSegments(String variant) {
    Integer clients = headlineClients();
    List<Integer> perRound =
        rows.stream()
            .filter(
                r ->
                    r.variant().equals(variant)
                        && r.phase().equals(mainPhase(variant))
                        && r.round() != null
                        && r.queryType() != null
                        && r.queryType().equals("lexical")
                        && Boolean.FALSE.equals(r.filtered())
                        && Objects.equals(r.clients(), clients)
                        && r.segments() != null)
            .sorted(java.util.Comparator.comparing(ResultRow::round))
            .map(ResultRow::segments)
            .toList();
    return period(perRound);
  }

  /**
   * The "k/candidates" a summary row's rounds ran at, one per independent feed in the order the
   * rounds took them (each feed has its own beam); one entry when every round ran at the same
   * setting or the row has no rounds.
   */
  List<String> roundCandidates(ResultRow summary) {
    List<String> perRound =
        roundRows(summary).stream().map(r -> r.targetHits() + "/" + r.numCandidates()).toList();
    return perRound.isEmpty()
        ? List.of(summary.targetHits() + "/" + summary.numCandidates())
        : period(perRound);
  }

  /**
   * One round row per independent feed of a summary row's cell, in the order the rounds took the
   * feeds (the shortest period of their beams, recalls and segment counts); empty without rounds.
   */
  List<ResultRow> feedRows(ResultRow summary) {
    List<ResultRow> perRound = roundRows(summary);
    List<String> keys =
        perRound.stream()
            .map(r -> r.numCandidates() + "|" + r.recallAt10() + "|" + r.segments())
            .toList();
    return perRound.subList(0, period(keys).size());
  }

  private List<ResultRow> roundRows(ResultRow summary) {
    return rows.stream()
        .filter(
            r ->
                r.round() != null
                    && r.variant().equals(summary.variant())
                    && r.phase().equals(summary.phase())
                    && Objects.equals(r.queryType(), summary.queryType())
                    && Objects.equals(r.filtered(), summary.filtered())
                    && Objects.equals(r.clients(), summary.clients())
                    && Objects.equals(r.recallTarget(), summary.recallTarget())
                    && r.numCandidates() != null)
        .sorted(java.util.Comparator.comparing(ResultRow::round))
        .toList();
  }

  /** The shortest prefix whose repetition makes up {@code perRound}: the per-feed values. */
  private static <T> List<T> period(List<T> perRound) {
    for (int period = 1; period <= perRound.size(); period++) {
      boolean repeats = true;
      for (int i = period; i < perRound.size() && repeats; i++) {
        repeats = perRound.get(i).equals(perRound.get(i - period));
      }
      if (repeats) {
        return perRound.subList(0, period);
      }
    }
    return perRound;
  }

  Optional<ResultRow> feed(String variant, String phase) {
    return rows.stream()
        .filter(r -> !r.isQueryCell() && r.variant().equals(variant) && r.phase().equals(phase))
        .findFirst();
  }

  /**
   * Variants with query rows in their main phase, in a stable order: the built-in ones first, then
   * targets in the order of their first row.
   */
  List<String> queryVariants() {
    return Stream.concat(
            Stream.of(
                "mutable",
                "segmented",
                "segmented-forcemerged",
                "opensearch",
                "opensearch-forcemerged"),
            rows.stream().filter(ResultRow::isQueryCell).map(ResultRow::variant))
        .distinct()
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

  /** The client count the headline comparisons use: 16 if measured, else the nearest. */
  int headlineClients() {
    List<Integer> c = clients();
    if (c.isEmpty()) {
      return 16;
    }
    return c.stream().min((a, b) -> Integer.compare(Math.abs(a - 16), Math.abs(b - 16))).get();
  }
}
