package org.searchlab.mutable.postings;

import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.searchlab.mutable.modelcheck.ModelChecks;

/**
 * The posting lists' publication, model-checked: a writer adds postings to three real {@link
 * PostingList}s and publishes each document after its posting, as the index writer raises its
 * visible serial after the postings; readers take a snapshot of what is published, open a {@link
 * PostingCursor} as a query does, and walk the list to its end.
 *
 * <p>The three lists reach every way {@code add} changes a list: {@code append} starts empty, so
 * its adds store a first block and raise the directory's count, append in place, and copy a full
 * small block into a larger one; {@code copy} takes postings below its last, each a copy-on-write
 * of its block; {@code split} holds a block of {@link PostingBlock#MAX} postings, so its first
 * insert splits that block and publishes a new directory, and later ones copy a half.
 *
 * <p>The invariant: a walk returns ascending ids, no id twice, no id never added (0, an unwritten
 * slot, is none), and every document published before the walk started. What each catches (ids of
 * {@code src/test/mutations/README.md}): Q5 publishes an inserted block's copy before filling it,
 * so a walk skips the still empty block and misses its published postings; Q6 raises the
 * directory's count before the block is stored, Q8 publishes a split's directory before its blocks
 * are in it, so a walk meets no block; Q7 publishes a block's size before the posting, so a walk
 * meets an unwritten 0.
 *
 * <p>Thread safety: {@link #add} is writer only (one {@code nonParallelGroup}), {@link #walk} runs
 * on any thread. Public, with public operations, because Lincheck creates it and calls them by
 * reflection.
 */
@Tag("modelcheck")
@Param(name = "list", gen = IntGen.class, conf = "0:2")
public class PostingListScenario {
  private static final int APPEND = 0;
  private static final int COPY = 1;
  private static final int SPLIT = 2;

  /** Per list, the ids the writer adds in order. */
  private static final int[][] ADDED = {
    {200, 201, 202, 203}, // into an empty list: first block, in place, grown copy, in place
    {15, 25, 5}, // below the last id of a list of 10, 20, 30, 40
    {1, 5, 9} // into the full first block of 2, 4, ..., 512 (then 10,000): a split, then copies
  };

  private final PostingList[] lists = {new PostingList(), new PostingList(), new PostingList()};
  private final int[] next = new int[3]; // writer only
  private volatile int publishedAppend;
  private volatile int publishedCopy;
  private volatile int publishedSplit;

  public PostingListScenario() {
    Oracle.setUp(lists);
  }

  /** Adds the next id of list {@code l} and then publishes it; returns how many are published. */
  @Operation(nonParallelGroup = "writer")
  public int add(@Param(name = "list") int l) {
    if (next[l] < ADDED[l].length) {
      lists[l].add(ADDED[l][next[l]++], 1, 10);
      switch (l) {
        case APPEND -> publishedAppend = next[l];
        case COPY -> publishedCopy = next[l];
        default -> publishedSplit = next[l];
      }
    }
    return next[l];
  }

  /** Walks list {@code l} from a cursor opened after reading what is published. */
  @Operation
  public void walk(@Param(name = "list") int l) {
    int published =
        switch (l) {
          case APPEND -> publishedAppend;
          case COPY -> publishedCopy;
          default -> publishedSplit;
        };
    PostingCursor cursor = new PostingCursor(lists[l]);
    int last = -1;
    int found = 0;
    for (int doc = cursor.nextDoc(); doc != PostingCursor.NO_MORE; doc = cursor.nextDoc()) {
      if (doc <= last) {
        throw new IllegalStateException("list " + l + ": " + doc + " after " + last);
      }
      found += Oracle.weight(l, doc, published);
      last = doc;
    }
    int expected = Oracle.before(l) + published;
    if (found != expected) {
      throw new IllegalStateException(
          "list " + l + ": " + found + " of the " + expected + " published ids found");
    }
  }

