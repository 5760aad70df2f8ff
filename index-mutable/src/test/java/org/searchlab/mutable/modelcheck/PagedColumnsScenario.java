package org.searchlab.mutable.modelcheck;

import static org.searchlab.mutable.memory.Pages.PAGE_SIZE;

import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.searchlab.mutable.memory.PagedBits;
import org.searchlab.mutable.memory.PagedBytes;
import org.searchlab.mutable.memory.PagedInts;
import org.searchlab.mutable.memory.PagedLongs;

/**
 * The paged columns' growth and publication, model-checked: a writer appends documents whose ids
 * jump across pages, writes each one's columns, sets its alive bit (a release store) and publishes
 * a limit (as {@code LocalIds} does); readers read every published id, and probe ids up to each
 * column's capacity while the directories grow.
 *
 * <p>The invariants: below the published limit every column holds the written value and the alive
 * bit is set; an id whose alive bit a reader saw holds its values; any other id below a column's
 * capacity reads the fill value, or its own value when it is being written; no read below the
 * capacity fails. What each catches (ids of {@code src/test/mutations/README.md}): P2 publishes a
 * grown directory before its new pages exist, so a probe below the capacity finds no page (the only
 * one of these that needs an interleaving); P1 makes the jump from no page to page 2 fail; P3
 * leaves the second and third of three new pages unfilled; P5 loses the other bits of a word.
 *
 * <p>Thread safety: {@link #append} is writer only (one {@code nonParallelGroup}), the reads run on
 * any thread. Public, with public operations, because Lincheck creates it and calls them by
 * reflection.
 */
@Tag("modelcheck")
@Param(name = "probe", gen = IntGen.class, conf = "0:5")
public class PagedColumnsScenario {
  /**
   * The ids appended, in order: the first lands on page 2, so every column grows from no page to
   * three at once; the second shares its word of the bitset; the third goes back to page 0. The
   * first two appends already reach every growth and bit the mutants break: a scenario rarely has
   * three appends.
   */
  private static final int[] APPENDED = {2 * PAGE_SIZE + 3, 2 * PAGE_SIZE + 4, 1};

  /**
   * Ids the probes read: appended or not, on each page. Lincheck draws a parameter from a range
   * that starts at its middle and widens, so the unwritten ids of the new pages 1 and 2 (which must
   * read the fill value) come first.
   */
  private static final int[] PROBED = {
    0, 1, 2 * PAGE_SIZE + 9, PAGE_SIZE + 5, 2 * PAGE_SIZE + 4, 3
  };

  private static final int INT_FILL = -7;
  private static final long LONG_FILL = -9;
  private static final byte BYTE_FILL = 5;

  private final PagedInts ints = new PagedInts(INT_FILL);
  private final PagedLongs longs = new PagedLongs(LONG_FILL);
  private final PagedBytes bytes = new PagedBytes(BYTE_FILL);
  private final PagedBits alive = new PagedBits();
  private int appended; // writer only
  private volatile int published;

  /**
   * Appends the next document of {@link #APPENDED}: ints by release store, longs and bytes plain,
   * then the alive bit and the limit; returns the limit (unchanged once every id is appended).
   */
  @Operation(nonParallelGroup = "writer")
  public int append() {
    if (appended < APPENDED.length) {
      int id = APPENDED[appended];
      ints.setRelease(id, intValue(id));
      longs.set(id, longValue(id));
      bytes.set(id, byteValue(id));
      alive.set(id);
      published = ++appended;
    }
    return published;
  }

  /** Reads every id below the published limit; returns the limit. */
  @Operation
  public int readPublished() {
    int limit = published;
    for (int j = 0; j < limit; j++) {
      int id = APPENDED[j];
      if (!alive.get(id)
          || ints.get(id) != intValue(id)
          || longs.getAcquire(id) != longValue(id)
          || bytes.get(id) != byteValue(id)) {
        throw new IllegalStateException("published id " + id + " " + describe(id));
      }
    }
    return limit;
  }

  /** Reads one id of {@link #PROBED} in every column whose capacity covers it. */
  @Operation
  public void probe(@Param(name = "probe") int k) {
    int id = PROBED[k];
    boolean live = alive.get(id);
    boolean ok =
        (id >= ints.capacity() || allowed(live, id, ints.get(id), intValue(id), INT_FILL))
            && (id >= longs.capacity()
                || allowed(live, id, longs.getAcquire(id), longValue(id), LONG_FILL))
            && (id >= bytes.capacity()
                || allowed(live, id, bytes.get(id), byteValue(id), BYTE_FILL));
    if (!ok || (live && !isAppended(id))) {
      throw new IllegalStateException(
          "probed id " + id + (live ? " (alive) " : " ") + describe(id));
    }
  }

  /** A live id holds its value; any other holds the fill, or its value if it is being appended. */
  private static boolean allowed(boolean live, int id, long read, long written, long fill) {
    return read == written && isAppended(id) || !live && read == fill;
  }

  private static boolean isAppended(int id) {
    for (int a : APPENDED) {
      if (a == id) {
        return true;
      }
    }
    return false;
  }

  private String describe(int id) {
    return "reads "
        + (id < ints.capacity() ? ints.get(id) : "-")
        + "/"
        + (id < longs.capacity() ? longs.get(id) : "-")
        + "/"
        + (id < bytes.capacity() ? bytes.get(id) : "-")
        + " alive="
        + alive.get(id);
  }

  private static int intValue(int id) {
    return 1000 + id;
  }

  private static long longValue(int id) {
    return (long) id << 33 | 1;
  }

  private static byte byteValue(int id) {
    return (byte) (id % 100 + 10);
  }

  /**
   * The sequential specification: each append raises the limit until every id is appended, and a
   * probe returns normally. Thread-safe only as Lincheck uses it (one thread at a time).
   */
  public static final class Spec {
    private int limit;

    public int append() {
      limit = Math.min(limit + 1, APPENDED.length);
      return limit;
    }

    public int readPublished() {
      return limit;
    }

    public void probe(int k) {}
  }

  @Test
  void readersNeverSeeAMissingPageAnUnfilledEntryOrAnUnpublishedValue() {
    ModelChecks.Bound bound = ModelChecks.Bound.of(5, 100);
    ModelChecks.check(
        PagedColumnsScenario.class,
        bound,
        ModelChecks.options(bound)
            .sequentialSpecification(Spec.class)
            // Filling a new page writes 4,096 entries of an array no reader can reach yet; its
            // accesses need no interleaving, and skipping them keeps an interleaving cheap. The
            // directory's publication, which P2 breaks, is outside these methods.
            .addGuarantee(
                ManagedStrategyGuaranteeKt.forClasses("java.util.Arrays").allMethods().ignore()));
  }
}
