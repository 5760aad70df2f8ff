package org.searchlab.bench.experiment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.searchlab.bench.load.ProcessCpu;

/**
 * The kernel's reading of one server process, independent of what the server says of itself: the
 * bytes it caused to be written to storage ({@code write_bytes} of {@code /proc/<pid>/io}, counted
 * a page at a time when a write first dirties it, so bytes of a file deleted before it reached the
 * disk count too, and {@code cancelled_write_bytes}, the dirty bytes such deletes and truncations
 * then spared the disk), and, per thread, the CPU time ({@code schedstat}'s nanoseconds on the CPU,
 * the clock the JVM's thread CPU time reads, else {@code stat}'s ticks), start time and written
 * bytes of its merge threads ({@code /proc/<pid>/task/<tid>}, threads whose name starts {@value
 * #LUCENE_MERGE} — Lucene's ConcurrentMergeScheduler starts one per merge, "Lucene Merge Thread #n"
 * cut to 15 characters — or {@value #HNSW_MERGE}, the store's HNSW merge workers). A thread's
 * counters vanish with it, so a poller must read them while it lives; what it did after the last
 * reading is lost.
 *
 * <p>Not thread-safe: one poller owns an instance (it remembers which threads of its last listing
 * are merge threads).
 */
final class ServerIo {
  static final String LUCENE_MERGE = "Lucene Merge Th";
  static final String HNSW_MERGE = "hnsw-merge";

  private final Path dir;

  /** Whether each thread of the last listing is a merge thread. */
  private Map<Long, Boolean> isMerge = new HashMap<>();

  /**
   * Threads first classified at the last poll and found not to be merge threads: looked at again.
   */
  private java.util.Set<Long> recheck = new java.util.HashSet<>();

  /** Whether threads' CPU is read from {@code schedstat}; decided at the first thread read. */
  private Boolean precise;

  ServerIo(long pid) {
    this(pid, Path.of("/proc"));
  }

  /** Reads from {@code proc} instead of {@code /proc} (for tests). */
  ServerIo(long pid, Path proc) {
    this.dir = proc.resolve(Long.toString(pid));
  }

  /** Whether this machine's kernel reports I/O per process (a Linux with task I/O accounting). */
  boolean readable() {
    return writeBytes() >= 0;
  }

  /** {@code write_bytes} of the process so far (every thread, dead ones included), or -1. */
  long writeBytes() {
    return field(dir.resolve("io"), "write_bytes");
  }

  /** {@code cancelled_write_bytes} of the process so far, or -1. */
  long cancelledWriteBytes() {
    return field(dir.resolve("io"), "cancelled_write_bytes");
  }

  /**
   * One merge thread as last read.
   *
   * @param startSeconds when it started, in seconds since boot ({@code starttime})
   * @param cpuNanos user + system time so far
   * @param writeBytes its {@code write_bytes} so far, -1 when not readable
   * @param seenSeconds the poll's time in seconds since boot
   */
  record MergeThread(double startSeconds, long cpuNanos, long writeBytes, double seenSeconds) {}

  /**
   * A thread's identity: its id and its start time in ticks since boot. Linux reuses ids (at most
   * {@code pid_max}, 32,768 here, are in use before the counter wraps), so an id alone can name two
   * threads within one window.
   */
  record ThreadId(long tid, long startTicks) {}

  /**
   * Reads every live merge thread into {@code into} (a thread read before is replaced by its newer
   * reading; a thread that ended keeps its last one).
   *
   * <p>A thread is classified by its name ({@code comm}) when it first appears in a listing, and
   * once more at the next poll if it was not a merge thread then: a new thread carries its
   * creator's name until the JVM renames it, a moment after it starts. An id missing from the last
   * listing is a new thread even if the id was seen before (ids are reused).
   *
   * @return the merge threads read now, alive at this poll
   */
  java.util.Set<ThreadId> readMergeThreads(Map<ThreadId, MergeThread> into) throws IOException {
    java.util.Set<ThreadId> alive = new java.util.HashSet<>();
    Map<Long, Boolean> listed = new HashMap<>();
    java.util.Set<Long> again = new java.util.HashSet<>();
    Path tasks = dir.resolve("task");
    double now = uptimeSeconds(dir.getParent());
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
      for (Path t : threads) {
        long tid;
        try {
          tid = Long.parseLong(t.getFileName().toString());
        } catch (NumberFormatException e) {
          continue;
        }
        try {
          Boolean merge = isMerge.get(tid);
          if (merge == null || recheck.contains(tid)) {
            String comm = Files.readString(t.resolve("comm"), StandardCharsets.UTF_8).strip();
            boolean first = merge == null;
            merge = comm.startsWith(LUCENE_MERGE) || comm.startsWith(HNSW_MERGE);
            if (first && !merge) {
              again.add(tid);
            }
          }
          listed.put(tid, merge);
          if (merge) {
            long[] stat = stat(Files.readString(t.resolve("stat")));
            long ticks = ProcessCpu.ticksPerSecond();
            long onCpu = schedstatNanos(t.resolve("schedstat"));
            if (precise == null) {
              precise = onCpu >= 0;
            }
            if (precise && onCpu < 0) {
              continue; // ended between the reads: its last reading stands, in one unit
            }
            ThreadId id = new ThreadId(tid, stat[2]);
            into.put(
                id,
                new MergeThread(
                    stat[2] / (double) ticks,
                    precise ? onCpu : (stat[0] + stat[1]) * 1_000_000_000L / ticks,
                    field(t.resolve("io"), "write_bytes"),
                    now));
            alive.add(id);
          }
        } catch (IOException e) {
          // The thread ended between the listing and the read (ENOENT or ESRCH): its last
          // reading, if any, stands.
        }
      }
    }
    isMerge = listed;
    recheck = again;
    return alive;
  }

  /**
   * The first field of a {@code schedstat} file: nanoseconds the task ran on a CPU, or -1 where the
   * kernel has no such file (stat's ticks, 10 ms apart, are the fallback).
   */
  static long schedstatNanos(Path file) {
    try {
      String s = Files.readString(file).strip();
      int space = s.indexOf(' ');
      return Long.parseLong(space < 0 ? s : s.substring(0, space));
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  /** utime, stime and starttime (fields 14, 15 and 22) of a {@code stat} line, in ticks. */
  static long[] stat(String line) {
    int close = line.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("not a /proc stat line: " + line);
    }
    String[] f = line.substring(close + 2).trim().split(" +");
    // f[0] is field 3, so field n is f[n - 3].
    return new long[] {
      Long.parseLong(f[14 - 3]), Long.parseLong(f[15 - 3]), Long.parseLong(f[22 - 3])
    };
  }

  /** Seconds since boot, from {@code uptime} of the {@code proc} directory. */
  static double uptimeSeconds(Path proc) throws IOException {
    String s = Files.readString(proc.resolve("uptime")).trim();
    return Double.parseDouble(s.substring(0, s.indexOf(' ')));
  }

  /** A {@code name: value} line of an {@code io} file, or -1 when it cannot be read. */
  private static long field(Path file, String name) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(name + ":")) {
          return Long.parseLong(line.substring(name.length() + 1).trim());
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not readable here: no task I/O accounting, or the task ended
    }
    return -1;
  }
}
