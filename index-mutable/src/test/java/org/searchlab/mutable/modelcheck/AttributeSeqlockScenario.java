package org.searchlab.mutable.modelcheck;

import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.searchlab.core.Filter;
import org.searchlab.mutable.attributes.AttributeStore;

/**
 * The attribute seqlock, model-checked: a writer assigns one document's category, price and rating
 * in place, always as one of three consistent rows; readers read the whole row, or filter on
 * category and price together, and must see one row, never the category of one write beside the
 * price of another.
 *
 * <p>What each check catches (ids of {@code src/test/mutations/README.md}): a two-column filter
 * that does not retry a torn read passes a category and a price that no row has (A1); a writer that
 * does not make the counter odd first lets a reader accept a half-written row (A2). The load-load
 * fence the reader needs (A4) is invisible to this sequentially consistent checker.
 *
 * <p>Thread safety: {@link #assign} is writer only (one {@code nonParallelGroup}), the reads run on
 * any thread. Public, with public operations, because Lincheck creates it and calls them by
 * reflection.
 */
@Tag("modelcheck")
// 25-35 ms an interleaving (the writer's hash maps and sets are instrumented too): over the suite's
// time budget even at a small bound, so it runs with the acceptance bound and in mutate.py only.
@EnabledIfSystemProperty(named = "modelcheck.extended", matches = "true")
@Param(name = "row", gen = IntGen.class, conf = "0:2")
public class AttributeSeqlockScenario {
  private static final int DOC = 0;
  private static final String[] CATEGORIES = {"c0", "c1", "c2"};

  private final AttributeStore store = new AttributeStore();

  public AttributeSeqlockScenario() {
    store.set(DOC, CATEGORIES[0], price(0), rating(0));
  }

  /** Assigns row {@code k} to the document in place. */
  @Operation(nonParallelGroup = "writer")
  public void assign(@Param(name = "row") int k) {
    store.assign(DOC, CATEGORIES[k], price(k), rating(k));
  }

  /** Reads the document's row through the seqlock; returns which row it is. */
  @Operation
  public int readRow() {
    int[] categories = new int[1];
    int[] prices = new int[1];
    float[] ratings = new float[1];
    store.readRow(DOC, 0, categories, prices, ratings);
    String name = store.categoryName(categories[0]);
    for (int k = 0; k < CATEGORIES.length; k++) {
      if (CATEGORIES[k].equals(name) && prices[0] == price(k) && ratings[0] == rating(k)) {
        return k;
      }
    }
    throw new IllegalStateException(
        "torn row: category " + name + ", price " + prices[0] + ", rating " + ratings[0]);
  }

  /** Whether the document has row {@code k}'s category and row {@code j}'s price. */
  @Operation
  public boolean matches(@Param(name = "row") int k, @Param(name = "row") int j) {
    int ordinal = store.ordinalOf(CATEGORIES[k]);
    if (ordinal < 0) {
      return false; // no document ever had this category when the filter was resolved
    }
    Filter filter =
        Filter.category(CATEGORIES[k]).withPrice(new Filter.PriceRange(price(j), price(j)));
    return store.matches(DOC, filter, ordinal);
  }

  private static int price(int k) {
    return 100 + 10 * k;
  }

  private static float rating(int k) {
    return k + 0.5f;
  }

  /**
   * The sequential specification: the document holds the last assigned row. Thread-safe only as
   * Lincheck uses it (one thread at a time).
   */
  public static final class Spec {
    private int row;

    public void assign(int k) {
      row = k;
    }

    public int readRow() {
      return row;
    }

    public boolean matches(int k, int j) {
      return row == k && row == j;
    }
  }

  @Test
  void readersSeeOneRowNeverATornPair() {
    ModelChecks.Bound bound = ModelChecks.Bound.of(3, 100);
    ModelChecks.check(AttributeSeqlockScenario.class, Spec.class, bound);
  }
}
