package org.searchlab.testing;

import java.util.SplittableRandom;

/**
 * The seed of a randomized test: {@code -Dtests.seed=N} reproduces a run; otherwise a fresh seed.
 * Every call prints the seed with the test's name, so a failure can be replayed. Thread-safe.
 */
public final class TestSeeds {
  private static final long SESSION_SEED =
      Long.getLong("tests.seed", new SplittableRandom(System.nanoTime()).nextLong());

  private TestSeeds() {}

  /** The seed for {@code testName}: derived from the session seed, printed to stdout. */
  public static long seed(String testName) {
    long seed = SESSION_SEED ^ testName.hashCode() * 0x9E3779B97F4A7C15L;
    System.out.println(
        "[seed] "
            + testName
            + " seed="
            + seed
            + " (reproduce with -Dtests.seed="
            + SESSION_SEED
            + ")");
    return seed;
  }

  /** The session seed every test seed derives from. */
  public static long sessionSeed() {
    return SESSION_SEED;
  }
}
