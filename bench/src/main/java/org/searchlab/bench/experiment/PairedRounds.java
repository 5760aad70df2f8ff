package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.Intervals;
import org.searchlab.bench.report.ResultRow;

/**
 * The query cells in paired rounds. With every variant's server up, each round measures every cell
 * (query type × filter × client count) once per variant, the variants of a cell back to back so
 * that they share a time window, in an order that alternates from round to round (forward, then
 * reversed) so that neither always runs first. Each cell gets one row per round and a summary row:
 * the median over rounds with its order-statistic interval ({@link Intervals}), tie-aware and
 * id-based recall@10 and overlap@10 of the quality queries at the cell's setting. The vector and
 * hybrid cells run at the setting the {@link Calibration} chose for each recall target, moved to
 * the next larger beam when the measured queries fall short of the target there (lexical cells only
 * for the first target). Runs on the caller's thread; not thread-safe.
 */
final class PairedRounds {
  private final RunContext ctx;
  private final Corpus corpus;
  private final List<BenchQuery> quality;
  private final ExactSearch exact;
  private final Servers servers;
  private final Calibration calibration;

  PairedRounds(
      RunContext ctx,
      Corpus corpus,
      List<BenchQuery> quality,
      ExactSearch exact,
      Servers servers,
      Calibration calibration) {
    this.ctx = ctx;
    this.corpus = corpus;
    this.quality = quality;
    this.exact = exact;
    this.servers = servers;
    this.calibration = calibration;
  }

  /** Planned seconds of one cell. */
  static double seconds(Profile p) {
    return (p.warmup().toMillis() + p.duration().toMillis()) / 1000.0;
  }

  /** The recall targets cells are measured at; one null entry when the candidates are fixed. */
  static List<Double> targets(Profile p) {
    return p.fixedCandidates() ? Arrays.asList((Double) null) : p.recallTargets();
  }

  /** Timed cells of all rounds, for the progress estimate. */
  static int cells(Profile p, int variants) {
    int types = 3 + 2 * (targets(p).size() - 1);
    return p.rounds() * variants * types * 2 * p.clients().size();
  }

  void run() throws IOException, InterruptedException {
    List<Double> targets = targets(ctx.profile);
    for (int ti = 0; ti < targets.size(); ti++) {
      Double target = targets.get(ti);
      List<QueryType> types = ti == 0 ? List.of(QueryType.values()) : Calibration.CALIBRATED;
      measure(types, target);
    }
  }

