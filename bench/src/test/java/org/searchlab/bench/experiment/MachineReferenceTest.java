package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link MachineReference}: a fixed workload, timed in CPU, and the steal counters. */
class MachineReferenceTest {
  @Test
  void theWorkloadIsFixedBySeedAndTimedInCpu() {
    MachineReference a = new MachineReference(71);
    MachineReference b = new MachineReference(71);
    assertEquals(a.operation(), b.operation(), "one seed, one result");
    assertNotEquals(a.operation(), new MachineReference(72).operation());
    double ns = a.nanosPerOp(20);
    assertTrue(ns > 0 && Double.isFinite(ns), "CPU ns per operation: " + ns);
    assertEquals(40 * b.operation(), a.sink(), 1e-6 * Math.abs(a.sink()), "every op counted");
    assertThrows(IllegalArgumentException.class, () -> a.nanosPerOp(0));
  }

  @Test
  void readsStealFromProcStatAndRecordsARound(@TempDir Path dir) throws Exception {
    Path stat = dir.resolve("stat");
    Files.writeString(stat, "cpu  100 5 50 800 10 0 5 30 0 0\ncpu0 50 2 25 400 5 0 2 15 0 0\n");
    assertArrayEquals(new long[] {30, 1000}, MachineReference.stealAndTotalTicks(stat));
    Files.writeString(stat, "intr 1 2 3\n");
    assertEquals(0, MachineReference.stealAndTotalTicks(stat).length);
    assertEquals(0, MachineReference.stealAndTotalTicks(dir.resolve("absent")).length);

    ArrayNode into = Json.MAPPER.createArrayNode();
    new MachineReference(71).record(into, 2, 10, new long[0], 5);
    assertEquals(1, into.size());
    assertEquals(2, into.get(0).path("round").asInt());
    assertEquals(10, into.get(0).path("segments").asInt());
    assertTrue(into.get(0).path("ns_per_op").asLong() > 0, into.toString());
    assertTrue(into.get(0).path("steal_share").isNull(), "no reading before: " + into);
  }
}
