package org.searchlab.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProcessCpuTest {
  @Test
  void parsesUtimePlusStimeAfterACommandNameWithSpacesAndParentheses() {
    // Fields 14 (utime) and 15 (stime) are 250 and 50 ticks.
    String stat =
        "4242 (java (main) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 40 0 123 456 789";
    assertEquals(3_000_000_000L, ProcessCpu.parseCpuNanos(stat, 100));
  }

  @Test
  void ownCpuTimeGrowsWithWork() {
    ProcessCpu self = new ProcessCpu(ProcessHandle.current().pid());
    long before = self.cpuNanos();
    double x = 0;
    long until = System.nanoTime() + 200_000_000L;
    while (System.nanoTime() < until) {
      x += Math.sqrt(x + 1);
    }
    long after = self.cpuNanos();
    assertTrue(x > 0);
    assertTrue(after > before, before + " -> " + after);
  }

  @Test
  void coresIsCpuOverWall() {
    assertEquals(1.5, ProcessCpu.cores(0, 3_000, 2_000), 1e-12);
    assertEquals(0, ProcessCpu.cores(0, 3_000, 0));
  }
}
