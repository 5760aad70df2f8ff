package org.searchlab.testing.disk;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.PartialUpdate;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.WriteResult;
import org.searchlab.core.WriteResult.Outcome;
import org.searchlab.testing.PossibleDocuments;

/**
 * One cycle of {@link PowerLossCycles}: writer threads and a flusher against a store on a forgetful
 * disk until the power is cut, and the cut itself.
 *
 * <p>Writer {@code t} owns the ids {@code ≡ t (mod writers)} and writes each one operation at a
 * time, so every id's possible states are known ({@link PossibleDocuments}): puts of new versions
 * (50 %), partial updates of price and category of a present document (30 %) and deletes (20 %),
 * one call at a time or, one time in four, in a bulk of 2 to 16 of its ids. The flusher calls
 * {@link SearchIndex#flush()} (a snapshot, a Lucene commit) 0 to 20 ms after the last one ended.
 * Every write path stops at the cut with an exception, which leaves its ids uncertain; any failure
 * before the cut, or an outcome that contradicts the known state (an update of a present document
 * answered {@code NOT_FOUND}), fails the run.
 *
 * <p>Not thread-safe: one {@link #runUntilCut} per instance. Its threads share only atomics and the
 * thread-safe {@link PossibleDocuments}, each writer its own ids.
 */
final class PowerLossFeed {
  private static final long HANG_SECONDS = 60;

  private final SearchIndex store;
  private final ForgetfulFileSystem fs;
  private final PossibleDocuments possible;
  private final int writers;
  private final int dimension;
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong flushes = new AtomicLong();
  private final AtomicLong flushStarts = new AtomicLong();
  private final AtomicReference<Throwable> unexpected = new AtomicReference<>();
  private volatile long lastFlushNanos;
  private volatile boolean flushCut;

  PowerLossFeed(
      SearchIndex store,
      ForgetfulFileSystem fs,
      PossibleDocuments possible,
      int writers,
      int dimension) {
    this.store = store;
    this.fs = fs;
    this.possible = possible;
    this.writers = writers;
    this.dimension = dimension;
  }

  /** The external id of id number {@code id}. */
  static String name(int id) {
    return "id-" + id;
  }

  long acknowledged() {
    return acknowledged.get();
  }

  long flushes() {
    return flushes.get();
  }

  /** Whether the cut interrupted a flush. */
  boolean flushCut() {
    return flushCut;
  }