  private void measure(List<QueryType> types, Double target)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    List<Variant> variants = servers.variants();
    Map<String, ResultRow> qualityOf = new HashMap<>();
    Map<String, List<List<String>>> truth = new LinkedHashMap<>();
    Map<String, List<HttpRequest>> requests = new HashMap<>();
    for (QueryType t : types) {
      for (boolean f : new boolean[] {false, true}) {
        Map<String, List<List<String>>> answers = new LinkedHashMap<>();
        for (Variant v : variants) {
          Session s = servers.session(v);
          answers.put(
              v.label(), s.ids(s.requests(quality, t, f, calibration.setting(v, t, f, target))));
        }
        List<List<String>> pairs = pairs(variants);
        QualityCheck.Result q = QualityCheck.evaluate(exact, quality, t, f, answers, pairs);
        // A beam calibrated on other queries may fall just short on these: take the next beam of
        // the grid until the measured queries reach the target too (the report shows the beam).
        boolean bumped = false;
        for (Variant v : variants) {
          while (target != null
              && q.recall().getOrDefault(v.label(), 0.0) < target
              && calibration.bump(v, t, f, target)) {
            Session s = servers.session(v);
            answers.put(
                v.label(), s.ids(s.requests(quality, t, f, calibration.setting(v, t, f, target))));
            q = QualityCheck.evaluate(exact, quality, t, f, answers, pairs);
            bumped = true;
          }
        }
        if (bumped) {
          ctx.progress.step(
              Phases.CALIBRATION,
              t.label() + (f ? " filtered" : "") + ": a larger beam for the measured queries");
        }
        for (Variant v : variants) {
          Session s = servers.session(v);
          requests.put(
              key(v, t, f),
              s.requests(corpus.queries(), t, f, calibration.setting(v, t, f, target)));
        }
        truth.put(t.label() + (f ? "_filtered" : ""), q.exact());
        for (Variant v : variants) {
          String pair =
              pairs.stream()
                  .filter(x -> x.get(0).equals(v.label()))
                  .findFirst()
                  .map(x -> x.get(0) + "|" + x.get(1))
                  .orElse("");
          // A carrier row for the four measures; the summary rows copy them.
          qualityOf.put(
              key(v, t, f),
              Rows.query(ctx.info, v.label(), "", t, f, 0, null, null, EMPTY)
                  .withQuality(q.recall().get(v.label()), q.overlap().get(pair))
                  .withIdQuality(q.recallIds().get(v.label()), q.overlapIds().get(pair)));
        }
        ctx.progress.step(
            phaseOf(variants.get(0)),
            String.format(
                "%s%s%s: tie-aware recall@10 %s, overlap@10 %s",
                t.label(),
                f ? " filtered" : "",
                target == null ? "" : " at target " + target,
                q.recall(),
                q.overlap()));
      }
    }
    if (types.contains(QueryType.LEXICAL)) {
      writeGroundTruth(truth);
    }
    Map<String, List<ResultRow>> perCell = new LinkedHashMap<>();
    for (int round = 1; round <= p.rounds(); round++) {
      List<Variant> order = new ArrayList<>(variants);
      if (round % 2 == 0) {
        java.util.Collections.reverse(order);
      }
      for (QueryType t : types) {
        for (boolean f : new boolean[] {false, true}) {
          for (int clients : p.clients()) {
            for (Variant v : order) {
              Setting g = calibration.setting(v, t, f, target);
              ctx.progress.cell(
                  phaseOf(v),
                  String.format(
                      "round %d/%d %s %s%s clients=%d%s",
                      round,
                      p.rounds(),
                      v.label(),
                      t.label(),
                      f ? " filtered" : "",
                      clients,
                      t == QueryType.LEXICAL ? "" : " candidates=" + g.candidates()),
                  seconds(p));
              CellStats c =
                  servers
                      .session(v)
                      .cell(requests.get(key(v, t, f)), clients, p.warmup(), p.duration());
              if (c.errors() > 0) {
                ctx.log.printf(
                    "WARNING: %s %s: %d failed requests in the cell%n",
                    v.label(), t.label(), c.errors());
              }
              ResultRow row =
                  Rows.query(
                          ctx.info,
                          v.label(),
                          phaseOf(v),
                          t,
                          f,
                          clients,
                          servers.segments(v),
                          null,
                          c)
                      .withCandidates(g.k(), g.candidates(), t == QueryType.LEXICAL ? null : target)
                      .withRound(round);
              ctx.add(row);
              perCell
                  .computeIfAbsent(key(v, t, f) + "|" + clients, k -> new ArrayList<>())
                  .add(row);
            }
          }
        }
      }
    }
    for (List<ResultRow> rounds : perCell.values()) {
      ResultRow first = rounds.get(0);
      QueryType t = QueryType.valueOf(first.queryType().toUpperCase(java.util.Locale.ROOT));
      Variant v =
          variants.stream()
              .filter(x -> x.label().equals(first.variant()))
              .findFirst()
              .orElseThrow();
      ResultRow q = qualityOf.get(key(v, t, first.filtered()));
      ctx.add(
          Rows.query(
                  ctx.info,
                  first.variant(),
                  first.phase(),
                  t,
                  first.filtered(),
                  first.clients(),
                  first.segments(),
                  null,
                  median(rounds))
              .withCandidates(first.targetHits(), first.numCandidates(), first.recallTarget())
              .withInterval(
                  Intervals.median(values(rounds, ResultRow::qps)),
                  Intervals.median(values(rounds, ResultRow::qpsPerCore)))
              .withQuality(q.recallAt10(), q.overlapAt10())
              .withIdQuality(q.recallAt10Ids(), q.overlapAt10Ids()));
    }
  }

  /**
   * Writes {@code ground-truth.jsonl}: per quality query, its text, category, source and the exact
   * top-10 ids of every query type and filter setting.
   */
  private void writeGroundTruth(Map<String, List<List<String>>> truth) throws IOException {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < quality.size(); i++) {
      BenchQuery q = quality.get(i);
      com.fasterxml.jackson.databind.node.ObjectNode n = Json.object();
      n.put("text", q.text());
      n.put("category", q.category());
      n.put("source", q.sourceId());
      com.fasterxml.jackson.databind.node.ObjectNode top = n.putObject("exact_top_10");
      for (Map.Entry<String, List<List<String>>> e : truth.entrySet()) {
        top.putPOJO(e.getKey(), e.getValue().get(i));
      }
      out.append(Json.MAPPER.writeValueAsString(n)).append('\n');
    }
    java.nio.file.Files.writeString(ctx.outDir.resolve(GROUND_TRUTH), out);
  }

  /** The file the exact top-10s of the quality queries go to. */
  static final String GROUND_TRUTH = "ground-truth.jsonl";

  private static final CellStats EMPTY = new CellStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /**
   * Overlap pairs, one per variant at most (its row's overlap@10): each segmented variant against
   * mutable, mutable against the first of them; each OpenSearch variant and target against the
   * segmented store (the force-merged one against the force-merged one where both ran), else
   * against mutable: how faithfully the segmented store stands in for a real engine.
   */
  static List<List<String>> pairs(List<Variant> variants) {
    List<List<String>> out = new ArrayList<>();
    boolean mutable = variants.contains(Variant.MUTABLE);
    for (Variant v : variants) {
      if (v.store().equals(Variant.SEGMENTED_STORE) && mutable) {
        out.add(List.of(v.label(), Variant.MUTABLE.label()));
      }
    }
    if (mutable) {
      variants.stream()
          .filter(v -> v.store().equals(Variant.SEGMENTED_STORE))
          .findFirst()
          .ifPresent(v -> out.add(List.of(Variant.MUTABLE.label(), v.label())));
    }
    for (Variant v : variants) {
      if (v.store().equals(Variant.OPENSEARCH_STORE) || v.isTarget()) {
        List<Variant> refs =
            v.forceMerged()
                ? List.of(Variant.SEGMENTED_FORCEMERGED, Variant.SEGMENTED, Variant.MUTABLE)
                : List.of(Variant.SEGMENTED, Variant.SEGMENTED_FORCEMERGED, Variant.MUTABLE);
        refs.stream()
            .filter(variants::contains)
            .findFirst()
            .ifPresent(r -> out.add(List.of(v.label(), r.label())));
      }
    }
    return out;
  }

  static String phaseOf(Variant v) {
    return v.forceMerged() ? Phases.AFTER_MERGE : Phases.AFTER_FLUSH;
  }

  private static String key(Variant v, QueryType t, boolean f) {
    return v.label() + "|" + t.label() + "|" + f;
  }

  private static double[] values(List<ResultRow> rows, ToDoubleFunction<ResultRow> f) {
    return rows.stream().mapToDouble(f).toArray();
  }

  /** Per-metric medians over the rounds (requests and errors summed). */
  private static CellStats median(List<ResultRow> rows) {
    return new CellStats(
        rows.stream().mapToLong(ResultRow::requests).sum(),
        rows.stream().mapToLong(ResultRow::errors).sum(),
        rows.stream().mapToDouble(ResultRow::seconds).sum(),
        Intervals.median(values(rows, ResultRow::qps)).median(),
        Intervals.median(values(rows, ResultRow::avgMs)).median(),
        Intervals.median(values(rows, ResultRow::p50Ms)).median(),
        Intervals.median(values(rows, ResultRow::p95Ms)).median(),
        Intervals.median(values(rows, ResultRow::p99Ms)).median(),
        Intervals.median(values(rows, ResultRow::p999Ms)).median(),
        Intervals.median(values(rows, ResultRow::cpuCores)).median());
  }
}
