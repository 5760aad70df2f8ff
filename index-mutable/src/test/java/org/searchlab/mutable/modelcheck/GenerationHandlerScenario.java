package org.searchlab.mutable.modelcheck;

import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.searchlab.mutable.memory.GenerationHandler;

/**
 * {@link GenerationHandler}'s grace period, model-checked: a writer replaces a published version,
 * waits for older readers and frees the old version (as the compactor retires, waits and reuses
 * local ids); readers register, read the current version, and must never find it freed while their
 * guard is open.
 *
 * <p>What each check catches (ids of {@code src/test/mutations/README.md}): a reader that sees a
 * freed version is a wait that ended too early (G3 drains the wrong counter; G4 admits a reader
 * that stalled across a wait into the old counter, which only a second replacement exposes, the
 * window {@code GenerationHandlerTest} needs a stall hook for); a guard that stays counted makes
 * the next wait spin for ever, which the checker reports as a livelock, and the validation after
 * every interleaving finds it when no wait follows (G1); {@link #replace} returns the generation,
 * which the specification says counts the replacements (G2).
 *
 * <p>Thread safety: {@link #replace} is writer only (one {@code nonParallelGroup}), {@link #read}
 * runs on any thread. Public, with public operations, because Lincheck creates it and calls them by
 * reflection.
 */
@Tag("modelcheck")
public class GenerationHandlerScenario {
  private final GenerationHandler handler = new GenerationHandler();
  private volatile Version current = new Version(0);

  /** Some published memory: its number, and whether the writer has reused it. */
  private static final class Version {
    final int number;
    boolean freed;

    Version(int number) {
      this.number = number;
    }
  }

  /**
   * Publishes the next version, waits until no reader can still hold the old one, and frees it;
   * returns the handler's generation afterwards, one per replacement.
   */
  @Operation(nonParallelGroup = "writer")
  public long replace() {
    Version old = current;
    current = new Version(old.number + 1);
    handler.awaitOlderReaders();
    old.freed = true;
    return handler.generation();
  }

  /** Reads the current version under a guard; fails if it was freed while the guard was open. */
  @Operation
  public int read() {
    try (GenerationHandler.Guard guard = handler.enter()) {
      Version v = current;
      int number = v.number;
      if (v.freed) {
        throw new IllegalStateException("version " + number + " was freed under an open guard");
      }
      return number;
    }
  }

  /** After every interleaving: every guard was closed, so none may still be counted. */
  @Validate
  public void noReaderIsLeftRegistered() {
    if (handler.activeReaders() != 0) {
      throw new IllegalStateException(handler.activeReaders() + " readers left registered");
    }
  }

  /**
   * The sequential specification: a replacement bumps the version and the generation, a read
   * returns the current version. Thread-safe only as Lincheck uses it (one thread at a time).
   */
  public static final class Spec {
    private int version;

    public long replace() {
      return ++version;
    }

    public int read() {
      return version;
    }
  }

  /** Random scenarios of one writer and two readers, explored to the suite's bound. */
  @Test
  void noReaderSeesAVersionFreedUnderItsGuard() {
    ModelChecks.Bound bound = ModelChecks.Bound.of(3, 200);
    ModelChecks.check(GenerationHandlerScenario.class, Spec.class, bound);
  }

  /**
   * The scenario of {@link #twoReplacementsAndARead} alone, explored to 2,000 interleavings (or
   * {@code -Dlincheck.invocations}): with the re-check in {@code enter} removed (G4), the checker
   * finds the failing interleaving within that many (it takes more switches than the random
   * scenarios' bound reaches).
   */
  @Test
  void aReaderThatStalledAcrossAReplacementIsWaitedFor() throws NoSuchMethodException {
    ModelChecks.Bound bound =
        new ModelChecks.Bound(0, ModelChecks.Bound.of(0, 2_000).invocations());
    ModelChecks.check(
        GenerationHandlerScenario.class,
        bound,
        ModelChecks.options(bound)
            .sequentialSpecification(Spec.class)
            .addCustomScenario(twoReplacementsAndARead()));
  }

  /**
   * Two replacements against one read: the smallest scenario in which a reader admitted into the
   * old counter (G4) can be left unwaited for. Its window needs three chosen thread switches (the
   * reader reads the generation; the first replacement runs; the reader counts itself and reads the
   * new version; the second replacement frees it), deeper than the random scenarios' bound reaches.
   * Which interleaving breaks it is still the checker's to find.
   */
  private static ExecutionScenario twoReplacementsAndARead() throws NoSuchMethodException {
    Actor replace = new Actor(GenerationHandlerScenario.class.getMethod("replace"), List.of());
    Actor read = new Actor(GenerationHandlerScenario.class.getMethod("read"), List.of());
    return new ExecutionScenario(
        List.of(), List.of(List.of(replace, replace), List.of(read)), List.of(), null);
  }
}
