import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs the named JUnit test classes and exits 1 when any test failed: the runner mutate.py uses
 * instead of a Maven build per mutant. Not part of the build (it lives outside src/test/java).
 */
public final class RunTests {
  public static void main(String[] args) throws Exception {
    LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
    for (String name : args) {
      request.selectors(selectClass(Class.forName(name)));
    }
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    Launcher launcher = LauncherFactory.create();
    launcher.execute(request.build(), listener);
    TestExecutionSummary summary = listener.getSummary();
    summary.printFailuresTo(new PrintWriter(System.out), 3);
    System.out.printf(
        "Tests run: %d, Failures: %d%n",
        summary.getTestsStartedCount(), summary.getTotalFailureCount());
    System.exit(summary.getTotalFailureCount() == 0 && summary.getTestsStartedCount() > 0 ? 0 : 1);
  }
}
