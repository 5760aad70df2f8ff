package org.searchlab.server.es;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.UnixOperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ClassLoadingMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.RuntimeMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.searchlab.server.Json;

/**
 * Reads this JVM, its process and its machine from the platform MXBeans (and, on Linux, {@code
 * /proc/loadavg} and {@code /etc/os-release}) into the {@code jvm}, {@code os}, {@code process} and
 * {@code fs} sections of Elasticsearch's node info and node stats, under Elasticsearch's field
 * names. Every number is read at the call; a value the platform does not give is left out (or -1
 * where Elasticsearch writes -1). Memory pools and collectors get Elasticsearch's names ({@code
 * young}, {@code survivor}, {@code old}; a collector or heap pool it does not name keeps the JVM's
 * name). Stateless and thread-safe (the MXBeans are).
 */
final class JvmProbe {
  private static final RuntimeMXBean RUNTIME = ManagementFactory.getRuntimeMXBean();
  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final ClassLoadingMXBean CLASSES = ManagementFactory.getClassLoadingMXBean();
  private static final OperatingSystemMXBean OS = ManagementFactory.getOperatingSystemMXBean();

  private JvmProbe() {}

  /** Elasticsearch's name of a heap pool ({@code GcNames.getByMemoryPoolName}), else the JVM's. */
  static String poolName(String jvmName) {
    return switch (jvmName) {
      case "Eden Space", "PS Eden Space", "Par Eden Space", "G1 Eden Space" -> "young";
      case "Survivor Space", "PS Survivor Space", "Par Survivor Space", "G1 Survivor Space" ->
          "survivor";
      case "Tenured Gen", "PS Old Gen", "CMS Old Gen", "G1 Old Gen" -> "old";
      default -> jvmName;
    };
  }

  /** Elasticsearch's name of a collector ({@code GcNames.getByGcName}), else the JVM's. */
  static String collectorName(String jvmName) {
    return switch (jvmName) {
      case "Copy", "PS Scavenge", "ParNew", "G1 Young Generation" -> "young";
      case "MarkSweepCompact", "PS MarkSweep", "ConcurrentMarkSweep", "G1 Old Generation" -> "old";
      default -> jvmName;
    };
  }

  private static long nonNegative(long v) {
    return Math.max(0, v);
  }

