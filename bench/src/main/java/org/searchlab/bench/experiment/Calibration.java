package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.bench.load.CellStats;

/**
 * Recall calibration of the vector and hybrid cells. For each variant and each vector and hybrid
 * query type, filtered and not, the calibration queries (disjoint from the measured ones) run over
 * a grid of beams ({@code num_candidates}, Vespa {@code targetHits + exploreAdditionalHits}); the
 * tie-aware recall@10 of each point decides the smallest beam that reaches each recall target, and
 * one timed cell per point at the curve's client count gives the recall/QPS curves. Vector points
 * below the benchmark's 100 also lower {@code k} to the beam (the top-10 does not depend on it);
 * hybrid points keep {@code k = 100}, because which documents get a vector score is part of the
 * hybrid query's meaning. Runs on the caller's thread; not thread-safe.
 */
final class Calibration {
  /**
   * The default vector beams ({@link Profile#vectorBeams()}): from far below the benchmark's 100 to
   * far above, in steps of at most 1.5× up to 200, so that a beam moved up because the measured
   * queries fell short of the target costs a little more rather than several times more (with steps
   * of 2.5×, two runs on one machine chose 40 and 400 for the same force-merged index and reported
   * vector ratios of 1.55 and 5.17). 25 splits the one step of 1.5× where a run of 2026-11-27 saw a
   * variant's recall jump by 0.027 (the ten-segment int8 index: 0.947 at 20, 0.974 at 30), which
   * left it 0.018 above float's.
   */
  static final List<Integer> VECTOR_GRID =
      List.of(10, 15, 20, 25, 30, 40, 60, 80, 100, 150, 200, 400);

  /** The default hybrid beams ({@link Profile#hybridBeams()}), all with {@code k = 100}. */
  static final List<Integer> HYBRID_GRID = List.of(100, 200, 400);

  private final RunContext ctx;
  private final Corpus corpus;
  private final List<BenchQuery> queries;
  private final ExactSearch exact;
  private final Servers servers;
  private final Map<String, Setting> chosen = new LinkedHashMap<>();

  /**
   * Per feed ({@code key#feed}), the settings {@link #bump} and {@link #lower} moved from the
   * calibrated one.
   */
  private final Map<String, Setting> moved = new LinkedHashMap<>();

  /**
   * @param queries the calibration queries
   * @param exact exact search over the corpus
   */
  Calibration(
      RunContext ctx, Corpus corpus, List<BenchQuery> queries, ExactSearch exact, Servers servers) {
    this.ctx = ctx;
    this.corpus = corpus;
    this.queries = queries;
    this.exact = exact;
    this.servers = servers;
  }

  /** The grid of a query type: the profile's vector beams, or the hybrid ones. */
  private List<Setting> grid(QueryType t) {
    List<Setting> out = new ArrayList<>();
    if (t == QueryType.VECTOR) {
      for (int nc : ctx.profile.vectorBeams()) {
        out.add(new Setting(Math.min(ExactSearch.VECTOR_K, nc), nc));
      }
    } else if (t == QueryType.HYBRID) {
      for (int nc : ctx.profile.hybridBeams()) {
        out.add(new Setting(ExactSearch.VECTOR_K, nc));
      }
    }
    return out;
  }

  /** Queries the calibration's recall checks send, for the progress estimate. */
  static long checks(Profile p, int variants) {
    return (long) p.calibrationQueries() * cells(p, variants);
  }

  /** Timed cells of the calibration, for the progress estimate. */
  static int cells(Profile p, int variants) {
    return variants * 2 * (p.vectorBeams().size() + p.hybridBeams().size());
  }

  /** The query types that have a vector part. */
  static final List<QueryType> CALIBRATED = List.of(QueryType.VECTOR, QueryType.HYBRID);

  /** The client count of the curve cells: 16 when the profile measures it, else its highest. */
  static int curveClients(Profile p) {
    return p.clients().contains(16) ? 16 : p.clients().get(p.clients().size() - 1);
  }

  /** Runs the grid and chooses a setting per variant, query type, filter and target. */
  void run() throws IOException, InterruptedException {
    run(CALIBRATED);
  }

