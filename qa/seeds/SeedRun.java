import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.ClassSelector;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * A JUnit launcher that runs the named test classes once per session seed, several seeds in one
 * JVM: before each round it sets {@code tests.seed} to a fresh random seed (or the one given), which
 * {@code TestSeeds} reads on every call, so each round's tests draw new derived seeds. Exits 0 when
 * every round passed, 1 at the first failing round (after printing its seed and failures), 2 on a
 * usage error. Used by {@code run-restart-seeds.sh} as a single-file source program.
 *
 * <p>Usage: {@code SeedRun [--rounds N] [--seconds S] [--seed S] [--tag T] [--times] CLASS...}:
 * {@code --seconds} starts no round after S seconds; {@code --seed} makes the first round use S
 * (reproducing a failure); {@code --tag} keeps only tests with that JUnit tag; {@code --times}
 * prints each test's mean time per round.
 *
 * <p>Not thread-safe; one run per JVM.
 */
public final class SeedRun {
  private SeedRun() {}

  public static void main(String[] args) {
    int rounds = 1;
    Long firstSeed = null;
    String tag = null;
    boolean times = false;
    long deadline = Long.MAX_VALUE;
    List<ClassSelector> classes = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--seed" -> firstSeed = Long.parseLong(args[++i]);
        case "--tag" -> tag = args[++i];
        case "--times" -> times = true;
        case "--seconds" -> deadline = System.nanoTime() + Long.parseLong(args[++i]) * 1_000_000_000L;
        default -> classes.add(selectClass(args[i]));
      }
    }
    if (classes.isEmpty() || rounds < 1) {
      System.err.println(
          "usage: SeedRun [--rounds N] [--seconds S] [--seed S] [--tag T] [--times] CLASS...");
      System.exit(2);
    }
    LauncherDiscoveryRequestBuilder builder = LauncherDiscoveryRequestBuilder.request();
    builder.selectors(classes);
    if (tag != null) {
      builder.filters(TagFilter.includeTags(tag));
    }
    LauncherDiscoveryRequest request = builder.build();
    Launcher launcher = LauncherFactory.create();
    SecureRandom fresh = new SecureRandom();
    Timings timings = new Timings();
    PrintWriter out = new PrintWriter(System.out, true);
    int ran = 0;
    for (int round = 1; round <= rounds && System.nanoTime() < deadline; round++) {
      long seed = round == 1 && firstSeed != null ? firstSeed : fresh.nextLong();
      System.setProperty("tests.seed", Long.toString(seed));
      long t0 = System.nanoTime();
      SummaryGeneratingListener summary = new SummaryGeneratingListener();
      launcher.execute(request, summary, timings);
      TestExecutionSummary s = summary.getSummary();
      ran++;
      boolean ok = s.getTotalFailureCount() == 0 && s.getTestsFoundCount() > 0;
      out.printf(
          "[round] %d seed %d %s tests %d, failed %d, aborted %d, skipped %d, %.1f s%n",
          round,
          seed,
          ok ? "ok" : "FAILED",
          s.getTestsFoundCount(),
          s.getTotalFailureCount(),
          s.getTestsAbortedCount(),
          s.getTestsSkippedCount(),
          (System.nanoTime() - t0) / 1e9);
      if (!ok) {
        s.printFailuresTo(out, 40);
        System.exit(1);
      }
    }
    if (times) {
      timings.print(out, ran);
    }
    System.exit(0);
  }

  /** Sums each test's and each class's time over the rounds. Thread-safe (JUnit may call from any). */
  private static final class Timings implements TestExecutionListener {
    private final Map<String, Long> started = new ConcurrentHashMap<>();
    private final Map<String, Long> total = new ConcurrentHashMap<>();

    @Override
    public void executionStarted(TestIdentifier id) {
      started.put(id.getUniqueId(), System.nanoTime());
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
      Long t0 = started.remove(id.getUniqueId());
      if (t0 != null && (id.isTest() || isClass(id))) {
        total.merge(name(id), System.nanoTime() - t0, Long::sum);
      }
    }

    private static boolean isClass(TestIdentifier id) {
      return id.getUniqueId().endsWith("]") && id.getUniqueId().contains("[class:")
          && !id.getUniqueId().contains("[method:");
    }

    private static String name(TestIdentifier id) {
      String u = id.getUniqueId();
      String cls = u.replaceAll(".*\\[class:([^\\]]*)\\].*", "$1");
      cls = cls.substring(cls.lastIndexOf('.') + 1);
      return id.isTest() ? cls + "." + id.getDisplayName() : cls + " (class)";
    }

    void print(PrintWriter out, int rounds) {
      out.printf("[times] mean seconds per round over %d rounds%n", rounds);
      new TreeMap<>(total).forEach((k, v) -> out.printf("[time] %8.2f %s%n", v / 1e9 / rounds, k));
    }
  }
}
