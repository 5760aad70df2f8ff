package org.searchlab.bench.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * CPU time of one process read from Linux {@code /proc/<pid>/stat} (utime + stime, in clock ticks),
 * less the time of its JIT compiler threads ({@code /proc/<pid>/task/<tid>}, named {@code C1
 * CompilerThre…} or {@code C2 CompilerThre…}): compiling is a one-off cost of a freshly started
 * JVM, not work per query or per document, and a server restarted just before a measured window
 * would otherwise be charged for it. GC threads stay in. The subtraction is exact only while
 * compiler threads live as long as the JVM, so servers measured this way run with {@code
 * -XX:-UseDynamicNumberOfCompilerThreads}. Cores used over a window = CPU seconds consumed in the
 * window / wall seconds of the window.
 *
 * <p>Thread-safe: stateless apart from the immutable pid, directory and tick rate.
 */
public final class ProcessCpu implements CpuMeter {
  /** The {@link #source()} of every {@code /proc} reader. */
  public static final String SOURCE = "/proc";

  private static final long TICKS_PER_SECOND = clockTicks();

  private final long pid;
  private final Path proc;

  public ProcessCpu(long pid) {
    this(pid, Path.of("/proc"));
  }

  /** Reads from {@code proc} instead of {@code /proc} (for tests). */
  ProcessCpu(long pid, Path proc) {
    this.pid = pid;
    this.proc = proc;
  }

  @Override
  public String source() {
    return SOURCE;
  }

  /** The process whose CPU this reads. */
  public long pid() {
    return pid;
  }

  /**
   * User + system CPU time of the process so far, less that of its JIT compiler threads, in
   * nanoseconds.
   */
  @Override
  public long cpuNanos() {
    Path dir = proc.resolve(Long.toString(pid));
    try {
      long total = parseCpuNanos(Files.readString(dir.resolve("stat")), TICKS_PER_SECOND);
      return total - compilerNanos(dir.resolve("task"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the CPU time of process " + pid, e);
    }
  }

  /**
   * Major page faults of the process so far ({@code majflt}, field 12 of {@code /proc/<pid>/stat}):
   * pages it had to wait for the disk to read. A measured server should have none: the segmented
   * store's mapped index is meant to stay in the page cache, and the machine has no swap, so a
   * fault in a cell means its index no longer fits beside the others.
   */
  @Override
  public long majorFaults() {
    try {
      return parseMajorFaults(Files.readString(proc.resolve(Long.toString(pid)).resolve("stat")));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the page faults of process " + pid, e);
    }
  }

  /** Parses {@code majflt} (field 12) out of a {@code /proc/<pid>/stat} line. */
  static long parseMajorFaults(String stat) {
    return Long.parseLong(fields(stat)[12 - 3]);
  }

  /** The fields of a {@code /proc/<pid>/stat} line from field 3 (state) on. */
  private static String[] fields(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + stat);
    }
    return stat.substring(close + 2).trim().split(" +");
  }

  /**
   * CPU time of the process's JIT compiler threads so far, in nanoseconds: what {@link #cpuNanos}
   * leaves out, and a sign of whether a fresh JVM is still compiling its hot code.
   */
  public long compilerCpuNanos() {
    try {
      return compilerNanos(proc.resolve(Long.toString(pid)).resolve("task"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the compiler threads of process " + pid, e);
    }
  }

  private static long compilerNanos(Path tasks) throws IOException {
    long sum = 0;
    if (!Files.isDirectory(tasks)) {
      return 0;
    }
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(tasks)) {
      for (Path t : threads) {
        try {
          String comm = Files.readString(t.resolve("comm"), StandardCharsets.UTF_8).strip();
          if (isCompiler(comm)) {
            sum += parseCpuNanos(Files.readString(t.resolve("stat")), TICKS_PER_SECOND);
          }
        } catch (NoSuchFileException e) {
          // the thread ended while we listed the others
        } catch (IOException e) {
          // A thread that ends between the open and the read of its file fails the read with
          // ESRCH ("No such process"), not as a missing file; any other failure is real.
          if (Files.exists(t)) {
            throw e;
          }
        }
      }
    }
    return sum;
  }

  /**
   * HotSpot names its compiler threads "C1 CompilerThread0", "C2 CompilerThread1", … (15 chars).
   */
  static boolean isCompiler(String comm) {
    return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
  }

  /**
   * Parses utime + stime out of a {@code /proc/<pid>/stat} line. The command name (field 2) may
   * contain spaces and parentheses, so fields are counted from the last ')': utime and stime are
   * fields 14 and 15 of the line.
   */
  static long parseCpuNanos(String stat, long ticksPerSecond) {
    String[] f = fields(stat);
    // f[0] is field 3 (state), so field n is f[n - 3].
    long ticks = Long.parseLong(f[14 - 3]) + Long.parseLong(f[15 - 3]);
    return ticks * 1_000_000_000L / ticksPerSecond;
  }

  /**
   * CPU time of this JVM so far, every thread of it (its JIT compilers and garbage collector
   * included), in nanoseconds: what a runner or a benchmark spends itself.
   */
  public static long thisJvmNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Linux clock ticks per second ({@code getconf CLK_TCK}), the unit of {@code /proc} times. */
  public static long ticksPerSecond() {
    return TICKS_PER_SECOND;
  }

  /** Cores used between two readings taken {@code wallNanos} apart. */
  public static double cores(long cpuNanosBefore, long cpuNanosAfter, long wallNanos) {
    return wallNanos <= 0 ? 0 : (cpuNanosAfter - cpuNanosBefore) / (double) wallNanos;
  }

  private static long clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.waitFor() == 0 && !out.isEmpty()) {
        return Long.parseLong(out);
      }
    } catch (IOException | NumberFormatException e) {
      // fall through to the Linux default
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 100;
  }
}