  /** The {@code jvm} section of node stats. */
  static ObjectNode jvmStats() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("timestamp", System.currentTimeMillis());
    o.put("uptime_in_millis", RUNTIME.getUptime());
    ObjectNode mem = o.putObject("mem");
    MemoryUsage heap = MEMORY.getHeapMemoryUsage();
    MemoryUsage nonHeap = MEMORY.getNonHeapMemoryUsage();
    long used = nonNegative(heap.getUsed());
    long max = nonNegative(heap.getMax());
    mem.put("heap_used_in_bytes", used);
    if (max > 0) {
      mem.put("heap_used_percent", (short) (used * 100 / max));
    }
    mem.put("heap_committed_in_bytes", nonNegative(heap.getCommitted()));
    mem.put("heap_max_in_bytes", max);
    mem.put("non_heap_used_in_bytes", nonNegative(nonHeap.getUsed()));
    mem.put("non_heap_committed_in_bytes", nonNegative(nonHeap.getCommitted()));
    ObjectNode pools = mem.putObject("pools");
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() != MemoryType.HEAP || !p.isValid()) {
        continue;
      }
      MemoryUsage u = p.getUsage();
      MemoryUsage peak = p.getPeakUsage();
      if (u == null || peak == null) {
        continue;
      }
      ObjectNode x = pools.putObject(poolName(p.getName()));
      x.put("used_in_bytes", nonNegative(u.getUsed()));
      x.put("max_in_bytes", nonNegative(u.getMax()));
      x.put("peak_used_in_bytes", nonNegative(peak.getUsed()));
      x.put("peak_max_in_bytes", nonNegative(peak.getMax()));
    }
    o.putObject("threads")
        .put("count", THREADS.getThreadCount())
        .put("peak_count", THREADS.getPeakThreadCount());
    ObjectNode collectors = o.putObject("gc").putObject("collectors");
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      collectors
          .putObject(collectorName(gc.getName()))
          .put("collection_count", gc.getCollectionCount())
          .put("collection_time_in_millis", gc.getCollectionTime());
    }
    ObjectNode buffers = o.putObject("buffer_pools");
    for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      buffers
          .putObject(b.getName())
          .put("count", b.getCount())
          .put("used_in_bytes", b.getMemoryUsed())
          .put("total_capacity_in_bytes", b.getTotalCapacity());
    }
    o.putObject("classes")
        .put("current_loaded_count", CLASSES.getLoadedClassCount())
        .put("total_loaded_count", CLASSES.getTotalLoadedClassCount())
        .put("total_unloaded_count", CLASSES.getUnloadedClassCount());
    return o;
  }

  /** The {@code jvm} section of node info. */
  static ObjectNode jvmInfo() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("pid", ProcessHandle.current().pid());
    o.put("version", System.getProperty("java.version"));
    o.put("vm_name", System.getProperty("java.vm.name"));
    o.put("vm_version", System.getProperty("java.vm.version"));
    o.put("vm_vendor", System.getProperty("java.vm.vendor"));
    o.put("bundled_jdk", false); // the server runs on the JDK it is given; it ships none
    o.put("using_bundled_jdk", false);
    o.put("start_time_in_millis", RUNTIME.getStartTime());
    ObjectNode mem = o.putObject("mem");
    MemoryUsage heap = MEMORY.getHeapMemoryUsage();
    MemoryUsage nonHeap = MEMORY.getNonHeapMemoryUsage();
    mem.put("heap_init_in_bytes", nonNegative(heap.getInit()));
    mem.put("heap_max_in_bytes", nonNegative(heap.getMax()));
    mem.put("non_heap_init_in_bytes", nonNegative(nonHeap.getInit()));
    mem.put("non_heap_max_in_bytes", nonNegative(nonHeap.getMax()));
    vmOption("MaxDirectMemorySize")
        .map(Long::parseLong)
        // 0 is the default: the JVM then caps direct buffers at the heap's maximum.
        .map(v -> v == 0 ? Runtime.getRuntime().maxMemory() : v)
        .ifPresent(v -> mem.put("direct_max_in_bytes", v));
    var gcs = o.putArray("gc_collectors");
    ManagementFactory.getGarbageCollectorMXBeans().forEach(g -> gcs.add(g.getName()));
    var pools = o.putArray("memory_pools");
    ManagementFactory.getMemoryPoolMXBeans().forEach(p -> pools.add(p.getName()));
    vmOption("UseCompressedOops")
        .ifPresent(v -> o.put("using_compressed_ordinary_object_pointers", v));
    // The JVM's flags, as Elasticsearch lists them (the endpoint is behind the server's
    // credentials, like every other but /health).
    var args = o.putArray("input_arguments");
    RUNTIME.getInputArguments().forEach(args::add);
    return o;
  }

  private static Optional<String> vmOption(String name) {
    try {
      HotSpotDiagnosticMXBean hs =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      return hs == null ? Optional.empty() : Optional.of(hs.getVMOption(name).getValue());
    } catch (RuntimeException e) {
      return Optional.empty(); // not a HotSpot JVM, or no such option
    }
  }

  /** The {@code os} section of node info. */
  static ObjectNode osInfo() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("refresh_interval_in_millis", 0); // no cache: every stats request reads the OS anew
    o.put("name", OS.getName());
    o.put("pretty_name", prettyName().orElse(OS.getName()));
    o.put("arch", OS.getArch());
    o.put("version", OS.getVersion());
    o.put("available_processors", OS.getAvailableProcessors());
    o.put("allocated_processors", Runtime.getRuntime().availableProcessors());
    return o;
  }

  /** {@code PRETTY_NAME} of {@code /etc/os-release}, as Elasticsearch reads it on Linux. */
  private static Optional<String> prettyName() {
    try {
      for (String line : Files.readAllLines(Path.of("/etc/os-release"), StandardCharsets.UTF_8)) {
        if (line.startsWith("PRETTY_NAME=")) {
          String v = line.substring("PRETTY_NAME=".length()).trim();
          if (v.length() >= 2 && (v.startsWith("\"") || v.startsWith("'"))) {
            v = v.substring(1, v.length() - 1);
          }
          return Optional.of(v);
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux, or unreadable: the plain name stands in
    }
    return Optional.empty();
  }

  /** The {@code os} section of node stats. */
  static ObjectNode osStats() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("timestamp", System.currentTimeMillis());
    ObjectNode cpu = o.putObject("cpu");
    ObjectNode load = Json.MAPPER.createObjectNode();
    double[] avg = loadAverages();
    if (avg != null) {
      load.put("1m", avg[0]).put("5m", avg[1]).put("15m", avg[2]);
    } else if (OS.getSystemLoadAverage() >= 0) {
      load.put("1m", OS.getSystemLoadAverage());
    }
    if (OS instanceof com.sun.management.OperatingSystemMXBean sun) {
      double c = sun.getCpuLoad();
      cpu.put("percent", c < 0 ? -1 : (short) Math.round(c * 100));
      cpu.set("load_average", load);
      long total = sun.getTotalMemorySize();
      long free = sun.getFreeMemorySize();
      ObjectNode mem = o.putObject("mem");
      mem.put("total_in_bytes", total);
      mem.put("adjusted_total_in_bytes", total);
      mem.put("free_in_bytes", free);
      mem.put("used_in_bytes", total - free);
      mem.put("free_percent", percent(free, total));
      mem.put("used_percent", percent(total - free, total));
      long swapTotal = sun.getTotalSwapSpaceSize();
      long swapFree = sun.getFreeSwapSpaceSize();
      o.putObject("swap")
          .put("total_in_bytes", swapTotal)
          .put("free_in_bytes", swapFree)
          .put("used_in_bytes", swapTotal - swapFree);
    } else {
      cpu.set("load_average", load);
    }
    return o;
  }

  private static short percent(long part, long total) {
    return total <= 0 ? 0 : (short) Math.round(100.0 * part / total);
  }

  /** The 1, 5 and 15 minute load averages of {@code /proc/loadavg}, or null off Linux. */
  private static double[] loadAverages() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ");
      return new double[] {
        Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])
      };
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The {@code process} section of node stats. */
  static ObjectNode processStats() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.put("timestamp", System.currentTimeMillis());
    if (OS instanceof UnixOperatingSystemMXBean unix) {
      o.put("open_file_descriptors", unix.getOpenFileDescriptorCount());
      o.put("max_file_descriptors", unix.getMaxFileDescriptorCount());
    }
    if (OS instanceof com.sun.management.OperatingSystemMXBean sun) {
      double c = sun.getProcessCpuLoad();
      o.putObject("cpu")
          .put("percent", c < 0 ? -1 : (short) Math.round(c * 100))
          .put("total_in_millis", sun.getProcessCpuTime() / 1_000_000);
      o.putObject("mem").put("total_virtual_in_bytes", sun.getCommittedVirtualMemorySize());
    }
    return o;
  }

  /** The {@code fs} section of node stats for the data directory, or empty without one. */
  static Optional<ObjectNode> fsStats(Optional<Path> dataDir) {
    if (dataDir.isEmpty()) {
      return Optional.empty();
    }
    try {
      Path dir = dataDir.get().toAbsolutePath();
      FileStore store = Files.getFileStore(dir);
      long total = store.getTotalSpace();
      long free = store.getUnallocatedSpace();
      long available = store.getUsableSpace();
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("timestamp", System.currentTimeMillis());
      o.putObject("total")
          .put("total_in_bytes", total)
          .put("free_in_bytes", free)
          .put("available_in_bytes", available);
      o.putArray("data")
          .addObject()
          .put("path", dir.toString())
          .put("mount", store.toString())
          .put("type", store.type())
          .put("total_in_bytes", total)
          .put("free_in_bytes", free)
          .put("available_in_bytes", available);
      return Optional.of(o);
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
