package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link WarmupRule}: when a fresh server's JIT counts as warm. */
class WarmupRuleTest {
  private static final WarmupRule RULE = WarmupRule.upTo(60);

  /** Rounds of these CPU ms per query and compiler shares. */
  private static List<WarmupRule.Round> rounds(double[] cpu, double[] compilers) {
    List<WarmupRule.Round> out = new ArrayList<>();
    for (int i = 0; i < cpu.length; i++) {
      out.add(new WarmupRule.Round(cpu[i], compilers == null ? Double.NaN : compilers[i]));
    }
    return out;
  }

  private static List<WarmupRule.Round> rounds(double... cpu) {
    return rounds(cpu, null);
  }

  /** The rounds a warm-up runs: it stops at the first prefix the rule calls done, else -1. */
  private static int roundsRun(WarmupRule rule, List<WarmupRule.Round> curve) {
    for (int n = 1; n <= curve.size(); n++) {
      if (rule.done(curve.subList(0, n))) {
        return n;
      }
    }
    return -1;
  }

  @Test
  void measuredWarmupsStopWhenTheCompilersAreDone() {
    // Two fresh servers on 10 segments, lexical filtered at 4 clients in 1 s rounds (the probe of
    // docs/benchmark.md): CPU per query falls in steps while the compilers use a third of the CPU.
    double[] first = {
      18.93, 6.10, 3.77, 3.29, 2.89, 3.58, 3.42, 1.73, 1.45, 1.45, 1.36, 1.31, 1.30, 1.26, 1.23,
      1.18, 1.18, 1.16, 1.13, 1.12, 1.13, 1.10, 1.10, 1.11
    };
    double[] firstCompilers = {
      0.46, 0.41, 0.42, 0.37, 0.38, 0.38, 0.39, 0.41, 0.32, 0.31, 0.40, 0.24, 0.30, 0.24, 0.16,
      0.35, 0.14, 0.08, 0.07, 0.17, 0.05, 0.02, 0.00, 0.00
    };
    assertEquals(23, roundsRun(RULE, rounds(first, firstCompilers)));
    double[] second = {
      10.88, 4.02, 3.04, 2.59, 2.29, 2.92, 3.74, 1.62, 1.43, 1.41, 1.34, 1.31, 1.30, 1.28, 1.25,
      1.20, 1.17, 1.17, 1.14, 1.15, 1.14, 1.13, 1.15, 1.15, 1.14, 1.11, 1.13, 1.12
    };
    double[] secondCompilers = {
      0.46, 0.44, 0.41, 0.33, 0.30, 0.33, 0.34, 0.41, 0.38, 0.34, 0.37, 0.36, 0.41, 0.27, 0.13,
      0.05, 0.12, 0.09, 0.14, 0.08, 0.11, 0.09, 0.04, 0.04, 0.07, 0.01, 0.01, 0.00
    };
    assertEquals(28, roundsRun(RULE, rounds(second, secondCompilers)));
    // Without the compilers' share the second would stop at round 20, still compiling.
    assertEquals(20, roundsRun(RULE, rounds(second)));
    // A plateau of three rounds while the compilers are busy does not end a warm-up.
    double[] plateau = {
      21.14, 7.39, 4.88, 4.40, 3.30, 5.01, 5.58, 2.27, 2.20, 1.83, 2.03, 1.89, 1.86
    };
    assertEquals(13, roundsRun(RULE, rounds(plateau)));
    double[] busy = new double[plateau.length];
    java.util.Arrays.fill(busy, 0.3);
    assertEquals(-1, roundsRun(RULE, rounds(plateau, busy)));
  }

  @Test
  void twoSimilarRoundsDoNotEndAWarmupThatStillFalls() {
    // The old rule (two rounds within 10%) stopped at round 3 of this curve.
    assertEquals(
        13,
        roundsRun(RULE, rounds(9.0, 7.0, 6.9, 6.8, 6.7, 5.0, 4.0, 3.0, 2.0, 1.9, 1.9, 1.9, 1.9)));
  }

  @Test
  void aSlowRoundDoesNotCountAsSteadyAndFewRoundsNever() {
    assertFalse(RULE.steady(rounds(3.0, 2.0, 2.0, 2.0)), "fewer than 5 rounds");
    assertTrue(RULE.steady(rounds(3.0, 2.0, 2.0, 2.5, 2.0)));
    // a neighbour's burst doubles one round: the best before still decides
    assertTrue(RULE.steady(rounds(3.0, 2.0, 4.0, 2.0, 2.0, 2.02)));
    assertFalse(RULE.steady(rounds(3.0, 2.0, 4.0, 2.0, 2.0, 1.9)));
    // one of the last three rounds with the compilers over 5% is enough to keep warming
    double[] cpu = {3.0, 2.0, 2.0, 2.0, 2.0, 2.0};
    assertFalse(RULE.steady(rounds(cpu, new double[] {0.4, 0.3, 0.2, 0.0, 0.06, 0.0})));
    assertTrue(RULE.steady(rounds(cpu, new double[] {0.4, 0.3, 0.2, 0.05, 0.0, 0.0})));
  }

  @Test
  void roundsThatFinishNothingAreNeverSteadyButTheLimitEndsThem() {
    double inf = Double.POSITIVE_INFINITY;
    assertFalse(RULE.steady(rounds(inf, inf, inf, inf, inf, inf)));
    WarmupRule four = WarmupRule.upTo(4);
    assertEquals(new WarmupRule(4, 3, 0.03, 0.05, 4), four);
    assertTrue(four.done(rounds(inf, inf, inf, inf)));
    assertFalse(four.steady(rounds(inf, inf, inf, inf)));
    assertEquals(
        60, roundsRun(RULE, Collections.nCopies(70, new WarmupRule.Round(inf, Double.NaN))));
    // a curve that keeps falling by more than 3% a round runs to the limit
    double[] falling = new double[70];
    for (int i = 0; i < falling.length; i++) {
      falling[i] = 100 * Math.pow(0.95, i);
    }
    assertEquals(60, roundsRun(RULE, rounds(falling)));
    assertFalse(RULE.steady(rounds(falling).subList(0, 60)));
  }

  @Test
  void refusesRulesThatCannotDecide() {
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(3, 3, 0.03, 0.05, 10));
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(5, 0, 0.03, 0.05, 10));
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(5, 3, 0.03, 0.05, 4));
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(5, 3, 1.0, 0.05, 10));
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(5, 3, Double.NaN, 0.05, 10));
    assertThrows(IllegalArgumentException.class, () -> new WarmupRule(5, 3, 0.03, 1.5, 10));
  }
}
