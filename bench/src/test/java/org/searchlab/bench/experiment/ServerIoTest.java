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
    Map<ServerIo.ThreadId, ServerIo.MergeThread> threads = new HashMap<>();
    io.readMergeThreads(threads);
    assertEquals(2, threads.size(), threads.toString());
    long ticks = ProcessCpu.ticksPerSecond();
    ServerIo.MergeThread m = threads.get(new ServerIo.ThreadId(43, 1000));
    assertEquals(40 * 1_000_000_000L / ticks, m.cpuNanos());
    assertEquals(1000.0 / ticks, m.startSeconds(), 1e-9);
    assertEquals(4096, m.writeBytes());
    assertEquals(1234.5, m.seenSeconds(), 1e-9);
    assertEquals(0, threads.get(new ServerIo.ThreadId(44, 1100)).writeBytes());
    // A process the kernel does not report reads as not readable, not as 0 bytes.
    assertEquals(-1, new ServerIo(7, proc).writeBytes());
  }

  @Test
  void readsNanosecondsOnTheCpuWhereTheKernelHasSchedstat(@TempDir Path proc) throws Exception {
    Path pid = process(proc, "write_bytes: 0\ncancelled_write_bytes: 4096\n");
    thread(pid, 43, "Lucene Merge Th", 30, 10, 1000, 4096);
    thread(pid, 44, "hnsw-merge-1", 5, 5, 1100, 0);
    Path task = pid.resolve("task");
    Files.writeString(task.resolve("43").resolve("schedstat"), "412345678 1000 7\n");
    Files.writeString(task.resolve("44").resolve("schedstat"), "98765 10 1\n");
    ServerIo io = new ServerIo(42, proc);
    assertEquals(4096, io.cancelledWriteBytes());
    Map<ServerIo.ThreadId, ServerIo.MergeThread> threads = new HashMap<>();
    ServerIo.ThreadId t43 = new ServerIo.ThreadId(43, 1000);
    ServerIo.ThreadId t44 = new ServerIo.ThreadId(44, 1100);
    assertEquals(java.util.Set.of(t43, t44), io.readMergeThreads(threads));
    assertEquals(412345678L, threads.get(t43).cpuNanos(), "not the 10 ms ticks of stat");
    assertEquals(98765L, threads.get(t44).cpuNanos());
    // A thread that ended keeps its last reading and is no longer alive.
    end(task.resolve("43"));
    assertEquals(java.util.Set.of(t44), io.readMergeThreads(threads));
    assertEquals(412345678L, threads.get(t43).cpuNanos());
  }

  @Test
  void aThreadNamedLateOrAReusedIdIsStillFound(@TempDir Path proc) throws Exception {
    Path pid = process(proc, "write_bytes: 0\n");
    // A merge thread seen before the JVM renamed it: it still has its creator's name.
    thread(pid, 50, "http-worker-3", 1, 0, 2000, 0);
    // A worker thread whose id a merge thread will get once it ended.
    thread(pid, 51, "qtp-worker (1)", 3, 0, 2001, 0);
    ServerIo io = new ServerIo(42, proc);
    Map<ServerIo.ThreadId, ServerIo.MergeThread> threads = new HashMap<>();
    assertEquals(java.util.Set.of(), io.readMergeThreads(threads));
    thread(pid, 50, "Lucene Merge Th", 20, 1, 2000, 0);
    assertEquals(
        java.util.Set.of(new ServerIo.ThreadId(50, 2000)),
        io.readMergeThreads(threads),
        "named at the next poll, and looked at again then");
    Path t51 = pid.resolve("task").resolve("51");
    end(t51);
    assertEquals(java.util.Set.of(new ServerIo.ThreadId(50, 2000)), io.readMergeThreads(threads));
    thread(pid, 51, "Lucene Merge Th", 7, 0, 2500, 0);
    assertEquals(
        java.util.Set.of(new ServerIo.ThreadId(50, 2000), new ServerIo.ThreadId(51, 2500)),
        io.readMergeThreads(threads),
        "an id gone from a listing and back is a new thread");
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

  /** Process 42 under {@code proc}, with an uptime and the given {@code io} file. */
  private static Path process(Path proc, String io) throws Exception {
    Path pid = proc.resolve("42");
    Files.createDirectories(pid);
    Files.writeString(proc.resolve("uptime"), "1234.50 99.00\n");
    Files.writeString(pid.resolve("io"), io);
    return pid;
  }

  /** A thread ending: its directory goes. */
  private static void end(Path task) throws Exception {
    try (var files = Files.walk(task)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
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
