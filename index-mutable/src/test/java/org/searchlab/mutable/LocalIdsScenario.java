package org.searchlab.mutable;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.searchlab.mutable.memory.GenerationHandler;
import org.searchlab.mutable.modelcheck.ModelChecks;

/**
 * Local-id visibility, model-checked: a writer puts and deletes two documents as the index writer
 * does (allocate a new version, retire the old one at the same serial, activate, publish) and frees
 * retired ids after a grace period as the compactor does, so ids are recycled; searches read the
 * published serial once and collect the external ids visible at it.
 *
 * <p>The invariants: a search sees exactly the documents live at its serial (checked against the
 * sequential specification), never two versions of one external id, and never an id whose external
 * id is gone. The scenario starts with two ids on the free list, so the first put already recycles
 * one. What each catches (ids of {@code src/test/mutations/README.md}): a recycled id made live
 * before its birth serial is written is visible to a search that started before it was born (L1);
 * reading born before died lets a recycle slip between the two reads (L5); L2 hands one id out
 * twice; L3 leaves a retired version visible.
 *
 * <p>Lives in {@code org.searchlab.mutable} because {@link LocalIds} is package-private; it shares
 * the bounds of {@code org.searchlab.mutable.modelcheck}. Thread safety: {@link #put}, {@link
 * #delete} and {@link #compact} are writer only (one {@code nonParallelGroup}), {@link #search}
 * runs on any thread. Public, with public operations, because Lincheck creates it and calls them by
 * reflection.
 */
@Tag("modelcheck")
// 25-35 ms an interleaving (the writer's hash maps and sets are instrumented too): over the suite's
// time budget even at a small bound, so it runs with the acceptance bound and in mutate.py only.
@EnabledIfSystemProperty(named = "modelcheck.extended", matches = "true")
@Param(name = "doc", gen = IntGen.class, conf = "0:1")
public class LocalIdsScenario {
  private static final String[] DOCS = {"a", "b"};

  private final LocalIds ids = new LocalIds();
  private final GenerationHandler generations = new GenerationHandler();
  private final List<Integer> retired = new ArrayList<>(); // writer only
  private long serial; // writer only

  /** Leaves "a" live at id 2 and ids 0 and 1 (old "a", deleted "b") on the free list. */
  public LocalIdsScenario() {
    put(0);
    put(1);
    put(0);
    delete(1);
    compact();
  }

  /** Writes a new version of document {@code k}, retiring the current one at the same serial. */
  @Operation(nonParallelGroup = "writer")
  public void put(@Param(name = "doc") int k) {
    String id = DOCS[k];
    long s = ++serial;
    int old = ids.lookup(id);
    int local = ids.allocate(id, s);
    if (old >= 0) {
      ids.retire(id, old, s, false);
      retired.add(old);
    }
    ids.activate(id, local);
    ids.publish(s);
  }

  /** Deletes document {@code k} if it is live. */
  @Operation(nonParallelGroup = "writer")
  public void delete(@Param(name = "doc") int k) {
    String id = DOCS[k];
    int old = ids.lookup(id);
    if (old >= 0) {
      long s = ++serial;
      ids.retire(id, old, s, true);
      retired.add(old);
      ids.publish(s);
    }
  }

  /** Frees every retired id once no search that could still see it is running. */
  @Operation(nonParallelGroup = "writer")
  public void compact() {
    generations.awaitOlderReaders();
    for (int local : retired) {
      ids.free(local);
    }
    retired.clear();
  }

  /** The external ids visible at the published serial, sorted and joined by commas. */
  @Operation
  public String search() {
    try (GenerationHandler.Guard guard = generations.enter()) {
      long s = ids.visibleSerial();
      int limit = ids.limit();
      TreeSet<String> seen = new TreeSet<>();
      for (int local = 0; local < limit; local++) {
        if (ids.visible(local, s)) {
          String id = ids.external(local);
          if (id == null || !seen.add(id)) {
            throw new IllegalStateException(
                "id " + local + " visible at serial " + s + " as " + id + " beside " + seen);
          }
        }
      }
      return String.join(",", seen);
    }
  }

  /**
   * The sequential specification: the set of live documents. Thread-safe only as Lincheck uses it
   * (one thread at a time).
   */
  public static final class Spec {
    private final TreeSet<String> live = new TreeSet<>(List.of("a"));

    public void put(int k) {
      live.add(DOCS[k]);
    }

    public void delete(int k) {
      live.remove(DOCS[k]);
    }

    public void compact() {}

    public String search() {
      return String.join(",", live);
    }
  }

  @Test
  void searchesSeeExactlyTheDocumentsLiveAtTheirSerial() {
    ModelChecks.Bound bound = ModelChecks.Bound.of(3, 100);
    ModelChecks.check(LocalIdsScenario.class, Spec.class, bound);
  }
}
