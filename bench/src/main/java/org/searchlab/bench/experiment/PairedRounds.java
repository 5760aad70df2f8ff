// Over 500 lines: one round loop whose parts share its state (the servers, each feed's beam as
// it moves up or down the grid, the per-round rows); measure() alone is ~300 lines and should be
// split into the beam search and the round loop.
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
import org.searchlab.bench.report.ReportWriter;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;

/**
 * The query cells in paired rounds. With every variant's server up, each round measures every cell
 * (query type × filter × client count) once per variant, the variants of a cell back to back so
 * that they share a time window, in an order that alternates from round to round (forward, then
 * reversed) so that neither always runs first. Each cell gets one row per round and a summary row:
 * the median over rounds with its order-statistic interval ({@link Intervals}), tie-aware and
 * id-based recall@10 and overlap@10 of the quality queries at the cell's setting. The vector and
 * hybrid cells run, per independent feed, at the smallest beam of the grid at which that feed's
 * measured queries reach the target, found from the setting the {@link Calibration} chose (moved up
 * while they fall short, down while the beam below still reaches it; lexical cells only for the
 * first target). Runs on the caller's thread; not thread-safe.
 */
final class PairedRounds {
  private final RunContext ctx;
  private final Corpus corpus;
  private final List<BenchQuery> quality;
  private final ExactSearch exact;
  private final Servers servers;
  private final Calibration calibration;

  /** Profiles one extra cell per variant, type and filter after the rounds; null: none. */
  private CellProfiles profiles;

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

  /**
   * After the rounds of each target, runs one more cell per variant, query type and filter at the
   * first feed's calibrated beam and the curve's client count with a flight recording of its server
   * on (a scale run's profiles, {@link CellProfiles}); it adds no row. Returns this.
   */
  PairedRounds profiling(CellProfiles profiles) {
    this.profiles = profiles;
    return this;
  }

  /** Planned seconds of one cell. */
  static double seconds(Profile p) {
    return (p.warmup().toMillis() + p.duration().toMillis()) / 1000.0;
  }

  /** Queries the recall checks at the cells' beams send, for the progress estimate. */
  static long checks(Profile p, int variants) {
    int types = 3 + 2 * (targets(p).size() - 1);
    return (long) p.recallQueries() * variants * types * 2;
  }

  /** The recall targets cells are measured at; one null entry when the candidates are fixed. */
  static List<Double> targets(Profile p) {
    return p.fixedCandidates() ? Arrays.asList((Double) null) : p.recallTargets();
  }

  /**
   * Timed cells of all rounds, for the progress estimate: with calibrated beams, one cell more per
   * round, variant and vector or hybrid cell at the curve's client count for the beam below (a cell
   * at the grid's smallest beam has none, unless its common recall moved it up).
   */
  static int cells(Profile p, int variants) {
    int types = 3 + 2 * (targets(p).size() - 1);
    int below =
        p.fixedCandidates()
            ? 0
            : p.rounds() * variants * Calibration.CALIBRATED.size() * 2 * targets(p).size();
    return p.rounds() * variants * types * 2 * p.clients().size() + below;
  }

  void run() throws IOException, InterruptedException {
    run(List.of(QueryType.values()));
  }

  /**
   * {@link #run()} for the query types of {@code only} (a scale run's {@link Profile#scaleTypes}).
   */
  void run(List<QueryType> only) throws IOException, InterruptedException {
    List<Double> targets = targets(ctx.profile);
    for (int ti = 0; ti < targets.size(); ti++) {
      Double target = targets.get(ti);
      List<QueryType> types = ti == 0 ? List.of(QueryType.values()) : Calibration.CALIBRATED;
      measure(types.stream().filter(only::contains).toList(), target);
    }
  }

