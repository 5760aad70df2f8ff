import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.discovery.ClassSelector;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * A JUnit launcher for one seed: runs the named test classes in this JVM (whose {@code
 * -Dtests.seed} the caller chose) and exits 0 when every test passed, 1 otherwise. Used by {@code
 * run-restart-seeds.sh} as a single-file source program, so nothing needs installing. Not
 * thread-safe; one run per JVM, since TestSeeds reads the seed once.
 */
public final class SeedRun {
  private SeedRun() {}

  public static void main(String[] args) {
    if (args.length == 0) {
      System.err.println("usage: SeedRun TEST_CLASS...");
      System.exit(2);
    }
    List<ClassSelector> classes = new ArrayList<>();
    for (String name : args) {
      classes.add(selectClass(name));
    }
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request().selectors(classes).build();
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    launcher.execute(request, summary);
    TestExecutionSummary s = summary.getSummary();
    PrintWriter out = new PrintWriter(System.out, true);
    s.printFailuresTo(out, 40);
    System.out.printf(
        "[summary] tests found %d, succeeded %d, failed %d, aborted %d, skipped %d%n",
        s.getTestsFoundCount(),
        s.getTestsSucceededCount(),
        s.getTotalFailureCount(),
        s.getTestsAbortedCount(),
        s.getTestsSkippedCount());
    boolean ok = s.getTotalFailureCount() == 0 && s.getTestsFoundCount() > 0;
    System.exit(ok ? 0 : 1);
  }
}
