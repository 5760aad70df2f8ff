package org.searchlab.bench.report;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * Whether this JVM backs its heap with transparent huge pages. The launcher ({@code bin/searchlab})
 * turns them on where the kernel gives them on request; the JVM turns the flag off again when the
 * kernel does not. Child servers of the experiment take the runner's effective setting, so a run
 * measures the servers as {@code searchlab serve} runs them, and every result says which it was:
 * the mutable store keeps its vectors and links on the heap, where 2 MB pages spare a graph search
 * most of its TLB misses, while Lucene reads its vectors through memory-mapped files in the page
 * cache, which the flag does not reach (whether the kernel backs the page cache with large pages
 * depends on its version and the file system).
 *
 * <p>Thread-safety: stateless.
 */
public final class HugePages {
  private HugePages() {}

  /** The JVM's effective {@code UseTransparentHugePages}. */
  public static boolean enabled() {
    try {
      HotSpotDiagnosticMXBean bean =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      return Boolean.parseBoolean(bean.getVMOption("UseTransparentHugePages").getValue());
    } catch (RuntimeException e) { // not HotSpot
      return false;
    }
  }

  /**
   * This process's memory on transparent huge pages now ({@code AnonHugePages} of {@code
   * /proc/self/smaps_rollup}), in bytes; -1 where the file is missing (not Linux, or an old
   * kernel). Says whether the kernel actually gave the pages the flag asked for.
   */
  public static long anonHugePageBytes() {
    try {
      for (String line :
          java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/smaps_rollup"))) {
        if (line.startsWith("AnonHugePages:")) {
          return Long.parseLong(line.substring(14).trim().split("\\s+")[0]) * 1024;
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      // fall through
    }
    return -1;
  }

  /** The flag that gives a child JVM this JVM's setting. */
  public static List<String> childFlags() {
    return List.of(enabled() ? "-XX:+UseTransparentHugePages" : "-XX:-UseTransparentHugePages");
  }
}
