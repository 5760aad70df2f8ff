package org.searchlab.mutable.modelcheck;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The model checker works on this JDK and under surefire: it finds the lost update of a racy
 * counter, and passes an atomic one. If the agent could not attach, or the instrumentation missed
 * plain field accesses, the first test would pass a broken counter; this is the smoke test the
 * scenarios of this package rely on.
 */
@Tag("modelcheck")
class LincheckProbeTest {
  private static ModelCheckingOptions small() {
    return new ModelCheckingOptions()
        .iterations(3)
        .invocationsPerIteration(200)
        .threads(2)
        .actorsPerThread(3)
        .actorsBefore(1)
        .actorsAfter(1);
  }

  @Test
  void aRacyCounterFails() {
    assertThrows(LincheckAssertionError.class, () -> small().check(RacyCounter.class));
  }

  @Test
  void anAtomicCounterPasses() {
    small().check(AtomicCounter.class);
  }

  /**
   * {@code ++value} on a plain field: two increments can read the same value and both return it.
   * Not thread-safe, on purpose. Public because Lincheck creates it by reflection.
   */
  public static final class RacyCounter {
    private int value;

    @Operation
    public int increment() {
      return ++value;
    }

    @Operation
    public int get() {
      return value;
    }
  }

  /** The same counter on an {@link AtomicInteger}. Thread-safe. */
  public static final class AtomicCounter {
    private final AtomicInteger value = new AtomicInteger();

    @Operation
    public int increment() {
      return value.incrementAndGet();
    }

    @Operation
    public int get() {
      return value.get();
    }
  }
}
