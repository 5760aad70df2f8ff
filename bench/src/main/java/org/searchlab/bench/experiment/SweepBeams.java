package org.searchlab.bench.experiment;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The beams of the segment sweep's vector and hybrid cells: per segment count, the smallest beam of
 * the calibration grid at which every setting's filtered quality queries reach the recall@10 goal,
 * and the beam below it, between which each round's estimate at exactly the goal interpolates (as
 * the main cells' {@link PairedRounds#atTarget}). The goal is the profile's first target, or, where
 * a segment count already passes it at the grid's smallest beam (100 segments search 10 candidates
 * in each and measure about 1.0), {@link PairedRounds#estimatedAt} that count's recall: every count
 * is then compared at the same recall, within {@code ReportWriter.EQUAL_RECALL}, rather than the
 * 1-segment index at 0.95 against the 100-segment one at 1.0.
 *
 * <p>Recall is measured on each setting's own server ({@link #measure}): concurrent search shares
 * the best scores found so far between segments as they run, so its answers can differ from the
 * sequential one's. Each count walks the grid upwards from the smallest beam and stops at the first
 * beam where every setting measures {@link #HIGHEST_GOAL} or more, above which no goal can lie. Not
 * thread-safe; one instance per sweep.
 */
final class SweepBeams {
  /** The highest goal there can be: a recall of 1.0 less the equal-recall tolerance. */
  static final double HIGHEST_GOAL = PairedRounds.estimatedAt(0, 1.0);

  /**
   * A segment count's beams for one query type.
   *
   * @param beam the calibrated setting the cells run at
   * @param below the grid's beam just below it, null when the beam is the grid's smallest
   * @param brackets per setting, the recalls at both beams and the goal (the interpolation's input)
   */
  record Choice(Setting beam, Setting below, Map<SweepSetting, PairedRounds.Bracket> brackets) {}

  private final Profile profile;

  /** Per type, segment count and setting: the recall@10 at each grid beam walked, in grid order. */
  private final Map<QueryType, Map<Integer, Map<SweepSetting, List<Double>>>> recalls =
      new LinkedHashMap<>();

  private final Map<QueryType, Double> goals = new LinkedHashMap<>();
  private final Map<QueryType, Map<Integer, Choice>> choices = new LinkedHashMap<>();

  SweepBeams(Profile profile) {
    this.profile = profile;
  }

  /** The grid of a calibrated type: the profile's vector beams, or the hybrid ones (k = 100). */
  List<Setting> grid(QueryType t) {
    List<Setting> out = new ArrayList<>();
    List<Integer> beams = t == QueryType.VECTOR ? profile.vectorBeams() : profile.hybridBeams();
    for (int nc : beams) {
      out.add(
          new Setting(
              t == QueryType.VECTOR ? Math.min(ExactSearch.VECTOR_K, nc) : ExactSearch.VECTOR_K,
              nc));
    }
    return out;
  }

  /**
   * Measures the recall@10 of the filtered quality queries of {@code t} on each setting's server of
   * one segment count, beam after beam of the grid, until every setting reaches {@link
   * #HIGHEST_GOAL}.
   *
   * @return the number of queries sent, for the progress estimate
   */
  long measure(
      QueryType t,
      int segments,
      Map<SweepSetting, Session> servers,
      List<BenchQuery> quality,
      List<ExactAnswer> truths)
      throws IOException, InterruptedException {
    Map<SweepSetting, List<Double>> bySetting = new LinkedHashMap<>();
    servers.keySet().forEach(s -> bySetting.put(s, new ArrayList<>()));
    long sent = 0;
    for (Setting g : grid(t)) {
      Map<String, List<List<String>>> answers = new LinkedHashMap<>();
      for (Map.Entry<SweepSetting, Session> e : servers.entrySet()) {
        Session s = e.getValue();
        answers.put(e.getKey().label(), s.ids(s.requests(quality, t, true, g)));
        sent += quality.size();
      }
      QualityCheck.Result q = QualityCheck.evaluate(truths, answers, List.of());
      double lowest = 1;
      for (SweepSetting s : servers.keySet()) {
        double r = q.recall().getOrDefault(s.label(), 0.0);
        bySetting.get(s).add(r);
        lowest = Math.min(lowest, r);
      }
      if (lowest >= HIGHEST_GOAL) {
        break;
      }
    }
    recalls.computeIfAbsent(t, x -> new LinkedHashMap<>()).put(segments, bySetting);
    return sent;
  }

  /**
   * Chooses every count's beams once all counts are measured: the goal of each type, then per count
   * the smallest beam whose lowest recall over the settings reaches it (where none does, the beam
   * where that lowest recall was highest, with a warning).
   */
  void choose(java.io.PrintStream log) {
    Double target = profile.recallTargets().getFirst();
    for (Map.Entry<QueryType, Map<Integer, Map<SweepSetting, List<Double>>>> byType :
        recalls.entrySet()) {
      QueryType t = byType.getKey();
      List<Setting> grid = grid(t);
      Map<String, Double> atFloor = new LinkedHashMap<>();
      for (Map.Entry<Integer, Map<SweepSetting, List<Double>>> e : byType.getValue().entrySet()) {
        double r = lowest(e.getValue(), 0);
        if (r >= target) {
          atFloor.put(e.getKey() + " segments", r);
        }
      }
      double goal = PairedRounds.estimatedAt(target, PairedRounds.commonRecall(target, atFloor));
      goals.put(t, goal);
      Map<Integer, Choice> byCount = new LinkedHashMap<>();
      for (Map.Entry<Integer, Map<SweepSetting, List<Double>>> e : byType.getValue().entrySet()) {
        Map<SweepSetting, List<Double>> r = e.getValue();
        int walked = r.values().iterator().next().size();
        int pick = -1;
        for (int i = 0; i < walked && pick < 0; i++) {
          if (lowest(r, i) >= goal) {
            pick = i;
          }
        }
        boolean reached = pick >= 0;
        if (!reached) {
          List<Double> lows = new ArrayList<>();
          for (int i = 0; i < walked; i++) {
            lows.add(lowest(r, i));
          }
          pick = Calibration.highest(lows);
          log.printf(
              Locale.ROOT,
              "WARNING: sweep %s filtered at %d segments does not reach recall@10 %.3f on the"
                  + " grid; measured at candidates=%d, where it was highest%n",
              t.label(),
              e.getKey(),
              goal,
              grid.get(pick).candidates());
        }
        // Without a beam that reaches the goal there is nothing to interpolate to: the cells stay
        // at the beam where recall was highest, and their rows say what it was.
        Setting below = reached && pick > 0 ? grid.get(pick - 1) : null;
        Map<SweepSetting, PairedRounds.Bracket> brackets = new LinkedHashMap<>();
        for (Map.Entry<SweepSetting, List<Double>> s : r.entrySet()) {
          brackets.put(
              s.getKey(),
              new PairedRounds.Bracket(
                  below,
                  below == null ? null : s.getValue().get(pick - 1),
                  s.getValue().get(pick),
                  goal));
        }
        byCount.put(e.getKey(), new Choice(grid.get(pick), below, brackets));
      }
      choices.put(t, byCount);
    }
  }

  /** The goal of a calibrated type, after {@link #choose}. */
  double goal(QueryType t) {
    return goals.get(t);
  }

  /** The beams of a calibrated type at a segment count, after {@link #choose}. */
  Choice choice(QueryType t, int segments) {
    return choices.get(t).get(segments);
  }

  private static double lowest(Map<SweepSetting, List<Double>> bySetting, int beam) {
    double min = 1;
    for (List<Double> r : bySetting.values()) {
      min = Math.min(min, r.get(beam));
    }
    return min;
  }
}
