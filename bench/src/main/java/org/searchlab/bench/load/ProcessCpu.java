package org.searchlab.bench.load;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of one process read from Linux {@code /proc/<pid>/stat} (utime + stime, in clock ticks).
 * Cores used over a window = CPU seconds consumed in the window / wall seconds of the window.
 *
 * <p>Thread-safe: stateless apart from the immutable pid and tick rate.
 */
public final class ProcessCpu {
  private static final long TICKS_PER_SECOND = clockTicks();

  private final long pid;

  public ProcessCpu(long pid) {
    this.pid = pid;
  }

  /** The process whose CPU this reads. */
  public long pid() {
    return pid;
  }

  /** Total user + system CPU time of the process so far, in nanoseconds. */
  public long cpuNanos() {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the CPU time of process " + pid, e);
    }
    return parseCpuNanos(stat, TICKS_PER_SECOND);
  }

  /**
   * Parses utime + stime out of a {@code /proc/<pid>/stat} line. The command name (field 2) may
   * contain spaces and parentheses, so fields are counted from the last ')': utime and stime are
   * fields 14 and 15 of the line.
   */
  static long parseCpuNanos(String stat, long ticksPerSecond) {
    int close = stat.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + stat);
    }
    String[] f = stat.substring(close + 2).trim().split(" +");
    // f[0] is field 3 (state), so field n is f[n - 3].
    long ticks = Long.parseLong(f[14 - 3]) + Long.parseLong(f[15 - 3]);
    return ticks * 1_000_000_000L / ticksPerSecond;
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
