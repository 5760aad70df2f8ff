package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.searchlab.mutable.memory.GenerationHandler;
import org.searchlab.mutable.memory.Race;
import org.searchlab.testing.TestSeeds;

/**
 * {@link LocalIds}: visibility by birth and death serials, the free list (an id is reused only once
 * freed, last freed first, and starts invisible), loading, and searches racing a writer that
 * replaces documents and recycles their ids after a grace period.
 */
class LocalIdsTest {

  @Test
  void visibilityFollowsBirthAndDeathSerials() {
    LocalIds ids = new LocalIds();
    int a = ids.allocate("a", 5);
    assertEquals(0, a);
    assertEquals(1, ids.limit());
    assertEquals(-1, ids.lookup("a"), "not current for get before activate");
    assertFalse(ids.visible(a, 4), "born at 5: invisible to a search at 4");
    assertTrue(ids.visible(a, 5));
    ids.activate("a", a);
    assertEquals(a, ids.lookup("a"));
    assertEquals("a", ids.external(a));
    assertTrue(ids.alive(a));
    assertEquals(1, ids.liveCount());

    ids.retire("a", a, 9, true);
    assertTrue(ids.visible(a, 8), "a search at 8 keeps seeing it");
    assertFalse(ids.visible(a, 9));
    assertEquals(-1, ids.lookup("a"));
    assertFalse(ids.alive(a));
    assertEquals(0, ids.liveCount());

    ids.publish(9);
    assertEquals(9, ids.visibleSerial());
  }

  @Test
  void anUpdateKeepsTheMappingOnTheNewVersion() {
    LocalIds ids = new LocalIds();
    int v1 = ids.allocate("a", 1);
    ids.activate("a", v1);
    int v2 = ids.allocate("a", 2);
    ids.activate("a", v2);
    ids.retire("a", v1, 2, true); // removes the mapping only if it still names v1
    assertEquals(v2, ids.lookup("a"));
    assertTrue(ids.visible(v1, 1) && !ids.visible(v2, 1), "a search at 1 sees only v1");
    assertTrue(!ids.visible(v1, 2) && ids.visible(v2, 2), "a search at 2 sees only v2");
  }

  @Test
  void onlyFreedIdsAreReusedLastFreedFirstAndInvisibleToOlderSearches() {
    LocalIds ids = new LocalIds();
    for (String id : List.of("x", "y", "z")) {
      ids.activate(id, ids.allocate(id, 1));
    }
    ids.retire("y", 1, 2, true);
    ids.retire("z", 2, 2, true);
    assertEquals(3, ids.allocate("q", 2), "a retired id is not reused before it is freed");
    ids.free(1);
    ids.free(2);
    assertEquals(2, ids.freeCount());
    assertNull(ids.external(1));
    for (long s : new long[] {0, 1, 2, 3, Long.MAX_VALUE - 1}) {
      assertFalse(ids.visible(1, s), "a freed id is visible at no serial, here " + s);
    }
    assertEquals(2, ids.allocate("w", 3), "last freed first");
    assertEquals(1, ids.allocate("v", 3));
    assertEquals(4, ids.allocate("u", 3), "free list empty: a fresh id");
    assertEquals(0, ids.freeCount());
    assertFalse(ids.visible(2, 2), "a reused id is invisible to a search older than its birth");
    assertTrue(ids.visible(2, 3));
    assertEquals("w", ids.external(2));
    assertEquals(5, ids.limit());
  }

  @Test
  void freeingALiveIdIsABug() {
    LocalIds ids = new LocalIds();
    int a = ids.allocate("a", 1);
    ids.activate("a", a);
    assertThrows(AssertionError.class, () -> ids.free(a));
  }

  @Test
  void restoredIdsAreVisibleToAllAndGapsBecomeFree() {
    LocalIds ids = new LocalIds();
    ids.restore("a", 0);
    ids.restore("b", 3);
    assertEquals(4, ids.limit());
    assertTrue(ids.visible(3, 0));
    assertEquals(3, ids.lookup("b"));
    ids.freeGaps(new java.util.BitSet());
    assertEquals(2, ids.freeCount());
    assertEquals(1, ids.allocate("c", 1));
    assertEquals(2, ids.allocate("d", 1));
    assertEquals(4, ids.allocate("e", 1));
  }

  /**
   * A writer replaces random documents (new version under a new or recycled id, old one retired
   * with the same serial, serial published) and frees retired ids only after {@link
   * GenerationHandler#awaitOlderReaders}, as the compactor does. A search, inside a guard, reads
   * the published serial once and must see exactly one version of every document, with its external
   * id: never none, never two, never a recycled id's stale or future version.
   */
  @Test
  void eachSearchSeesExactlyOneVersionOfEveryDocument() throws Exception {
    long seed = TestSeeds.seed("LocalIdsTest.oneVersion");
    int docs = 48;
    LocalIds ids = new LocalIds();
    GenerationHandler generations = new GenerationHandler();
    for (int d = 0; d < docs; d++) {
      ids.activate("d" + d, ids.allocate("d" + d, 1));
    }
    ids.publish(1);
    List<Runnable> checks = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      checks.add(
          () -> {
            try (GenerationHandler.Guard g = generations.enter()) {
              long s = ids.visibleSerial();
              int limit = ids.limit();
              int[] seen = new int[docs];
              for (int local = 0; local < limit; local++) {
                if (ids.visible(local, s)) {
                  String ext = ids.external(local);
                  if (ext == null) {
                    throw new AssertionError("id " + local + " visible at " + s + " but freed");
                  }
                  seen[Integer.parseInt(ext.substring(1))]++;
                }
              }
              for (int d = 0; d < docs; d++) {
                if (seen[d] != 1) {
                  throw new AssertionError("d" + d + " seen " + seen[d] + " times at " + s);
                }
              }
            }
          });
    }
    SplittableRandom r = new SplittableRandom(seed);
    List<Integer> retired = new ArrayList<>();
    long made =
        Race.run(
            20_000,
            16,
            i -> {
              long serial = i + 2;
              String id = "d" + r.nextInt(docs);
              int old = ids.lookup(id);
              int fresh = ids.allocate(id, serial);
              ids.activate(id, fresh);
              ids.retire(id, old, serial, false);
              ids.publish(serial);
              retired.add(old);
              if (retired.size() == 8) {
                generations.awaitOlderReaders();
                for (int local : retired) {
                  ids.free(local);
                }
                retired.clear();
              }
            },
            checks);
    assertTrue(made > 0);
    assertEquals(docs, ids.liveCount());
    assertTrue(ids.limit() < docs + 64, "ids are recycled: limit " + ids.limit());
  }
}