  /** {@link #run()} for the calibrated types among {@code only}. */
  void run(List<QueryType> only) throws IOException, InterruptedException {
    Profile p = ctx.profile;
    int clients = curveClients(p);
    for (QueryType t : CALIBRATED.stream().filter(only::contains).toList()) {
      for (boolean filtered : new boolean[] {false, true}) {
        long checkStart = System.nanoTime();
        Map<String, List<List<String>>> answers = new LinkedHashMap<>();
        for (Variant v : servers.variants()) {
          Session s = servers.session(v);
          for (Setting g : grid(t)) {
            answers.put(name(v, g), s.ids(s.requests(queries, t, filtered, g)));
          }
        }
        QualityCheck.Result q =
            QualityCheck.evaluate(exact, queries, t, filtered, answers, List.of());
        // Recorded before the next progress line, so that the checks are not counted as part of
        // the last timed cell (see Progress).
        ctx.progress.checked(
            (long) answers.size() * queries.size(), (System.nanoTime() - checkStart) / 1e9);
        ctx.progress.step(
            Phases.CALIBRATION,
            String.format(
                "%s%s: recall@10 of %d calibration queries over %d beams",
                t.label(), filtered ? " filtered" : "", queries.size(), grid(t).size()));
        for (Variant v : servers.variants()) {
          choose(v, t, filtered, q.recall());
        }
        for (Setting g : grid(t)) {
          for (Variant v : servers.variants()) {
            Session s = servers.session(v);
            List<HttpRequest> load = s.requests(corpus.queries(), t, filtered, g);
            ctx.progress.cell(
                Phases.CALIBRATION,
                String.format(
                    "%s %s%s k=%d candidates=%d clients=%d",
                    v.label(),
                    t.label(),
                    filtered ? " filtered" : "",
                    g.k(),
                    g.candidates(),
                    clients),
                PairedRounds.seconds(p));
            CellStats c = s.cell(load, clients, p.warmup(), p.duration());
            ctx.add(
                Rows.query(
                        ctx.info,
                        v.label(),
                        Phases.CALIBRATION,
                        t,
                        filtered,
                        clients,
                        servers.segments(v),
                        null,
                        c)
                    .withQuality(q.recall().get(name(v, g)), null)
                    .withIdQuality(q.recallIds().get(name(v, g)), null)
                    .withCandidates(g.k(), g.candidates(), null));
          }
        }
      }
    }
  }

  private void choose(Variant v, QueryType t, boolean filtered, Map<String, Double> recall) {
    List<Setting> grid = grid(t);
    for (double target : ctx.profile.recallTargets()) {
      Setting pick = null;
      for (Setting g : grid) {
        Double r = recall.get(name(v, g));
        if (r != null && r >= target) {
          pick = g;
          break;
        }
      }
      String what = v.label() + " " + t.label() + (filtered ? " filtered" : "");
      if (pick == null) {
        // The beam with the highest recall, not the largest: recall can fall as the beam grows.
        int best = highest(grid.stream().map(g -> recall.get(name(v, g))).toList());
        pick = grid.get(best < 0 ? grid.size() - 1 : best);
        ctx.log.printf(
            "WARNING: %s does not reach recall@10 %.2f on the grid; measured at candidates=%d,"
                + " where it was highest%n",
            what, target, pick.candidates());
      }
      String key = key(v, t, filtered, target);
      chosen.put(key, pick);
      ctx.progress.step(
          Phases.CALIBRATION,
          String.format(
              "%s: k=%d candidates=%d, recall@10 %.3f (target %.2f)",
              what,
              pick.k(),
              pick.candidates(),
              recall.getOrDefault(name(v, pick), Double.NaN),
              target));
    }
  }

  /**
   * The setting a cell of {@code v}'s {@code feed}-th independent feed (0-based, see {@link
   * Profile#feeds()}) runs at: for vector and hybrid queries when the profile does not fix the
   * candidates, the calibrated one (calibrated on the first feed) until {@link #bump} or {@link
   * #lower} moved that feed's own; else the benchmark's.
   */
  Setting setting(Variant v, QueryType t, boolean filtered, Double target, int feed) {
    if (target == null || t == QueryType.LEXICAL) {
      return Setting.BENCHMARK;
    }
    Setting own = moved.get(key(v, t, filtered, target) + "#" + feed);
    return own != null ? own : chosen.getOrDefault(key(v, t, filtered, target), Setting.BENCHMARK);
  }

