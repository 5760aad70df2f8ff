package org.searchlab.bench.load;

import java.util.List;
import java.util.Optional;

/**
 * A reader of a server's cumulative CPU time: the load generator and the feeder read it at the
 * edges of a measured window and divide the difference by the window's wall time (cores used).
 * Implementations say where the figure comes from ({@link #source()}), because a child JVM's {@code
 * /proc} time and an engine's own statistics are not the same measure. Implementations are
 * thread-safe.
 */
public interface CpuMeter {
  /** The source of a meter that reads nothing: the report prints no CPU figure for it. */
  String NO_SOURCE = "none";

  /** A meter that reads nothing (a target whose CPU cannot be read): always 0. */
  CpuMeter NONE =
      new CpuMeter() {
        @Override
        public long cpuNanos() {
          return 0;
        }

        @Override
        public String source() {
          return NO_SOURCE;
        }
      };

  /**
   * CPU time used so far, in nanoseconds; only differences between two readings mean anything.
   *
   * @throws java.io.UncheckedIOException when the source cannot be read
   */
  long cpuNanos();

  /** Where the figure comes from, such as {@code /proc} or {@code _nodes/stats}. */
  String source();

  /**
   * Major page faults of the measured processes so far (a page read from disk: a mapped index file
   * not in the page cache, or anonymous memory swapped out), or -1 where this source cannot count
   * them; only differences between two readings mean anything.
   */
  default long majorFaults() {
    return -1;
  }

  /**
   * Another reader of the same processes from another source, read at the same instants where a
   * caller wants both (the feeds record it next to this one); empty when there is none.
   */
  default Optional<CpuMeter> second() {
    return Optional.empty();
  }

  /**
   * The sum of several meters of one source (one per node of a local cluster), with {@code second}
   * as its second source.
   */
  static CpuMeter sum(List<? extends CpuMeter> parts, Optional<CpuMeter> second) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("a sum of CPU meters needs at least one meter");
    }
    List<CpuMeter> copy = List.copyOf(parts);
    String source = copy.get(0).source();
    return new CpuMeter() {
      @Override
      public long cpuNanos() {
        long sum = 0;
        for (CpuMeter m : copy) {
          sum += m.cpuNanos();
        }
        return sum;
      }

      @Override
      public String source() {
        return source;
      }

      @Override
      public long majorFaults() {
        long sum = 0;
        for (CpuMeter m : copy) {
          long f = m.majorFaults();
          if (f < 0) {
            return -1;
          }
          sum += f;
        }
        return sum;
      }

      @Override
      public Optional<CpuMeter> second() {
        return second;
      }
    };
  }
}