  /**
   * Starts the writers and the flusher, cuts the power at {@code moment} with {@code cut}, waits
   * for every thread to stop and returns the cut's image.
   *
   * @throws AssertionError if a write or flush failed before the cut, an outcome contradicted the
   *     known state, or a thread did not stop after the cut
   */
  CrashImage runUntilCut(PowerCut cut, PowerLossCycles.Moment moment, SplittableRandom random)
      throws Exception {
    SplittableRandom cutRandom = random.split();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < writers; t++) {
      int owner = t;
      SplittableRandom r = random.split();
      threads.add(new Thread(() -> write(owner, r), "power-loss-writer-" + t));
    }
    SplittableRandom flushRandom = random.split();
    threads.add(new Thread(() -> flushLoop(flushRandom), "power-loss-flusher"));
    threads.forEach(
        th -> {
          th.setDaemon(true);
          th.start();
        });
    long minAcks = 10 + random.nextInt(300);
    PowerLossCycles.await(
        () -> acknowledged.get() >= minAcks || unexpected.get() != null, HANG_SECONDS);
    CrashImage image =
        switch (moment) {
          case AFTER_ACKS -> {
            PowerLossCycles.pause(random.nextLong(2_000_000));
            yield fs.powerCut(cut, cutRandom);
          }
          case IN_FLUSH -> {
            long seen = flushStarts.get();
            PowerLossCycles.await(
                () -> flushStarts.get() > seen || unexpected.get() != null, HANG_SECONDS);
            // Within about one flush's duration of its start: mostly inside it.
            PowerLossCycles.pause(random.nextLong(Math.max(100_000, lastFlushNanos * 5 / 4)));
            yield fs.powerCut(cut, cutRandom);
          }
          case UNFORCED -> {
            // Log-uniform from 1 B to 128 KiB: small ones fire on a log write before its force,
            // large ones inside a snapshot or segment file.
            long bytes = 1 + random.nextLong(1L << random.nextInt(18));
            yield PowerLossCycles.armedOrNow(
                fs.cutWhenUnforced(bytes, cut, cutRandom), fs, cut, cutRandom);
          }
        };
    for (Thread th : threads) {
      th.join(TimeUnit.SECONDS.toMillis(HANG_SECONDS));
      if (th.isAlive()) {
        throw new AssertionError(th.getName() + " still runs " + HANG_SECONDS + " s after the cut");
      }
    }
    Throwable e = unexpected.get();
    if (e != null) {
      throw new AssertionError("the feed failed before the power was cut: " + e, e);
    }
    return image;
  }

  private void write(int owner, SplittableRandom r) {
    List<Integer> own = new ArrayList<>();
    for (int id = owner; id < possible.size(); id += writers) {
      own.add(id);
    }
    try {
      while (!fs.isCut() && unexpected.get() == null) {
        if (r.nextInt(4) == 0) {
          bulk(own, r);
        } else {
          single(own.get(r.nextInt(own.size())), r);
        }
      }
    } catch (Throwable e) {
      if (!fs.isCut()) {
        unexpected.compareAndSet(null, e);
      }
      // else: the disk died under the call; its ids stay uncertain.
    }
  }

  /** One write of a new version, an update or a delete of {@code id}, chosen as the class says. */
  private Operation choose(int id, SplittableRandom r) {
    Document now = possible.certain(id);
    double p = r.nextDouble();
    if (now == null || p < 0.5) {
      return Operation.put(
          PossibleDocuments.version(name(id), id, r.nextInt(1_000_000), dimension, r));
    }
    if (p < 0.8) {
      return Operation.update(
          PartialUpdate.of(name(id))
              .withPrice(r.nextInt(1_000_000))
              .withCategory("c" + r.nextInt(9)));
    }
    return Operation.delete(name(id));
  }

  /** The state {@code op} leaves {@code id} in. */
  private Document after(int id, Operation op) {
    return switch (op) {
      case Operation.Put p -> p.document();
      case Operation.Update u -> u.update().applyTo(possible.certain(id));
      case Operation.Delete d -> null;
    };
  }

  private void single(int id, SplittableRandom r) throws Exception {
    Operation op = choose(id, r);
    Document next = after(id, op);
    possible.invoke(id, next);
    WriteResult w =
        switch (op) {
          case Operation.Put p -> store.put(p.document());
          case Operation.Update u -> store.update(u.update());
          case Operation.Delete d -> store.delete(d.id());
        };
    expect(op, w);
    possible.acknowledge(id, next);
    acknowledged.incrementAndGet();
  }

  private void bulk(List<Integer> own, SplittableRandom r) throws Exception {
    int n = 2 + r.nextInt(15);
    BitSet used = new BitSet();
    List<Integer> ids = new ArrayList<>();
    List<Operation> ops = new ArrayList<>();
    List<Document> next = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int id = own.get(r.nextInt(own.size()));
      if (!used.get(id)) {
        used.set(id);
        Operation op = choose(id, r);
        ids.add(id);
        ops.add(op);
        next.add(after(id, op));
      }
    }
    for (int i = 0; i < ids.size(); i++) {
      possible.invoke(ids.get(i), next.get(i));
    }
    List<BulkItemResult> results = store.bulk(ops);
    for (int i = 0; i < ids.size(); i++) {
      BulkItemResult item = results.get(i);
      if (item.failed()) {
        throw new AssertionError("bulk item " + ops.get(i) + " failed: " + item.error());
      }
      expect(ops.get(i), item.result());
      possible.acknowledge(ids.get(i), next.get(i));
      acknowledged.incrementAndGet();
    }
  }

  /**
   * Fails the run when the store answered an update or a delete of a document it acknowledged as
   * present otherwise than by applying it.
   */
  private void expect(Operation op, WriteResult w) {
    boolean ok =
        switch (op) {
          case Operation.Put p -> true;
          case Operation.Update u -> w.outcome() == Outcome.UPDATED || w.outcome() == Outcome.NOOP;
          case Operation.Delete d -> w.outcome() == Outcome.DELETED;
        };
    if (!ok) {
      AssertionError e = new AssertionError(op + " of an acknowledged document answered " + w);
      unexpected.compareAndSet(null, e); // recorded even if the cut comes before the writer stops
      throw e;
    }
  }

  private void flushLoop(SplittableRandom r) {
    try {
      while (!fs.isCut() && unexpected.get() == null) {
        PowerLossCycles.pause(r.nextLong(20_000_000));
        if (fs.isCut()) {
          return;
        }
        flushStarts.incrementAndGet();
        long t0 = System.nanoTime();
        store.flush();
        lastFlushNanos = System.nanoTime() - t0;
        flushes.incrementAndGet();
      }
    } catch (Throwable e) {
      if (fs.isCut()) {
        flushCut = true;
      } else {
        unexpected.compareAndSet(null, e);
      }
    }
  }
}
