package org.searchlab.bench.experiment;

import java.util.List;

/**
 * When a fresh server counts as warm for one kind of request: it is sent rounds of those requests,
 * and warming stops once its JIT has finished, that is when in each of the last {@code patience}
 * rounds the compiler threads used at most {@code maxCompilerShare} of the server's CPU and those
 * rounds did not lower the best CPU per query before them by more than {@code tolerance} (and at
 * least {@code minRounds} have run), or at {@code maxRounds}.
 *
 * <p>Why these signals: a fresh server's CPU per query falls in steps as the JIT compiles its hot
 * code, with plateaus of several rounds between them while the compiler works through its queue;
 * the compiler's share of the CPU is what tells a plateau from the end. The best round rather than
 * the last keeps a round that a neighbour's burst slowed from ending the warm-up. The segment
 * sweep's earlier rule, two rounds agreeing on QPS within 10%, stopped while a fresh server's CPU
 * per query was still falling from 7–9 ms to 1.1–1.2 ms on 10 segments over the next 30 s
 * (docs/benchmark.md), and the sweep's cells measured that fall. Immutable; thread-safe.
 *
 * @param minRounds rounds always run, at least {@code patience + 1}
 * @param patience rounds in a row that must not improve on the best before them
 * @param tolerance the smallest fall, as a fraction of the best before, that counts as improving
 * @param maxCompilerShare the most of a round's server CPU (compilers included) its JIT compiler
 *     threads may use for the round to count as steady
 * @param maxRounds the most rounds, at least {@code minRounds}
 */
record WarmupRule(
    int minRounds, int patience, double tolerance, double maxCompilerShare, int maxRounds) {

  /**
   * One warm-up round.
   *
   * @param cpuMsPerQuery the server's CPU ms per query, its compilers left out (infinite when the
   *     round finished no request)
   * @param compilerShare the compiler threads' share of the server's CPU in the round (NaN where it
   *     cannot be read, which does not hold a warm-up back)
   */
  record Round(double cpuMsPerQuery, double compilerShare) {}

  /**
   * The sweep's rule: steady when 3 rounds in a row do not improve the best by more than 3% and the
   * compilers used at most 5% of the CPU in each, after at least 5 rounds (4 where {@code
   * maxRounds} is smaller), at most {@code maxRounds} (4 or more).
   */
  static WarmupRule upTo(int maxRounds) {
    int max = Math.max(4, maxRounds);
    return new WarmupRule(Math.min(5, max), 3, 0.03, 0.05, max);
  }

  WarmupRule {
    if (patience < 1 || minRounds < patience + 1 || maxRounds < minRounds) {
      throw new IllegalArgumentException(
          String.format(
              "a warm-up needs patience >= 1, min rounds > patience and max rounds >= min rounds;"
                  + " got patience %d, min %d, max %d",
              patience, minRounds, maxRounds));
    }
    if (!(tolerance >= 0 && tolerance < 1)) {
      throw new IllegalArgumentException("tolerance must be in [0, 1); got " + tolerance);
    }
    if (!(maxCompilerShare >= 0 && maxCompilerShare <= 1)) {
      throw new IllegalArgumentException(
          "the compilers' share must be in [0, 1]; got " + maxCompilerShare);
    }
  }

  /** Whether warming stops after these rounds: steady, or at the most rounds. */
  boolean done(List<Round> rounds) {
    return rounds.size() >= maxRounds || steady(rounds);
  }

  /** Whether these rounds end steady, as the class describes. */
  boolean steady(List<Round> rounds) {
    int n = rounds.size();
    if (n < minRounds) {
      return false;
    }
    double before = Double.POSITIVE_INFINITY;
    for (int i = 0; i < n - patience; i++) {
      before = Math.min(before, rounds.get(i).cpuMsPerQuery());
    }
    double recent = Double.POSITIVE_INFINITY;
    for (int i = n - patience; i < n; i++) {
      Round r = rounds.get(i);
      if (r.compilerShare() > maxCompilerShare) {
        return false;
      }
      recent = Math.min(recent, r.cpuMsPerQuery());
    }
    if (!Double.isFinite(recent)) {
      return false;
    }
    return recent >= before * (1 - tolerance);
  }
}