  private void measure(List<QueryType> types, Double target)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    List<Variant> variants = servers.variants();
    Map<String, ResultRow> qualityOf = new HashMap<>();
    Map<String, List<List<String>>> truth = new LinkedHashMap<>();
    Map<String, List<HttpRequest>> requests = new HashMap<>();
    Map<String, Bracket> brackets = new HashMap<>();
    // Per feed, the recall@10 of the measured queries at the feed's beam: each round row carries
    // its feed's, so that ratios can leave out rounds on a feed that stayed below the target.
    Map<String, Double> feedRecall = new HashMap<>();
    int curveClients = Calibration.curveClients(p);
    for (QueryType t : types) {
      for (boolean f : new boolean[] {false, true}) {
        long checkStart = System.nanoTime();
        List<ExactAnswer> truths = QualityCheck.truths(exact, quality, t, f);
        Map<String, List<List<String>>> answers = new LinkedHashMap<>();
        for (Variant v : variants) {
          answerAtSetting(answers, v, t, f, target);
        }
        List<List<String>> pairs = pairs(variants);
        QualityCheck.Result q = QualityCheck.evaluate(truths, answers, pairs);
        // A beam calibrated on other queries (and on a variant's first feed) may fall just short
        // on these: take the next beam of the grid until the measured queries reach the target,
        // each feed on its own (the report shows the beams).
        boolean bumped = false;
        for (Variant v : variants) {
          for (int i = 0; i < servers.feeds(v); i++) {
            if (target != null) {
              QualityCheck.Result r = raise(v, i, t, f, target, target, truths, answers, pairs, q);
              bumped |= r != q;
              q = r;
            }
          }
        }
        // Each feed's structure decides the beam it needs (one feed of the same corpus reached the
        // target at 10, another needed 60): where the beam below a feed's still reaches the
        // target on the measured queries, move down, so that every feed runs at the smallest beam
        // of the grid that reaches it and its estimate at the target interpolates from just
        // below it. Without this a feed calibrated elsewhere ran two grid steps above what it
        // needed and its ratio moved with that.
        for (Variant v : variants) {
          for (int i = 0; i < servers.feeds(v); i++) {
            while (target != null && q.recall().getOrDefault(feedLabel(v, i), 0.0) >= target) {
              Setting lo = calibration.below(v, t, f, target, i);
              if (lo == null) {
                break;
              }
              Session s = servers.session(v, i);
              Map<String, List<List<String>>> probe = new LinkedHashMap<>(answers);
              probe.put(feedLabel(v, i), s.ids(s.requests(quality, t, f, lo)));
              QualityCheck.Result pq = QualityCheck.evaluate(truths, probe, pairs);
              if (pq.recall().getOrDefault(feedLabel(v, i), 0.0) < target) {
                // These are the answers at the beam below the feed's: keep them for its bracket
                // rather than ask for them again below.
                answers.put(feedLabel(v, i) + BELOW, probe.get(feedLabel(v, i)));
                break;
              }
              calibration.lower(v, t, f, target, i);
              answers = probe;
              q = pq;
              bumped = true;
            }
          }
        }
        // Equal recall: a feed already past the target at the grid's smallest beam (no beam of
        // the grid is below it, and k cannot go under 10, nor a hybrid's under 100) cannot be
        // estimated at the target, so every variant of the cell is estimated within 0.005 of the
        // highest such recall instead. Without this a run compared mutable at 0.973 with the
        // segmented store at 0.988 and called it equal.
        Double goal = target;
        if (target != null && t != QueryType.LEXICAL) {
          Map<String, Double> atFloor = new LinkedHashMap<>();
          for (Variant v : variants) {
            for (int i = 0; i < servers.feeds(v); i++) {
              if (calibration.below(v, t, f, target, i) == null) {
                Double r = q.recall().get(feedLabel(v, i));
                if (r != null) {
                  atFloor.put(feedLabel(v, i), r);
                }
              }
            }
          }
          double common = commonRecall(target, atFloor);
          goal = estimatedAt(target, common);
          if (goal > target) {
            ctx.progress.step(
                Phases.CALIBRATION,
                String.format(
                    java.util.Locale.ROOT,
                    "%s%s: %s reaches recall@10 %.3f at the grid's smallest beam; every other"
                        + " variant is estimated at %.3f (within %.3f of it)",
                    t.label(),
                    f ? " filtered" : "",
                    raisedBy(atFloor, common),
                    common,
                    goal,
                    ReportWriter.EQUAL_RECALL));
            for (Variant v : variants) {
              for (int i = 0; i < servers.feeds(v); i++) {
                QualityCheck.Result r = raise(v, i, t, f, target, goal, truths, answers, pairs, q);
                if (r != q) {
                  // The answers kept from the lowering were at the beam below the old setting.
                  answers.remove(feedLabel(v, i) + BELOW);
                  bumped = true;
                  q = r;
                }
              }
            }
          }
        }
        // The beam below the calibrated one, for the estimate at exactly the goal: its recall on
        // the same measured queries, and its requests when the calibrated beam reaches the goal.
        for (Variant v : variants) {
          for (int i = 0; i < servers.feeds(v); i++) {
            Setting lo = calibration.below(v, t, f, target, i);
            if (lo != null
                && q.recall().getOrDefault(feedLabel(v, i), 0.0) >= goal
                && !answers.containsKey(feedLabel(v, i) + BELOW)) {
              Session s = servers.session(v, i);
              answers.put(feedLabel(v, i) + BELOW, s.ids(s.requests(quality, t, f, lo)));
            }
          }
        }
        if (answers.keySet().stream().anyMatch(n -> n.endsWith(BELOW))) {
          q = QualityCheck.evaluate(truths, answers, pairs);
        }
        for (Variant v : variants) {
          for (int i = 0; i < servers.feeds(v); i++) {
            Session s = servers.session(v, i);
            String k = key(v, t, f, i);
            requests.put(
                k, s.requests(corpus.queries(), t, f, calibration.setting(v, t, f, target, i)));
            Double atBeam = q.recall().get(feedLabel(v, i));
            Double below = q.recall().get(feedLabel(v, i) + BELOW);
            if (atBeam != null) {
              feedRecall.put(k, atBeam);
            }
            if (target != null && t != QueryType.LEXICAL && atBeam != null) {
              Setting lo = below == null ? null : calibration.below(v, t, f, target, i);
              brackets.put(k, new Bracket(lo, below, atBeam, goal));
              if (lo != null) {
                requests.put(k + BELOW, s.requests(corpus.queries(), t, f, lo));
              }
            }
          }
        }
        truth.put(t.label() + (f ? "_filtered" : ""), q.exact());
        for (Variant v : variants) {
          String pair = pairKey(pairs, v);
          // A carrier row for the four measures; the summary rows copy them.
          // With several feeds, recall is the lowest over them (each ran at its own beam, and
          // the lowest is the one the target is checked against); overlap is the first feed's.
          qualityOf.put(
              key(v, t, f),
              Rows.query(ctx.info, v.label(), "", t, f, 0, null, null, EMPTY)
                  .withQuality(minOverFeeds(q.recall(), v), q.overlap().get(pair))
                  .withIdQuality(minOverFeeds(q.recallIds(), v), q.overlapIds().get(pair)));
        }
        // Recorded before any progress line, so that the checks are not counted as part of the
        // last timed cell (see Progress).
        ctx.progress.checked(
            (long) answers.size() * quality.size(), (System.nanoTime() - checkStart) / 1e9);
        if (bumped) {
          ctx.progress.step(
              Phases.CALIBRATION,
              t.label()
                  + (f ? " filtered" : "")
                  + ": each feed moved to the beam its measured queries need");
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
    // Per main-phase cell, its vector searches and visited vectors summed over the rounds.
    Map<String, CellVisits> visitsOf = new HashMap<>();
    for (int round = 1; round <= p.rounds(); round++) {
      List<Variant> order = new ArrayList<>(variants);
      if (round % 2 == 0) {
        java.util.Collections.reverse(order);
      }
      for (QueryType t : types) {
        for (boolean f : new boolean[] {false, true}) {
          for (int clients : p.clients()) {
            for (Variant v : order) {
              int feed = servers.feedOfRound(v, round);
              Setting g = calibration.setting(v, t, f, target, feed);
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
                      (t == QueryType.LEXICAL ? "" : " candidates=" + g.candidates())
                          + (servers.feeds(v) > 1 ? " feed " + (feed + 1) : "")),
                  seconds(p));
              Session session = servers.session(v, feed);
              // The store's visit counters around the cell, read while no query runs (the cells
              // run one at a time), so that their difference is this cell's alone.
              CellVisits before = t == QueryType.LEXICAL ? null : CellVisits.read(session);
              CellStats c =
                  session.cell(requests.get(key(v, t, f, feed)), clients, p.warmup(), p.duration());
              CellVisits after = before == null ? null : CellVisits.read(session);
              CellVisits cellVisits = after == null ? null : after.minus(before);
              if (c.errors() > 0) {
                ctx.log.printf(
                    "WARNING: %s %s: %d failed requests in the cell, the first: %s%n",
                    v.label(), t.label(), c.errors(), c.firstError());
              }
              ResultRow row =
                  Rows.query(
                          ctx.info,
                          v.label(),
                          phaseOf(v),
                          t,
                          f,
                          clients,
                          servers.segments(v, feed),
                          null,
                          c)
                      .withCandidates(g.k(), g.candidates(), t == QueryType.LEXICAL ? null : target)
                      .withRound(round);
              if (target != null && t != QueryType.LEXICAL) {
                row = row.withQuality(feedRecall.get(key(v, t, f, feed)), null);
              }
              if (cellVisits != null) {
                row = row.withVisitedPerQuery(cellVisits.perSearch());
                visitsOf.merge(key(v, t, f) + "|" + clients, cellVisits, CellVisits::plus);
              }
              ctx.add(row);
              perCell
                  .computeIfAbsent(key(v, t, f) + "|" + clients, k -> new ArrayList<>())
                  .add(row);
              Bracket b = brackets.get(key(v, t, f, feed));
              if (b != null && clients == curveClients) {
                ResultRow lower = null;
                if (b.beam() != null) {
                  lower = measureBelow(v, feed, t, f, clients, target, round, b, requests);
                  perCell
                      .computeIfAbsent(key(v, t, f) + "|" + clients + BELOW, k -> new ArrayList<>())
                      .add(lower);
                }
                ResultRow at = atTarget(ctx.info, row, lower, b, target).withRound(round);
                ctx.add(at);
                perCell
                    .computeIfAbsent(key(v, t, f) + "|" + clients + AT, k -> new ArrayList<>())
                    .add(at);
              }
            }
          }
        }
      }
    }
    for (Map.Entry<String, List<ResultRow>> cell : perCell.entrySet()) {
      List<ResultRow> rounds = cell.getValue();
      ResultRow first = rounds.get(0);
      CellVisits pooled = visitsOf.get(cell.getKey());
      QueryType t = QueryType.valueOf(first.queryType().toUpperCase(java.util.Locale.ROOT));
      Variant v =
          variants.stream()
              .filter(x -> x.label().equals(first.variant()))
              .findFirst()
              .orElseThrow();
      ResultRow q = qualityOf.get(key(v, t, first.filtered()));
      boolean mainPhase = first.phase().equals(phaseOf(v));
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
              .withQuality(
                  mainPhase ? q.recallAt10() : summaryRecall(rounds),
                  mainPhase ? q.overlapAt10() : null)
              .withIdQuality(
                  mainPhase ? q.recallAt10Ids() : null, mainPhase ? q.overlapAt10Ids() : null)
              .withMajorFaults(Rows.majorFaults(rounds))
              .withVisitedPerQuery(pooled == null ? null : pooled.perSearch()));
    }
    if (profiles != null) {
      for (QueryType t : types) {
        for (boolean f : new boolean[] {false, true}) {
          for (Variant v : variants) {
            Session session = servers.session(v, 0);
            List<HttpRequest> rq = requests.get(key(v, t, f, 0));
            ctx.progress.step(
                phaseOf(v),
                String.format(
                    "%s %s%s: profiling one cell at %d clients",
                    v.label(), t.label(), f ? " filtered" : "", curveClients));
            profiles.profile(
                v,
                t,
                f,
                session,
                () -> session.cell(rq, curveClients, p.warmup(), profiles.window()));
          }
        }
      }
    }
  }

  /**
   * Moves feed {@code i} of {@code v} up the grid, one beam at a time, until its measured queries
   * reach {@code goal}, and puts its answers at the new beam into {@code answers}. Where no beam up
   * to the grid's largest reaches it, the feed settles on the beam that measured the highest recall
   * (the smallest of equals): Lucene's recall can fall as the beam grows (a force-merged hybrid
   * cell measured 0.994 at 200 and 0.984 at 400), and a peer run at a slower beam with a lower
   * recall would make the ratio against it larger than any it has at a setting of its own choosing.
   *
   * @return the quality check after the move, or {@code q} itself when the feed did not move
   */
  private QualityCheck.Result raise(
      Variant v,
      int i,
      QueryType t,
      boolean f,
      double target,
      double goal,
      List<ExactAnswer> truths,
      Map<String, List<List<String>>> answers,
      List<List<String>> pairs,
      QualityCheck.Result q)
      throws IOException, InterruptedException {
    String name = feedLabel(v, i);
    QualityCheck.Result now = q;
    List<Setting> tried = new ArrayList<>(List.of(calibration.setting(v, t, f, target, i)));
    List<Double> recalls = new ArrayList<>(List.of(now.recall().getOrDefault(name, 0.0)));
    List<List<List<String>>> got = new ArrayList<>();
    got.add(answers.get(name));
    while (recalls.getLast() < goal && calibration.bump(v, t, f, target, goal, i)) {
      Session s = servers.session(v, i);
      Setting g = calibration.setting(v, t, f, target, i);
      answers.put(name, s.ids(s.requests(quality, t, f, g)));
      now = QualityCheck.evaluate(truths, answers, pairs);
      tried.add(g);
      recalls.add(now.recall().getOrDefault(name, 0.0));
      got.add(answers.get(name));
    }
    int best = Calibration.highest(recalls);
    if (recalls.getLast() < goal && best != recalls.size() - 1) {
      calibration.settle(v, t, f, target, goal, i, tried.get(best));
      answers.put(name, got.get(best));
      now = best == 0 ? q : QualityCheck.evaluate(truths, answers, pairs);
    }
    return now;
  }

  /** Suffix of the names and keys of the beam below the calibrated one. */
  private static final String BELOW = "@below";

  /** Suffix of the keys of the at-target rows. */
  private static final String AT = "@at";

  /**
   * The beam below a cell's calibrated one and the measured recall@10 at both.
   *
   * @param beam the beam below, or null when there is none to measure (the calibrated beam is the
   *     grid's smallest, or does not reach the target)
   * @param recallBelow recall@10 of the measured queries at {@code beam}, null with it
   * @param recallAtBeam recall@10 of the measured queries at the calibrated beam
   * @param goal the recall the cell's variants are estimated at ({@link #estimatedAt})
   */
  record Bracket(Setting beam, Double recallBelow, double recallAtBeam, double goal) {}

  /**
   * The recall@10 a cell's variants are compared at: the target, or, where feeds at the grid's
   * smallest beam already measured more, the highest of their recalls. Such a feed has no beam
   * below to interpolate from, so its estimate stays at what it measured; every other feed then
   * needs the same recall for the ratio to be at equal recall.
   *
   * @param atFloor the measured recall@10 of each feed that runs at the grid's smallest beam
   */
  static double commonRecall(double target, Map<String, Double> atFloor) {
    double goal = target;
    for (double r : atFloor.values()) {
      goal = Math.max(goal, r);
    }
    return goal;
  }

  /**
   * The recall@10 a cell's feeds are estimated at, given its {@link #commonRecall}: the target, or
   * {@link ReportWriter#EQUAL_RECALL} below a common recall above it. Any two estimates then lie
   * within that of each other: a feed at the grid's smallest beam stays at what it measured, which
   * is at most the common recall, and every other feed is moved up to this and interpolated here.
   * Chasing the common recall itself sent a feed to the grid's largest beam for its last thousandth
   * (a synthetic hybrid cell at 1.000 ran mutable at beam 400 and still ended a hair below).
   */
  static double estimatedAt(double target, double common) {
    return Math.max(target, common - ReportWriter.EQUAL_RECALL);
  }

  /** The feeds whose recall at the smallest beam is the goal, for the progress line. */
  private static String raisedBy(Map<String, Double> atFloor, double goal) {
    return atFloor.entrySet().stream()
        .filter(e -> e.getValue() >= goal)
        .map(Map.Entry::getKey)
        .collect(java.util.stream.Collectors.joining(", "));
  }

  /** One round's cell at the beam below the calibrated one, right after the calibrated cell. */
  private ResultRow measureBelow(
      Variant v,
      int feed,
      QueryType t,
      boolean f,
      int clients,
      Double target,
      int round,
      Bracket b,
      Map<String, List<HttpRequest>> requests)
      throws IOException, InterruptedException {
    Profile p = ctx.profile;
    ctx.progress.cell(
        Phases.BELOW_BEAM,
        String.format(
            "round %d/%d %s %s%s clients=%d candidates=%d (the beam below)",
            round,
            p.rounds(),
            v.label(),
            t.label(),
            f ? " filtered" : "",
            clients,
            b.beam().candidates()),
        seconds(p));
    CellStats c =
        servers
            .session(v, feed)
            .cell(requests.get(key(v, t, f, feed) + BELOW), clients, p.warmup(), p.duration());
    ResultRow row =
        Rows.query(
                ctx.info,
                v.label(),
                Phases.BELOW_BEAM,
                t,
                f,
                clients,
                servers.segments(v, feed),
                null,
                c)
            .withCandidates(b.beam().k(), b.beam().candidates(), target)
            .withQuality(b.recallBelow(), null)
            .withRound(round);
    ctx.add(row);
    return row;
  }

  /**
   * A round's estimate at exactly the recall its cell compares at ({@link Bracket#goal}: the
   * target, or {@link #estimatedAt} where a feed at the grid's smallest beam measured more): where
   * the beam below falls short of it and the calibrated beam reaches it, QPS, server cores and
   * latencies interpolated log-linearly in the measured recall@10 between the two cells (so QPS per
   * core is interpolated the same way); where the beam below already reaches it, its cell (recall
   * above it); without a beam below, the calibrated cell (its recall stays in the row). The row
   * keeps {@code target} as its recall target, the key the report groups by.
   *
   * @param lower the round's cell at the beam below, or null
   */
  static ResultRow atTarget(
      RunInfo info, ResultRow atBeam, ResultRow lower, Bracket b, double target) {
    double goal = b.goal();
    ResultRow from;
    double w;
    double recall;
    if (lower == null || b.recallBelow() == null) {
      from = atBeam;
      w = 1;
      recall = b.recallAtBeam();
    } else if (b.recallBelow() >= goal) {
      from = lower;
      w = 0;
      recall = b.recallBelow();
    } else {
      from = atBeam;
      w = (goal - b.recallBelow()) / (b.recallAtBeam() - b.recallBelow());
      recall = goal;
    }
    ResultRow lo = lower == null ? atBeam : lower;
    CellStats c =
        new CellStats(
            atBeam.requests() + (lower == null ? 0 : lower.requests()),
            atBeam.errors() + (lower == null ? 0 : lower.errors()),
            atBeam.seconds() + (lower == null ? 0 : lower.seconds()),
            geo(lo.qps(), atBeam.qps(), w),
            geo(lo.avgMs(), atBeam.avgMs(), w),
            geo(lo.p50Ms(), atBeam.p50Ms(), w),
            geo(lo.p95Ms(), atBeam.p95Ms(), w),
            geo(lo.p99Ms(), atBeam.p99Ms(), w),
            geo(lo.p999Ms(), atBeam.p999Ms(), w),
            geo(lo.cpuCores(), atBeam.cpuCores(), w),
            atBeam.firstError() != null
                ? atBeam.firstError()
                : lower == null ? null : lower.firstError(),
            retries(atBeam) + (lower == null ? 0 : retries(lower)),
            // an estimate between two cells is no window of its own: no faults counted
            -1);
    return Rows.query(
            info,
            from.variant(),
            Phases.AT_TARGET,
            QueryType.valueOf(from.queryType().toUpperCase(java.util.Locale.ROOT)),
            from.filtered(),
            from.clients(),
            from.segments(),
            null,
            c)
        .withCandidates(from.targetHits(), from.numCandidates(), target)
        .withQuality(recall, null);
  }

  /**
   * {@code a^(1-w) · b^w}; {@code a} or {@code b} when the weight is 0 or 1; 0 (not measured) when
   * either is missing or not positive.
   */
  static double geo(Double a, Double b, double w) {
    if (w <= 0) {
      return a == null ? 0 : a;
    }
    if (w >= 1) {
      return b == null ? 0 : b;
    }
    if (a == null || b == null || a <= 0 || b <= 0) {
      return 0;
    }
    return Math.exp((1 - w) * Math.log(a) + w * Math.log(b));
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

  static final CellStats EMPTY = new CellStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, 0, -1);

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

  /** The key of {@code v}'s overlap pair in a quality check ({@code "a|b"}), "" without one. */
  static String pairKey(List<List<String>> pairs, Variant v) {
    return pairs.stream()
        .filter(x -> x.get(0).equals(v.label()))
        .findFirst()
        .map(x -> x.get(0) + "|" + x.get(1))
        .orElse("");
  }

  static String phaseOf(Variant v) {
    return v.forceMerged() ? Phases.AFTER_MERGE : Phases.AFTER_FLUSH;
  }

  private static String key(Variant v, QueryType t, boolean f) {
    return v.label() + "|" + t.label() + "|" + f;
  }

  /** The key of {@code v}'s {@code feed}-th feed (0-based; the first keeps the plain key). */
  private static String key(Variant v, QueryType t, boolean f, int feed) {
    return feed == 0 ? key(v, t, f) : key(v, t, f) + "#" + (feed + 1);
  }

  /**
   * The name of a feed's answers in a quality check: the variant's label for its first feed (the
   * overlap pairs name it), {@code label#n} for the n-th.
   */
  private static String feedLabel(Variant v, int feed) {
    return feed == 0 ? v.label() : v.label() + "#" + (feed + 1);
  }

  /** Puts the answers of every feed of {@code v} at its current setting into {@code answers}. */
  private void answerAtSetting(
      Map<String, List<List<String>>> answers, Variant v, QueryType t, boolean f, Double target)
      throws IOException, InterruptedException {
    for (int i = 0; i < servers.feeds(v); i++) {
      Session s = servers.session(v, i);
      answers.put(
          feedLabel(v, i),
          s.ids(s.requests(quality, t, f, calibration.setting(v, t, f, target, i))));
    }
  }

  /** The lowest of a per-name measure over {@code v}'s feeds, null where a feed has none. */
  private Double minOverFeeds(Map<String, Double> measure, Variant v) {
    double min = Double.POSITIVE_INFINITY;
    for (int i = 0; i < servers.feeds(v); i++) {
      Double x = measure.get(feedLabel(v, i));
      if (x == null) {
        return null;
      }
      min = Math.min(min, x);
    }
    return min;
  }

  /**
   * The recall@10 of a summary of round rows whose recall can differ between feeds (the beam below
   * and the at-target estimate): the lowest over the rounds that reached their target, or the
   * highest when none did. Ratios leave out rounds that stayed below the target where other rounds
   * reached it (see the report's Ratios), so a summary below the target means that no round reached
   * it: the ratio is a bound.
   */
  static Double summaryRecall(List<ResultRow> rows) {
    List<Double> reached = new ArrayList<>();
    Double highest = null;
    for (ResultRow r : rows) {
      Double x = r.recallAt10();
      if (x == null) {
        continue;
      }
      highest = highest == null ? x : Math.max(highest, x);
      if (r.recallTarget() == null || x >= r.recallTarget() - 1e-6) {
        reached.add(x);
      }
    }
    return reached.isEmpty() ? highest : reached.stream().min(Double::compare).get();
  }

  static double[] values(List<ResultRow> rows, ToDoubleFunction<ResultRow> f) {
    return rows.stream().mapToDouble(f).toArray();
  }

  /** Per-metric medians over the rounds (requests and errors summed). */
  static CellStats median(List<ResultRow> rows) {
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
        Intervals.median(values(rows, ResultRow::cpuCores)).median(),
        rows.stream().map(ResultRow::firstError).filter(e -> e != null).findFirst().orElse(null),
        rows.stream().mapToLong(PairedRounds::retries).sum(),
        -1);
  }

  private static long retries(ResultRow r) {
    return r.clientRetries() == null ? 0 : r.clientRetries();
  }
}
