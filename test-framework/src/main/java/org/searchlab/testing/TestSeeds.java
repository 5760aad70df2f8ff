package org.searchlab.testing;

import java.util.SplittableRandom;

/**
 * The seed of a randomized test: {@code -Dtests.seed=N} reproduces a run; otherwise a fresh seed
 * per JVM. Every call prints the seed with the test's name, so a failure can be replayed.
 *
 * <p>The {@code tests.seed} property is read on every call, not once, so a launcher can run the
 * same tests for several session seeds in one JVM by setting it between rounds ({@code
 * qa/seeds/SeedRun.java} does). Thread-safe.
 */
public final class TestSeeds {
  private static final long FRESH_SEED = new SplittableRandom(System.nanoTime()).nextLong();

  private TestSeeds() {}

  /** The seed for {@code testName}: derived from the session seed, printed to stdout. */
  public static long seed(String testName) {
    long session = sessionSeed();
    long seed = session ^ testName.hashCode() * 0x9E3779B97F4A7C15L;
    System.out.println(
        "[seed] " + testName + " seed=" + seed + " (reproduce with -Dtests.seed=" + session + ")");
    return seed;
  }

  /** The session seed every test seed derives from: {@code tests.seed}, or this JVM's fresh one. */
  public static long sessionSeed() {
    return Long.getLong("tests.seed", FRESH_SEED);
  }
}
