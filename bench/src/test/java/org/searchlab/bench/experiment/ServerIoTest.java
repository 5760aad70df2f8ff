package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.load.ProcessCpu;

/**
 * The kernel readings of a server: its process's written bytes and its merge threads, from a
 * directory laid out as {@code /proc}, and from this JVM's own {@code /proc} entry.
 */
class ServerIoTest {
  @Test
  void readsWrittenBytesAndOnlyTheMergeThreads(@TempDir Path proc) throws Exception {
    Path pid = proc.resolve("42");
    Files.createDirectories(pid);
    Files.writeString(proc.resolve("uptime"), "1234.50 99.00\n");
    Files.writeString(
        pid.resolve("io"), "rchar: 10\nwchar: 20\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n");
    thread(pid, 43, "Lucene Merge Th", 30, 10, 1000, 4096);
    thread(pid, 44, "hnsw-merge-1", 5, 5, 1100, 0);
    thread(pid, 45, "qtp-worker (1)", 500, 500, 900, 1 << 20);
    ServerIo io = new ServerIo(42, proc);
    assertTrue(io.readable());
    assertEquals(8192, io.writeBytes());
    Map<Long, ServerIo.MergeThread> threads = new HashMap<>();
    io.readMergeThreads(threads);
    assertEquals(2, threads.size(), threads.toString());
    long ticks = ProcessCpu.ticksPerSecond();
    ServerIo.MergeThread m = threads.get(43L);
    assertEquals(40 * 1_000_000_000L / ticks, m.cpuNanos());
    assertEquals(1000.0 / ticks, m.startSeconds(), 1e-9);
    assertEquals(4096, m.writeBytes());
    assertEquals(1234.5, m.seenSeconds(), 1e-9);
    assertEquals(0, threads.get(44L).writeBytes());
    // A process the kernel does not report reads as not readable, not as 0 bytes.
    assertEquals(-1, new ServerIo(7, proc).writeBytes());
  }

  @Test
  void readsNanosecondsOnTheCpuWhereTheKernelHasSchedstat(@TempDir Path proc) throws Exception {
    Path pid = proc.resolve("42");
    Files.createDirectories(pid);
    Files.writeString(proc.resolve("uptime"), "1234.50 99.00\n");
    Files.writeString(pid.resolve("io"), "write_bytes: 0\ncancelled_write_bytes: 4096\n");
    thread(pid, 43, "Lucene Merge Th", 30, 10, 1000, 4096);
    thread(pid, 44, "hnsw-merge-1", 5, 5, 1100, 0);
    Path task = pid.resolve("task");
    Files.writeString(task.resolve("43").resolve("schedstat"), "412345678 1000 7\n");
    Files.writeString(task.resolve("44").resolve("schedstat"), "98765 10 1\n");
    ServerIo io = new ServerIo(42, proc);
    assertEquals(4096, io.cancelledWriteBytes());
    Map<Long, ServerIo.MergeThread> threads = new HashMap<>();
    assertEquals(java.util.Set.of(43L, 44L), io.readMergeThreads(threads));
    assertEquals(412345678L, threads.get(43L).cpuNanos(), "not the 10 ms ticks of stat");
    assertEquals(98765L, threads.get(44L).cpuNanos());
    // A thread that ended keeps its last reading and is no longer alive.
    Files.walk(task.resolve("43"))
        .sorted(java.util.Comparator.reverseOrder())
        .forEach(f -> f.toFile().delete());
    assertEquals(java.util.Set.of(44L), io.readMergeThreads(threads));
    assertEquals(412345678L, threads.get(43L).cpuNanos());
  }

  @Test
  void readsThisJvm() throws Exception {
    Path self = Path.of("/proc/self/io");
    if (!Files.isReadable(self)) {
      return; // not Linux, or no task I/O accounting: nothing to read
    }
    ServerIo io = new ServerIo(ProcessHandle.current().pid());
    long before = io.writeBytes();
    // In the build directory, on the disk the servers write to (a tmpfs /tmp counts nothing).
    Files.createDirectories(Path.of("target"));
    Path f = Files.createTempFile(Path.of("target"), "server-io", ".bin");
    try {
      Files.write(f, new byte[1 << 20], java.nio.file.StandardOpenOption.SYNC);
      assertTrue(io.writeBytes() - before >= 1 << 20, "a synced MiB counts as written");
    } finally {
      Files.delete(f);
    }
  }

  private static void thread(
      Path pid, long tid, String comm, long utime, long stime, long start, long written)
      throws Exception {
    Path t = pid.resolve("task").resolve(Long.toString(tid));
    Files.createDirectories(t);
    Files.writeString(t.resolve("comm"), comm + "\n");
    // fields 3.. of a stat line: state, then 10 fields to utime (14), stime (15), then 6 to
    // starttime (22)
    Files.writeString(
        t.resolve("stat"),
        tid
            + " ("
            + comm
            + ") S 1 1 1 0 -1 0 0 0 0 0 "
            + utime
            + " "
            + stime
            + " 0 0 20 0 1 0 "
            + start
            + " 0 0\n");
    Files.writeString(t.resolve("io"), "rchar: 1\nwrite_bytes: " + written + "\n");
  }
}
