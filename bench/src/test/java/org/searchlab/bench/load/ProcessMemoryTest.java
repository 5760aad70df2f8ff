package org.searchlab.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link ProcessMemory} on this JVM's own {@code /proc} entries, checked by the relations the
 * kernel keeps (the peak is at least the current resident set, which is the sum of its anonymous,
 * file and shared parts), and on a fixed {@code smaps} excerpt.
 */
class ProcessMemoryTest {
  @Test
  void readsThisJvmsOwnMemory() {
    assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "Linux /proc");
    ProcessMemory.Reading r = ProcessMemory.self().read();
    assertTrue(r.rss() > 0, r.toString());
    assertTrue(r.peakRss() >= r.rss(), r.toString());
    // A JVM's heap and code are anonymous; its libjvm.so and lib/modules are mapped files.
    assertTrue(r.anonymous() > 0, r.toString());
    assertTrue(r.file() > 0, r.toString());
    // VmRSS is exactly RssAnon + RssFile + RssShmem in the kernel (one read of status).
    assertEquals(r.rss(), r.anonymous() + r.file() + r.shmem(), r.toString());
    Map<String, Long> mapped = ProcessMemory.self().mappedByExtension();
    assertTrue(mapped.getOrDefault("so", 0L) > 0, "libjvm.so is resident: " + mapped);
    long sum = mapped.values().stream().mapToLong(Long::longValue).sum();
    // The files are resident pages of mappings, a part of RssFile + RssShmem up to a page each
    // of the mappings the kernel counts between the two reads (the JVM maps and unmaps as it
    // runs): well within the resident set.
    assertTrue(sum > 0 && sum <= r.rss() + (64 << 20), sum + " of " + r);
  }

  @Test
  void sumsTheResidentBytesOfMappedFilesByExtension() {
    String smaps =
        String.join(
            "\n",
            "7f0000000000-7f0000100000 r--s 00000000 08:01 1234 /data/index/_0.vec",
            "Size:               1024 kB",
            "Rss:                 512 kB",
            "7f0000100000-7f0000200000 r--s 00000000 08:01 1235 /data/index/_1.vec",
            "Rss:                 256 kB",
            "7f0000200000-7f0000300000 r--s 00000000 08:01 1236 /data/index/_0.VEX (deleted)",
            "Rss:                   8 kB",
            "7f0000300000-7f0000400000 rw-p 00000000 00:00 0",
            "Rss:                4096 kB",
            "55d000000000-55d000100000 rw-p 00000000 00:00 0                          [heap]",
            "Rss:                2048 kB",
            "7f0000400000-7f0000500000 r-xp 00000000 08:01 99 /usr/lib/jvm/lib/modules",
            "Rss:                  16 kB",
            "7f0000600000-7f0000700000 r-xp 00000000 08:01 77 /usr/lib/x86_64-linux-gnu/libc.so.6",
            "Rss:                  32 kB",
            "7f0000500000-7f0000600000 r--s 00000000 08:01 1237 /data/index/_2.tim",
            "Rss:                   0 kB",
            "");
    assertEquals(
        Map.of("vec", 768L * 1024, "vex", 8L * 1024, "", 16L * 1024, "so", 32L * 1024),
        ProcessMemory.parseSmaps(smaps));
    assertEquals(
        Map.of("VmRSS", 2048L * 1024, "VmHWM", 4096L * 1024),
        ProcessMemory.parseKilobytes(
            "Name:\tjava\nVmHWM:\t    4096 kB\nVmRSS:\t    2048 kB\nThreads:\t12\n"));
  }
}
