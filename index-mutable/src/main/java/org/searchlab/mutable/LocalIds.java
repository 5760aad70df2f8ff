package org.searchlab.mutable;

import java.util.concurrent.ConcurrentHashMap;
import org.searchlab.mutable.memory.PagedBits;
import org.searchlab.mutable.memory.PagedLongs;
import org.searchlab.mutable.memory.PagedRefs;

/**
 * Dense local ids for external ids, and when each local id is visible.
 *
 * <p>Every local id carries the serial it was born at and the serial it died at ({@code
 * Long.MAX_VALUE} while live). A search reads the published serial {@code S} once when it starts
 * and sees exactly the ids with {@code born ≤ S < died}: an update writes the new version under a
 * new id and retires the old one with the same serial, so each search sees one version or the
 * other, whole, even across its lexical and vector parts. The alive bits mirror {@code died ==
 * MAX}.
 *
 * <p>A retired id is reused only after the compactor has dropped its postings, the graph has
 * dropped its node and every search that could still hold it has finished (see {@link
 * org.searchlab.mutable.memory.GenerationHandler}).
 *
 * <p>Thread safety: one writer (the index writer or the compactor holding the writer's lock);
 * readers use {@link #lookup}, {@link #external}, {@link #visible}, {@link #visibleSerial} and
 * {@link #limit} without locks.
 */
final class LocalIds {
  private final ConcurrentHashMap<String, Integer> byExternal = new ConcurrentHashMap<>();
  private final PagedRefs<String> external = new PagedRefs<>();
  private final PagedLongs born = new PagedLongs(0L);
  private final PagedLongs died = new PagedLongs(0L);
  private final PagedBits alive = new PagedBits();
  private int[] free = new int[64];
  private int freeCount;
  private volatile int limit;
  private volatile long visibleSerial;

  /** The live local id of an external id (real-time: includes writes not yet published), or −1. */
  int lookup(String id) {
    Integer local = byExternal.get(id);
    return local == null ? -1 : local;
  }

  String external(int local) {
    return external.get(local);
  }

  /** Ids below this have been used; readers iterate [0, limit). */
  int limit() {
    return limit;
  }

  long visibleSerial() {
    return visibleSerial;
  }

  /** Whether {@code local} is visible to a search that started at serial {@code s}. */
  boolean visible(int local, long s) {
    // died is read first, with acquire: the writer stores born (and everything else about the
    // version) before it releases died = MAX, so a reader that sees MAX also sees the new born.
    return died.getAcquire(local) > s && born.get(local) <= s;
  }

  boolean alive(int local) {
    return alive.get(local);
  }

  /** Live documents (as the writer last left them). */
  int liveCount() {
    return alive.cardinality();
  }

  int freeCount() {
    return freeCount;
  }

  /** Writer only: a fresh or reused id for a new version, not yet visible. */
  int allocate(String id, long serial) {
    int local;
    if (freeCount > 0) {
      local = free[--freeCount];
    } else {
      local = limit;
    }
    // A reused id is invisible (died = 0) until died = MAX is released, after its external id
    // and its birth serial (which keeps it invisible to every search already running).
    external.set(local, id);
    born.set(local, serial);
    died.setRelease(local, Long.MAX_VALUE);
    if (local == limit) {
      limit = local + 1; // volatile: pages for this id exist before readers may iterate to it
    }
    return local;
  }

  /** Writer only: makes a new version current for get and marks it alive. */
  void activate(String id, int local) {
    alive.set(local);
    byExternal.put(id, local);
  }

  /** Writer only: the version dies at {@code serial}; get stops finding it. */
  void retire(String id, int local, long serial, boolean removeMapping) {
    died.set(local, serial);
    alive.clear(local);
    if (removeMapping) {
      byExternal.remove(id, local);
    }
  }

  /** Writer only: every write up to {@code serial} is in place; searches from now on see them. */
  void publish(long serial) {
    visibleSerial = serial;
  }

  /** Writer only: a retired id no structure references any more. */
  void free(int local) {
    assert !alive.get(local) : "freeing live id " + local;
    died.setRelease(local, 0);
    born.set(local, 0);
    external.set(local, null);
    if (freeCount == free.length) {
      free = java.util.Arrays.copyOf(free, freeCount * 2);
    }
    free[freeCount++] = local;
  }

  /** Writer only, while loading: an id that exists in a snapshot, visible to every search. */
  void restore(String id, int local) {
    born.set(local, 0);
    died.set(local, Long.MAX_VALUE);
    external.set(local, id);
    alive.set(local);
    byExternal.put(id, local);
    if (local >= limit) {
      limit = local + 1;
    }
  }

  /** Writer only, after loading: every id below the limit that is not live becomes free. */
  void freeGaps() {
    for (int i = limit - 1; i >= 0; i--) {
      if (!alive.get(i)) {
        free(i);
      }
    }
  }

  long ramBytesUsed() {
    return external.ramBytesUsed()
        + born.ramBytesUsed()
        + died.ramBytesUsed()
        + alive.ramBytesUsed()
        + 4L * free.length
        + 64L * byExternal.size();
  }
}
