package org.searchlab.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessCpuTest {
  @Test
  void parsesUtimePlusStimeAfterACommandNameWithSpacesAndParentheses() {
    // Fields 14 (utime) and 15 (stime) are 250 and 50 ticks.
    String stat =
        "4242 (java (main) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 40 0 123 456 789";
    assertEquals(3_000_000_000L, ProcessCpu.parseCpuNanos(stat, 100));
  }

  @Test
  void parsesMajorFaultsFromField12() {
    // Fields 10 to 13: minflt 100, cminflt 0, majflt 7, cmajflt 9 (the children's, not counted).
    String stat =
        "4242 (java (main) x) S 1 4242 4242 0 -1 4194560 100 0 7 9 250 50 0 0 20 0 40 0 123 456 789";
    assertEquals(7, ProcessCpu.parseMajorFaults(stat));
    if (java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/self/stat"))) {
      assertTrue(new ProcessCpu(ProcessHandle.current().pid()).majorFaults() >= 0);
    }
  }

  @Test
  void ownCpuTimeGrowsWithWork() {
    ProcessCpu self = new ProcessCpu(ProcessHandle.current().pid());
    long before = self.cpuNanos();
    long jvmBefore = ProcessCpu.thisJvmNanos();
    double x = 0;
    long until = System.nanoTime() + 200_000_000L;
    while (System.nanoTime() < until) {
      x += Math.sqrt(x + 1);
    }
    long after = self.cpuNanos();
    long jvmAfter = ProcessCpu.thisJvmNanos();
    assertTrue(x > 0);
    assertTrue(after > before, before + " -> " + after);
    // The same process seen by the JVM itself, its compilers included.
    assertTrue(jvmAfter > jvmBefore, jvmBefore + " -> " + jvmAfter);
  }

  @Test
  void compilerThreadsAreLeftOut(@TempDir Path proc) throws Exception {
    Path dir = proc.resolve("77");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("stat"), stat("java", 500, 100)); // 6 s in all
    task(dir, 77, "java", 10, 0);
    task(dir, 78, "C2 CompilerThre", 150, 50); // 2 s compiling
    task(dir, 79, "C1 CompilerThre", 40, 10); // 0.5 s
    task(dir, 80, "G1 Conc#0", 30, 0); // GC stays in
    task(dir, 81, "search-1", 300, 40);
    Files.createDirectories(dir.resolve("task").resolve("82")); // a thread that just ended
    assertEquals(3_500_000_000L, new ProcessCpu(77, proc).cpuNanos());
    // what is left out, read on its own: whether a fresh JVM is still compiling
    assertEquals(2_500_000_000L, new ProcessCpu(77, proc).compilerCpuNanos());
    assertTrue(ProcessCpu.isCompiler("C2 CompilerThre"));
    assertFalse(ProcessCpu.isCompiler("VM Thread"));
  }

  private static String stat(String comm, long utime, long stime) {
    return "1 (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 " + utime + " " + stime + " 0 0 20 0 1 0";
  }

  private static void task(Path dir, int tid, String comm, long utime, long stime)
      throws Exception {
    Path t = dir.resolve("task").resolve(Integer.toString(tid));
    Files.createDirectories(t);
    Files.writeString(t.resolve("comm"), comm + "\n");
    Files.writeString(t.resolve("stat"), stat(comm, utime, stime));
  }

  @Test
  void coresIsCpuOverWall() {
    assertEquals(1.5, ProcessCpu.cores(0, 3_000, 2_000), 1e-12);
    assertEquals(0, ProcessCpu.cores(0, 3_000, 0));
  }
}