  /**
   * The state before the scenario and the check of one id, kept apart so that the model checker can
   * skip them: the set-up runs before the readers start (hundreds of postings, whose accesses need
   * no interleaving), and the check reads only constants.
   */
  static final class Oracle {
    private Oracle() {}

    /** Fills {@code copy} with 10, 20, 30, 40 and {@code split} with a full block and one more. */
    static void setUp(PostingList[] lists) {
      for (int doc = 10; doc <= 40; doc += 10) {
        lists[COPY].add(doc, 1, 10);
      }
      for (int doc = 4; doc <= 2 * PostingBlock.MAX; doc += 4) {
        lists[SPLIT].add(doc, 1, 10);
      }
      lists[SPLIT].add(10_000, 1, 10);
      for (int doc = 2; doc < 2 * PostingBlock.MAX; doc += 4) {
        lists[SPLIT].add(doc, 1, 10);
      }
    }

    /** How many ids list {@code l} holds before the scenario. */
    static int before(int l) {
      return switch (l) {
        case APPEND -> 0;
        case COPY -> 4;
        default -> PostingBlock.MAX + 1;
      };
    }

    /**
     * 1 if {@code doc} was in list {@code l} before the scenario or is among its first {@code
     * published} adds (the walk must find these), 0 if it is added later (it may be found);
     * otherwise fails: nothing else was ever added.
     */
    static int weight(int l, int doc, int published) {
      boolean before =
          switch (l) {
            case APPEND -> false;
            case COPY -> doc >= 10 && doc <= 40 && doc % 10 == 0;
            default -> doc == 10_000 || doc >= 2 && doc <= 2 * PostingBlock.MAX && doc % 2 == 0;
          };
      if (before) {
        return 1;
      }
      for (int i = 0; i < ADDED[l].length; i++) {
        if (ADDED[l][i] == doc) {
          return i < published ? 1 : 0;
        }
      }
      throw new IllegalStateException("list " + l + " holds " + doc + ", which was never added");
    }
  }

  /**
   * The sequential specification: each add publishes one more id of its list until the list's adds
   * run out; walks return normally. Thread-safe only as Lincheck uses it (one thread at a time).
   */
  public static final class Spec {
    private final int[] next = new int[3];

    public int add(int l) {
      next[l] = Math.min(next[l] + 1, ADDED[l].length);
      return next[l];
    }

    public void walk(int l) {}
  }

  /**
   * Random scenarios, and each list's adds against two walks of it: the suite's bound explores few
   * random scenarios, and one rarely runs a list's second and third adds beside a walk of it.
   */
  @Test
  void walksAreSortedWithoutDuplicatesAndHoldEveryPublishedId() throws NoSuchMethodException {
    ModelChecks.Bound bound = ModelChecks.Bound.of(1, 50);
    ModelChecks.check(
        PostingListScenario.class,
        bound,
        ModelChecks.options(bound)
            .sequentialSpecification(Spec.class)
            // A walk of the split list reads 257 postings in a loop; Lincheck takes a loop that
            // runs
            // past its threshold (50 here) for a spin wait, and reports a livelock when no other
            // thread is left to run. Nothing here waits for another thread, so no loop should spin.
            .loopIterationsBeforeThreadSwitch(1_000)
            .loopBound(1_000)
            .addCustomScenario(addsAgainstWalks(APPEND))
            .addCustomScenario(addsAgainstWalks(COPY))
            .addCustomScenario(addsAgainstWalks(SPLIT))
            .addGuarantee(
                ManagedStrategyGuaranteeKt.forClasses(Oracle.class.getName())
                    .allMethods()
                    .ignore()));
  }

  private static ExecutionScenario addsAgainstWalks(int l) throws NoSuchMethodException {
    Actor add = new Actor(PostingListScenario.class.getMethod("add", int.class), List.of(l));
    Actor walk = new Actor(PostingListScenario.class.getMethod("walk", int.class), List.of(l));
    return new ExecutionScenario(
        List.of(), List.of(List.of(add, add, add), List.of(walk), List.of(walk)), List.of(), null);
  }
}
