package org.searchlab.mutable.attributes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Filter;
import org.searchlab.mutable.memory.Race;
import org.searchlab.testing.TestSeeds;

/**
 * {@link AttributeStore}: the category dictionary and bits, in-place updates, clearing, snapshots,
 * and the seqlock that keeps a category-and-price filter from matching half an update.
 */
class AttributeStoreTest {

  @Test
  void columnsAndCategoryBitsFollowSetUpdateAndClear() {
    AttributeStore a = new AttributeStore();
    a.set(0, "shoes", 10, 4.5f);
    a.set(1, "hats", 20, 3f);
    a.set(2, null, 30, 1f);
    int shoes = a.ordinalOf("shoes");
    int hats = a.ordinalOf("hats");
    assertEquals(0, shoes);
    assertEquals(1, hats);
    assertEquals(-2, a.ordinalOf("never"));
    assertEquals(2, a.categoryCardinality());
    assertEquals("hats", a.categoryName(hats));
    assertNull(a.categoryName(AttributeStore.NO_CATEGORY));
    assertEquals(AttributeStore.NO_CATEGORY, a.category(2));
    assertEquals(10, a.price(0));
    assertEquals(4.5f, a.rating(0));
    assertTrue(a.bits(shoes).get(0));
    assertEquals(1, a.categoryCount(shoes));

    a.update(0, "hats", null, 2f); // category and rating change, price stays
    assertEquals(hats, a.category(0));
    assertEquals(10, a.price(0));
    assertEquals(2f, a.rating(0));
    assertFalse(a.bits(shoes).get(0), "the old category's bit is cleared");
    assertTrue(a.bits(hats).get(0));
    assertEquals(0, a.categoryCount(shoes));
    assertEquals(2, a.categoryCount(hats));

    a.update(1, null, 25, null); // only the price
    assertEquals(hats, a.category(1));
    assertEquals(25, a.price(1));
    assertEquals(3f, a.rating(1));

    a.clear(1);
    assertEquals(AttributeStore.NO_CATEGORY, a.category(1));
    assertFalse(a.bits(hats).get(1));
    assertEquals(1, a.categoryCount(hats));

    a.set(1, "shoes", 5, 0f); // a freed id reused by a new document
    assertTrue(a.bits(shoes).get(1));
    assertEquals(1, a.categoryCount(shoes));
  }

  @Test
  void filtersMatchOnCategoryPriceOrBoth() {
    AttributeStore a = new AttributeStore();
    a.set(0, "shoes", 10, 0f);
    a.set(1, "hats", 10, 0f);
    int shoes = a.ordinalOf("shoes");
    Filter.PriceRange cheap = new Filter.PriceRange(0, 15);
    Filter.PriceRange dear = new Filter.PriceRange(16, 100);
    assertTrue(a.matches(0, new Filter("shoes", null), shoes));
    assertFalse(a.matches(1, new Filter("shoes", null), shoes));
    assertTrue(a.matches(1, new Filter(null, cheap), AttributeStore.NO_CATEGORY));
    assertFalse(a.matches(1, new Filter(null, dear), AttributeStore.NO_CATEGORY));
    assertTrue(a.matches(0, new Filter("shoes", cheap), shoes));
    assertFalse(a.matches(0, new Filter("shoes", dear), shoes));
    assertFalse(a.matches(1, new Filter("shoes", cheap), shoes));
  }

  @Test
  void snapshotKeepsLiveDocumentsAndDropsTheOthersCategories() throws IOException {
    AttributeStore a = new AttributeStore();
    a.set(0, "shoes", 10, 1f);
    a.set(1, "hats", 20, 2f);
    a.set(5000, "shoes", 30, 3f); // on the second page
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    a.write(new DataOutputStream(bytes), 5001);
    AttributeStore b = new AttributeStore();
    b.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())), d -> d != 1, 5001);
    int shoes = b.ordinalOf("shoes");
    assertEquals(2, b.categoryCount(shoes));
    assertTrue(b.bits(shoes).get(5000));
    assertEquals(30, b.price(5000));
    assertEquals(3f, b.rating(5000));
    assertEquals(AttributeStore.NO_CATEGORY, b.category(1), "not live: no category");
    assertEquals(0, b.categoryCount(b.ordinalOf("hats")));
  }

  /**
   * The writer moves documents between two states in place: category {@code c0} with a price in [0,
   * 999], or {@code c1} with a price in [1000, 1999]. A filter pairing {@code c0} with the high
   * band (or {@code c1} with the low one) matches only a torn read, half of each state.
   */
  @Test
  void aCategoryAndPriceFilterNeverSeesHalfAnUpdate() throws Exception {
    long seed = TestSeeds.seed("AttributeStoreTest.seqlock");
    int docs = 4;
    AttributeStore a = new AttributeStore();
    for (int d = 0; d < docs; d++) {
      a.set(d, "c0", 1, 0f);
    }
    a.set(docs, "c1", 1001, 0f); // both categories exist before the readers start
    int c0 = a.ordinalOf("c0");
    int c1 = a.ordinalOf("c1");
    Filter c0High = new Filter("c0", new Filter.PriceRange(1000, 1999));
    Filter c1Low = new Filter("c1", new Filter.PriceRange(0, 999));
    List<Runnable> checks = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      checks.add(
          () -> {
            for (int d = 0; d < docs; d++) {
              if (a.matches(d, c0High, c0) || a.matches(d, c1Low, c1)) {
                throw new AssertionError("doc " + d + " matched half an update");
              }
            }
          });
    }
    SplittableRandom r = new SplittableRandom(seed);
    Race.run(
        200_000,
        64,
        i -> {
          int d = i % docs;
          int q = (i / docs) & 1;
          a.update(d, "c" + (1 - q), 1000 * (1 - q) + r.nextInt(1000), null);
        },
        checks);
    for (int d = 0; d < docs; d++) {
      assertEquals(a.category(d) == c1, a.price(d) >= 1000, "doc " + d + " whole at the end");
    }
  }
}
