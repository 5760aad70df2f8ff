package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.Intervals;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;

/**
 * The segment-count sweep (issue 71): how the segmented store's query cost grows with its segment
 * count, searching segments one after another or concurrently, at equal recall.
 *
 * <ol>
 *   <li>{@link SweepIndexes} feeds the sweep corpus in segments of tiered sizes and force-merges it
 *       down through the profile's segment counts, keeping a copy of each count's index per {@link
 *       SweepSetting} (sequential, and concurrent with each of the profile's slicings).
 *   <li>Calibration: per count, every setting's server answers the filtered quality queries; the
 *       lexical recall and the faceted buckets are checked against the exact oracle (buckets that
 *       differ fail the run), and {@link SweepBeams} chooses each count's vector and hybrid beams
 *       so that every count is compared at the same recall@10.
 *   <li>{@link Profile#sweepRounds} rounds. Each round visits every count (forward in odd rounds,
 *       backward in even ones, so that a drift of the machine does not always favour one end),
 *       starts that count's servers afresh and measures every filtered cell (query type × client
 *       count) once per setting, each type just after {@link SweepServers#warm} has warmed the
 *       servers' JIT on that type's requests until their CPU per query stopped falling, the
 *       settings of a cell back to back in an order that reverses every round. A vector or hybrid
 *       cell is measured at its count's beam and at the beam below, and the round's estimate at
 *       exactly the goal recall interpolates between the two ({@link PairedRounds#atTarget}, phase
 *       {@link Phases#SWEEP_AT_TARGET}).
 *   <li>Each cell gets a summary row: the median over the rounds with its order-statistic interval;
 *       the report's ratios (100 ÷ 1 segments, concurrent ÷ sequential) are medians of per-round
 *       ratios with intervals.
 * </ol>
 *
 * Restarting the servers every round costs a JVM start and a warm-up per count and setting, and
 * buys intervals that include what differs between two starts of the same server (JIT decisions,
 * heap layout): what a second run of the sweep also differs by. Runs on the caller's thread; not
 * thread-safe.
 */
final class SegmentSweep {
  static final String VARIANT = "segmented";
  static final String SEQUENTIAL = "0";
  static final String DEFAULT_POOL = "default";

  /** The sweep's segment sizes and recall goals, which the report's sweep section reads. */
  static final String FILE_JSON = "sweep.json";

  private final RunContext ctx;
  private final Corpus corpus;
  private final List<BenchQuery> qualityQueries;
  private final ExactSearch exact;
  private final Facets facets;
  private final List<SweepSetting> settings;
  private final SweepBeams beams;
  private final Map<QueryType, List<ExactAnswer>> truths = new EnumMap<>(QueryType.class);

  /**
   * Operations of each machine reference measurement: about 0.1 s of one core, and as many warm.
   */
  static final int REFERENCE_OPS = 500;

  private final MachineReference reference = new MachineReference(SweepIndexes.SEED);

  /** The machine reference of every round and count, for {@value #FILE_JSON}. */
  private final com.fasterxml.jackson.databind.node.ArrayNode references =
      Json.MAPPER.createArrayNode();

  /** Per count, setting and lexical or faceted type ({@link #key}): recall@10 of the hits. */
  private final Map<String, Double> recall = new LinkedHashMap<>();

  SegmentSweep(RunContext ctx, Corpus corpus, List<BenchQuery> qualityQueries, ExactSearch exact) {
    this.ctx = ctx;
    this.corpus = corpus;
    this.qualityQueries = qualityQueries;
    this.exact = exact;
    this.facets = Facets.of(corpus.mapping(), corpus.docs());
    this.settings = SweepSetting.of(ctx.profile.sweepSlicings());
    this.beams = new SweepBeams(ctx.profile);
  }

  /**
   * Timed cells of the sweep, for the progress estimate: per round, count, setting and client
   * count, lexical and faceted once, vector and hybrid twice (the beam below; fewer where a count's
   * beam is the grid's smallest).
   */
  static int cells(Profile p) {
    int settings = 1 + p.sweepSlicings().size();
    return p.sweepRounds() * p.sweepSegments().size() * settings * 6 * p.sweepClients().size();
  }

  /**
   * Planned seconds of the sweep's JIT warm-ups, for the progress estimate: per round, count and
   * query type, half the warm-up limit (in the first two runs with {@link WarmupRule}, a type's
   * warm-up took 9–59 s of the 60 s limit, 23–25 on median).
   */
  static double warmupSeconds(Profile p) {
    return p.sweepRounds() * p.sweepSegments().size() * 4 * p.sweepWarmupLimit().toMillis() / 2e3;
  }

  /** Planned seconds of one sweep cell. */
  static double seconds(Profile p) {
    return (p.warmup().toMillis() + p.sweepDuration().toMillis()) / 1000.0;
  }

