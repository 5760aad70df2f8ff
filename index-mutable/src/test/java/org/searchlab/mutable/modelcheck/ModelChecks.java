package org.searchlab.mutable.modelcheck;

import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionResult;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.verifier.LinearizabilityVerifier;
import org.jetbrains.lincheck.datastructures.verifier.Verifier;

/**
 * How far the publication scenarios are explored, and the run that reports how many interleavings
 * were checked.
 *
 * <p>The suite's bound is small (a second or two per scenario). The acceptance bound of issue 70,
 * every scenario included:
 *
 * <pre>
 * ./mvnw -pl index-mutable test -Dgroups=modelcheck -Dmodelcheck.extended=true \
 *     -Dlincheck.iterations=100 -Dlincheck.invocations=10000
 * </pre>
 *
 * Lincheck's scenario generator and its choice of interleavings are seeded with fixed seeds inside
 * Lincheck (0), so a run is reproducible and there is no seed to print.
 *
 * <p>Public because {@code LocalIdsScenario}, {@code GraphLinksScenario} and {@code
 * PostingListScenario} live in the packages of the package-private classes they check. Thread
 * safety: static helpers; {@link CountingVerifier}'s count is atomic.
 */
public final class ModelChecks {
  private ModelChecks() {}

  /** Iterations × invocations per iteration: the suite's, unless the system properties say more. */
  public record Bound(int iterations, int invocations) {
    public static Bound of(int suiteIterations, int suiteInvocations) {
      return new Bound(
          Integer.getInteger("lincheck.iterations", suiteIterations),
          Integer.getInteger("lincheck.invocations", suiteInvocations));
    }
  }

  /**
   * Options for one writer thread and two reader threads of up to three operations each, one
   * operation before and after the parallel part, explored to {@code bound}.
   */
  public static ModelCheckingOptions options(Bound bound) {
    return new ModelCheckingOptions()
        .iterations(bound.iterations())
        .invocationsPerIteration(bound.invocations())
        .threads(3)
        .actorsPerThread(3)
        .actorsBefore(1)
        .actorsAfter(1)
        .verifier(CountingVerifier.class);
  }

  /**
   * Checks {@code scenario} against the sequential specification {@code spec} with the {@link
   * #options} of {@code bound}.
   */
  public static void check(Class<?> scenario, Class<?> spec, Bound bound) {
    check(scenario, bound, options(bound).sequentialSpecification(spec));
  }

  /**
   * Runs the check and prints what it explored: the bound and the number of interleavings whose
   * results were verified (below iterations × invocations where iterations were fully explored).
   */
  public static void check(Class<?> scenario, Bound bound, ModelCheckingOptions options) {
    long before = CountingVerifier.CHECKED.get();
    long start = System.nanoTime();
    options.check(scenario);
    System.out.printf(
        "%s: %d iterations x %d invocations, %d interleavings verified, %.1f s%n",
        scenario.getSimpleName(),
        bound.iterations(),
        bound.invocations(),
        CountingVerifier.CHECKED.get() - before,
        (System.nanoTime() - start) / 1e9);
  }

  /**
   * Lincheck's linearizability verifier, counting the interleavings it is given: Lincheck verifies
   * the results of every interleaving that completes, and reports no count of its own. Public with
   * a {@code (Class)} constructor because Lincheck creates it by reflection.
   */
  public static final class CountingVerifier implements Verifier {
    static final AtomicLong CHECKED = new AtomicLong();
    private final Verifier delegate;

    public CountingVerifier(Class<?> sequentialSpecification) {
      this.delegate = new LinearizabilityVerifier(sequentialSpecification);
    }

    @Override
    public boolean verifyResults(ExecutionScenario scenario, ExecutionResult results) {
      CHECKED.incrementAndGet();
      return delegate.verifyResults(scenario, results);
    }
  }
}
