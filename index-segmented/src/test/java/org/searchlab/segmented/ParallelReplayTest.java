package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.searchlab.core.Operation;
import org.searchlab.core.wal.OperationCodec;
import org.searchlab.core.wal.WalConfig;
import org.searchlab.core.wal.WriteAheadLog;
import org.searchlab.testing.TestSeeds;

/**
 * {@link ParallelReplay}: every record after the serial is applied exactly once, each id's records
 * in log order whatever the number of lanes, and a failure on a lane stops the replay and reaches
 * the caller instead of hanging it.
 */
@Timeout(120) // a replay that loses a failure hangs; fail instead
class ParallelReplayTest {
  @TempDir Path tmp;

  /** Writes {@code n} deletes over {@code ids} ids in a seeded order; returns each serial's id. */
  private Map<Long, String> writeLog(Path dir, int n, int ids, long seed) throws IOException {
    Random rnd = new Random(seed);
    Map<Long, String> idOf = new ConcurrentHashMap<>();
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      for (int i = 0; i < n; i++) {
        String id = "d" + rnd.nextInt(ids);
        idOf.put(wal.write(OperationCodec.encode(Operation.delete(id))), id);
      }
      wal.syncAll();
    }
    return idOf;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4})
  void appliesEveryRecordAfterTheSerialOnceAndEachIdInLogOrder(int lanes) throws IOException {
    long seed = TestSeeds.seed("ParallelReplay.order");
    Path dir = tmp.resolve("wal");
    Map<Long, String> idOf = writeLog(dir, 5_000, 97, seed);
    long after = 1_000;
    Map<String, List<Long>> seen = new ConcurrentHashMap<>();
    Map<String, Thread> threadOf = new ConcurrentHashMap<>();
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      ParallelReplay.run(
          wal,
          after,
          lanes,
          (op, serial) -> {
            assertEquals(idOf.get(serial), op.id(), "the record's own operation");
            // One id, one lane: the list of an id is only ever touched by one thread.
            Thread prev = threadOf.putIfAbsent(op.id(), Thread.currentThread());
            assertTrue(prev == null || prev == Thread.currentThread(), "one lane per id");
            seen.computeIfAbsent(op.id(), k -> new ArrayList<>()).add(serial);
          });
    }
    int applied = 0;
    for (Map.Entry<String, List<Long>> e : seen.entrySet()) {
      List<Long> serials = e.getValue();
      for (int i = 1; i < serials.size(); i++) {
        assertTrue(serials.get(i - 1) < serials.get(i), "log order for " + e.getKey());
      }
      applied += serials.size();
    }
    long expected = idOf.keySet().stream().filter(s -> s > after).count();
    assertEquals(expected, applied, "seed " + seed);
    assertTrue(seen.values().stream().flatMap(List::stream).allMatch(s -> s > after));
  }

  @Test
  void aFailureOnALaneReachesTheCallerAndStopsTheOtherLanes() throws IOException {
    long seed = TestSeeds.seed("ParallelReplay.failure");
    Path dir = tmp.resolve("wal");
    writeLog(dir, 20_000, 1_000, seed);
    IOException boom = new IOException("cannot apply serial 700");
    AtomicInteger applied = new AtomicInteger();
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      IOException thrown =
          assertThrows(
              IOException.class,
              () ->
                  ParallelReplay.run(
                      wal,
                      0,
                      2,
                      (op, serial) -> {
                        if (serial == 700) {
                          throw boom;
                        }
                        applied.incrementAndGet();
                      }));
      assertSame(boom, thrown);
    }
    // The lanes stop at the failure (give or take what was queued), not at the end of the log.
    assertTrue(applied.get() < 20_000 - 1, "applied " + applied.get() + ", seed " + seed);
  }

  @Test
  void anUncheckedFailureIsRethrownAsItself() throws IOException {
    Path dir = tmp.resolve("wal");
    writeLog(dir, 100, 10, TestSeeds.seed("ParallelReplay.unchecked"));
    IllegalStateException boom = new IllegalStateException("bad record");
    try (WriteAheadLog wal = WriteAheadLog.open(dir, WalConfig.DEFAULT)) {
      assertSame(
          boom,
          assertThrows(
              IllegalStateException.class,
              () ->
                  ParallelReplay.run(
                      wal,
                      0,
                      3,
                      (op, serial) -> {
                        throw boom;
                      })));
    }
  }
}