  void run() throws IOException, InterruptedException {
    SweepIndexes.Built built = SweepIndexes.build(ctx, corpus, settings);
    SweepServers sweepServers = new SweepServers(ctx, built, settings, corpus.dimension());
    calibrate(sweepServers);
    Map<String, List<ResultRow>> perCell = new LinkedHashMap<>();
    List<Integer> counts = ctx.profile.sweepSegments();
    for (int round = 1; round <= ctx.profile.sweepRounds(); round++) {
      List<Integer> order = new ArrayList<>(counts);
      if (round % 2 == 0) {
        Collections.reverse(order);
      }
      for (int count : order) {
        long[] steal = MachineReference.stealAndTotalTicks(MachineReference.PROC_STAT);
        Map<SweepSetting, Session> servers = sweepServers.start(count, round);
        try {
          measure(sweepServers, servers, segmentsOf(built, count), count, round, perCell);
          // while the servers sit idle after their cells
          reference.record(references, round, count, steal, REFERENCE_OPS);
        } finally {
          SweepServers.closeAll(servers);
        }
        ctx.log.printf(
            "sweep round %d, %d segments, JIT warm-ups:%s%n",
            round, count, sweepServers.describe(round, count));
      }
    }
    for (List<ResultRow> rounds : perCell.values()) {
      ctx.add(summary(rounds));
    }
    writeJson(built, sweepServers);
  }

  /**
   * Per count, each setting's server answers the quality queries: recall of the lexical and faceted
   * hits, the faceted buckets against the oracle's, and the vector and hybrid recall over the grid;
   * then the beams are chosen.
   */
  private void calibrate(SweepServers sweepServers) throws IOException, InterruptedException {
    for (int count : ctx.profile.sweepSegments()) {
      Map<SweepSetting, Session> servers = sweepServers.start(count, 0);
      long t0 = System.nanoTime();
      long sent = 0;
      try {
        for (QueryType t : Calibration.CALIBRATED) {
          sent += beams.measure(t, count, servers, qualityQueries, truths(t));
        }
        for (Map.Entry<SweepSetting, Session> e : servers.entrySet()) {
          Session s = e.getValue();
          List<List<String>> lexical =
              s.ids(s.requests(qualityQueries, QueryType.LEXICAL, true, Setting.BENCHMARK));
          recall.put(
              key(count, e.getKey(), QueryType.LEXICAL.label()),
              recallOf(truths(QueryType.LEXICAL), lexical));
          sent += qualityQueries.size();
          if (facets.any()) {
            recall.put(
                key(count, e.getKey(), FacetedRounds.LABEL), checkFacets(s, count, e.getKey()));
            sent += qualityQueries.size();
          }
        }
      } finally {
        SweepServers.closeAll(servers);
      }
      ctx.progress.checked(sent, (System.nanoTime() - t0) / 1e9);
    }
    beams.choose(ctx.log);
    for (QueryType t : Calibration.CALIBRATED) {
      StringBuilder line = new StringBuilder();
      for (int count : ctx.profile.sweepSegments()) {
        SweepBeams.Choice c = beams.choice(t, count);
        line.append(String.format(Locale.ROOT, " %d→%d", count, c.beam().candidates()));
      }
      ctx.progress.step(
          Phases.SWEEP,
          String.format(
              Locale.ROOT,
              "%s filtered at recall@10 %.3f, beam per segment count:%s",
              t.label(),
              beams.goal(t),
              line));
    }
  }

  /** The recall@10 of one list of answers. */
  private static double recallOf(List<ExactAnswer> truths, List<List<String>> answers) {
    return QualityCheck.evaluate(truths, Map.of(VARIANT, answers), List.of())
        .recall()
        .getOrDefault(VARIANT, 0.0);
  }

  /**
   * The faceted quality queries on one server: their buckets must equal the exact oracle's at every
   * count and setting; returns the recall@10 of their hits.
   */
  private double checkFacets(Session s, int count, SweepSetting setting)
      throws IOException, InterruptedException {
    List<HttpRequest> check = new ArrayList<>();
    for (BenchQuery q : qualityQueries) {
      check.add(s.dialect.faceted(s.base, q, true, facets));
    }
    List<List<String>> ids = new ArrayList<>();
    List<HttpResponse<byte[]>> answers = s.responses(check);
    for (int i = 0; i < answers.size(); i++) {
      HttpResponse<byte[]> r = answers.get(i);
      if (r.statusCode() != 200) {
        throw new IOException(
            "sweep: a faceted search answered "
                + r.statusCode()
                + ": "
                + new String(r.body(), StandardCharsets.UTF_8));
      }
      List<String> got = Facets.buckets(Json.MAPPER.readTree(r.body()).path("aggregations"));
      List<String> expected = exact.facetBuckets(qualityQueries.get(i), true, facets);
      if (!got.equals(expected)) {
        throw new IllegalStateException(
            String.format(
                "sweep at %d segments, %s: faceted buckets of \"%s\" differ from the exact"
                    + " oracle's: expected %s, got %s",
                count, setting.label(), qualityQueries.get(i).text(), expected, got));
      }
      ids.add(EsDialect.hitIds(r.body()));
    }
    return recallOf(truths(QueryType.LEXICAL), ids);
  }