  /**
   * The beam of the grid just below the one a cell of {@code v}'s {@code feed}-th feed runs at, for
   * the estimate at exactly the target recall; null when the cell runs at the smallest beam, is not
   * calibrated or has no target.
   */
  Setting below(Variant v, QueryType t, boolean filtered, Double target, int feed) {
    if (target == null || t == QueryType.LEXICAL) {
      return null;
    }
    Setting now = setting(v, t, filtered, target, feed);
    List<Setting> grid = grid(t);
    int i = grid.indexOf(now);
    return i > 0 ? grid.get(i - 1) : null;
  }

  /**
   * Moves the setting of a cell of {@code v}'s {@code feed}-th feed to the next larger beam of the
   * grid, when that feed's measured queries fall short of the target (or of the recall {@code goal}
   * above it that a raised cell estimates its variants at, see {@code PairedRounds.estimatedAt}) at
   * its current one; false when it already is the largest (or the type is not calibrated). Each
   * feed moves on its own: a feed whose structure needs a larger beam does not raise the others'
   * (with one shared beam, the feeds that reached the target at 10 were measured at 60, and the
   * ratio against them doubled).
   */
  boolean bump(Variant v, QueryType t, boolean filtered, double target, double goal, int feed) {
    Setting now = setting(v, t, filtered, target, feed);
    List<Setting> grid = grid(t);
    int i = grid.indexOf(now);
    if (!chosen.containsKey(key(v, t, filtered, target)) || i < 0 || i == grid.size() - 1) {
      return false;
    }
    moved.put(key(v, t, filtered, target) + "#" + feed, grid.get(i + 1));
    ctx.log.printf(
        "%s%s %s%s: measured recall@10 below %s at k=%d candidates=%d; now candidates=%d%n",
        v.label(),
        feed == 0 ? "" : " feed " + (feed + 1),
        t.label(),
        filtered ? " filtered" : "",
        goal == target
            ? String.format(java.util.Locale.ROOT, "%.2f", target)
            : String.format(java.util.Locale.ROOT, "%.3f", goal),
        now.k(),
        now.candidates(),
        grid.get(i + 1).candidates());
    return true;
  }

  /**
   * Puts a cell of {@code v}'s {@code feed}-th feed at {@code s}, the beam of the grid whose
   * measured recall@10 was highest when none reached {@code goal}.
   */
  void settle(
      Variant v, QueryType t, boolean filtered, double target, double goal, int feed, Setting s) {
    moved.put(key(v, t, filtered, target) + "#" + feed, s);
    ctx.log.printf(
        "%s%s %s%s: no beam of the grid reaches recall@10 %.3f; back to candidates=%d, where it was"
            + " highest%n",
        v.label(),
        feed == 0 ? "" : " feed " + (feed + 1),
        t.label(),
        filtered ? " filtered" : "",
        goal,
        s.candidates());
  }

  /**
   * The index of the highest of {@code recalls} (the first of equals, so the smallest beam when
   * they are in grid order); -1 when empty or none is a number.
   */
  static int highest(List<Double> recalls) {
    int best = -1;
    for (int i = 0; i < recalls.size(); i++) {
      Double r = recalls.get(i);
      if (r != null && !r.isNaN() && (best < 0 || r > recalls.get(best))) {
        best = i;
      }
    }
    return best;
  }

  /**
   * Moves the setting of a cell of {@code v}'s {@code feed}-th feed to the next smaller beam of the
   * grid, when that feed's measured queries still reach the target there; false at the smallest
   * beam (or when the type is not calibrated).
   */
  boolean lower(Variant v, QueryType t, boolean filtered, double target, int feed) {
    Setting now = setting(v, t, filtered, target, feed);
    Setting lo = below(v, t, filtered, target, feed);
    if (!chosen.containsKey(key(v, t, filtered, target)) || lo == null) {
      return false;
    }
    moved.put(key(v, t, filtered, target) + "#" + feed, lo);
    ctx.log.printf(
        "%s%s %s%s: measured recall@10 reaches %.2f at candidates=%d too; from candidates=%d%n",
        v.label(),
        feed == 0 ? "" : " feed " + (feed + 1),
        t.label(),
        filtered ? " filtered" : "",
        target,
        lo.candidates(),
        now.candidates());
    return true;
  }

  private static String name(Variant v, Setting g) {
    return v.label() + "@" + g.k() + "/" + g.candidates();
  }

  private static String key(Variant v, QueryType t, boolean filtered, double target) {
    return v.label() + "|" + t.label() + "|" + filtered + "|" + target;
  }
}