  /** One round's cells of one segment count: every type, client count and setting. */
  private void measure(
      SweepServers sweepServers,
      Map<SweepSetting, Session> servers,
      int segments,
      int count,
      int round,
      Map<String, List<ResultRow>> perCell)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    RunInfo info = ctx.info.withDocs(corpus.docs().size());
    Double target = p.recallTargets().getFirst();
    List<SweepSetting> order = new ArrayList<>(settings);
    if (round % 2 == 0) {
      Collections.reverse(order);
    }
    List<String> types = new ArrayList<>(List.of("vector", "lexical", "hybrid"));
    if (facets.any()) {
      types.add(FacetedRounds.LABEL);
    }
    for (String type : types) {
      QueryType t =
          type.equals(FacetedRounds.LABEL)
              ? null
              : QueryType.valueOf(type.toUpperCase(Locale.ROOT));
      boolean calibrated = t != null && t != QueryType.LEXICAL;
      SweepBeams.Choice choice = calibrated ? beams.choice(t, count) : null;
      Map<SweepSetting, List<HttpRequest>> atBeam = new LinkedHashMap<>();
      Map<SweepSetting, List<HttpRequest>> atBelow = new LinkedHashMap<>();
      for (Map.Entry<SweepSetting, Session> e : servers.entrySet()) {
        Session s = e.getValue();
        if (t == null) {
          List<HttpRequest> r = new ArrayList<>();
          for (BenchQuery q : corpus.queries()) {
            r.add(s.dialect.faceted(s.base, q, true, facets));
          }
          atBeam.put(e.getKey(), r);
        } else {
          atBeam.put(
              e.getKey(),
              s.requests(
                  corpus.queries(), t, true, calibrated ? choice.beam() : Setting.BENCHMARK));
          if (calibrated && choice.below() != null) {
            atBelow.put(e.getKey(), s.requests(corpus.queries(), t, true, choice.below()));
          }
        }
      }
      Map<SweepSetting, List<HttpRequest>> warming = new LinkedHashMap<>();
      for (SweepSetting setting : servers.keySet()) {
        List<HttpRequest> all = new ArrayList<>(atBeam.get(setting));
        all.addAll(atBelow.getOrDefault(setting, List.of()));
        warming.put(setting, all);
      }
      sweepServers.warm(servers, warming, count, round, type);
      for (int clients : p.sweepClients()) {
        for (SweepSetting setting : order) {
          Session s = servers.get(setting);
          ResultRow row =
              cell(
                  s,
                  info,
                  Phases.SWEEP,
                  type,
                  clients,
                  segments,
                  setting,
                  round,
                  atBeam.get(setting));
          if (!calibrated) {
            row = row.withQuality(recall.get(key(count, setting, type)), null);
            add(perCell, row);
            continue;
          }
          PairedRounds.Bracket b = choice.brackets().get(setting);
          row =
              row.withCandidates(choice.beam().k(), choice.beam().candidates(), target)
                  .withQuality(b.recallAtBeam(), null);
          add(perCell, row);
          ResultRow lower = null;
          if (choice.below() != null) {
            lower =
                cell(
                        s,
                        info,
                        Phases.SWEEP_BELOW_BEAM,
                        type,
                        clients,
                        segments,
                        setting,
                        round,
                        atBelow.get(setting))
                    .withCandidates(choice.below().k(), choice.below().candidates(), target)
                    .withQuality(b.recallBelow(), null);
            add(perCell, lower);
          }
          ResultRow at = PairedRounds.atTarget(info, row, lower, b, target);
          add(
              perCell,
              Rows.query(
                      info,
                      VARIANT,
                      Phases.SWEEP_AT_TARGET,
                      type,
                      true,
                      clients,
                      segments,
                      setting.threads(),
                      stats(at))
                  .withCandidates(at.targetHits(), at.numCandidates(), target)
                  .withQuality(at.recallAt10(), null)
                  .withRound(round)
                  .withSlicing(setting.slicingName()));
        }
      }
    }
  }

  /** One timed cell's round row. */
  private ResultRow cell(
      Session s,
      RunInfo info,
      String phase,
      String type,
      int clients,
      int segments,
      SweepSetting setting,
      int round,
      List<HttpRequest> requests)
      throws InterruptedException {
    Profile p = ctx.profile;
    ctx.progress.cell(
        Phases.SWEEP,
        String.format(
            Locale.ROOT,
            "round %d/%d segments=%d %s %s filtered clients=%d%s",
            round,
            p.sweepRounds(),
            segments,
            setting.label(),
            type,
            clients,
            phase.equals(Phases.SWEEP_BELOW_BEAM) ? " (the beam below)" : ""),
        seconds(p));
    CellStats c = s.cell(requests, clients, p.warmup(), p.sweepDuration());
    if (c.errors() > 0) {
      ctx.log.printf(
          "WARNING: sweep %s %s: %d failed requests in the cell, the first: %s%n",
          setting.label(), type, c.errors(), c.firstError());
    }
    return Rows.query(info, VARIANT, phase, type, true, clients, segments, setting.threads(), c)
        .withRound(round)
        .withSlicing(setting.slicingName());
  }

  /** Records a round row and keeps it with the other rounds of its cell. */
  private void add(Map<String, List<ResultRow>> perCell, ResultRow row) throws IOException {
    ctx.add(row);
    String cell =
        String.join(
            "|",
            row.phase(),
            row.queryType(),
            String.valueOf(row.segments()),
            row.searchThreads(),
            String.valueOf(row.slicing()),
            String.valueOf(row.clients()));
    perCell.computeIfAbsent(cell, k -> new ArrayList<>()).add(row);
  }

  /** The median over a cell's rounds with its interval; recall as {@link PairedRounds} does. */
  private ResultRow summary(List<ResultRow> rounds) {
    ResultRow first = rounds.getFirst();
    boolean estimate = first.phase().equals(Phases.SWEEP_AT_TARGET);
    return Rows.query(
            ctx.info.withDocs(corpus.docs().size()),
            VARIANT,
            first.phase(),
            first.queryType(),
            true,
            first.clients(),
            first.segments(),
            first.searchThreads(),
            PairedRounds.median(rounds))
        .withCandidates(first.targetHits(), first.numCandidates(), first.recallTarget())
        .withInterval(
            Intervals.median(PairedRounds.values(rounds, ResultRow::qps)),
            Intervals.median(PairedRounds.values(rounds, ResultRow::qpsPerCore)))
        .withQuality(estimate ? PairedRounds.summaryRecall(rounds) : first.recallAt10(), null)
        .withSlicing(first.slicing());
  }

  /** A row's figures as a cell's, to restate an estimate under the sweep's phase. */
  private static CellStats stats(ResultRow r) {
    return new CellStats(
        r.requests(),
        r.errors(),
        r.seconds(),
        r.qps(),
        r.avgMs(),
        r.p50Ms(),
        r.p95Ms(),
        r.p99Ms(),
        r.p999Ms(),
        r.cpuCores(),
        r.firstError(),
        r.clientRetries() == null ? 0 : r.clientRetries(),
        -1);
  }

  /** The searchable segments of a count's index: as many as it had when copied. */
  private static int segmentsOf(SweepIndexes.Built built, int count) {
    List<Integer> docs = built.docsPerSegment().get(count);
    return docs == null || docs.isEmpty() ? count : docs.size();
  }

  /**
   * The exact answers of the quality queries for {@code t}, computed on first use and kept: every
   * count and setting checks the same queries on the same documents.
   */
  private List<ExactAnswer> truths(QueryType t) {
    return truths.computeIfAbsent(t, x -> QualityCheck.truths(exact, qualityQueries, x, true));
  }

  private static String key(int count, SweepSetting setting, String type) {
    return count + "|" + setting.label() + "|" + type;
  }

  /** Writes {@value #FILE_JSON}: the segment sizes of each count and the recall goals. */
  private void writeJson(SweepIndexes.Built built, SweepServers sweepServers) throws IOException {
    ObjectNode n = Json.object();
    n.put("docs", corpus.docs().size());
    n.put("size_spread", SweepIndexes.SIZE_SPREAD);
    n.put("seed", SweepIndexes.SEED);
    n.put("rounds", ctx.profile.sweepRounds());
    n.putPOJO("settings", settings.stream().map(SweepSetting::label).toList());
    ObjectNode goals = n.putObject("recall_goal");
    for (QueryType t : Calibration.CALIBRATED) {
      goals.put(t.label(), beams.goal(t));
    }
    ObjectNode sizes = n.putObject("docs_per_segment");
    built.docsPerSegment().forEach((count, docs) -> sizes.putPOJO(String.valueOf(count), docs));
    n.set("machine_reference", references);
    n.put("warmup_limit_seconds", ctx.profile.sweepWarmupLimit().toMillis() / 1e3);
    n.set("warmup", sweepServers.warmupsJson());
    Files.writeString(ctx.outDir.resolve(FILE_JSON), n.toPrettyString());
  }
}
