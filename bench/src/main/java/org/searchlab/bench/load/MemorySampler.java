package org.searchlab.bench.load;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Polls the memory of the processes it watches ({@link ProcessMemory}) and keeps each one's peaks:
 * resident set, its anonymous and file parts, and the resident bytes of mapped files by extension.
 * At 1M documents memory decides what fits (the machine has no swap: an anonymous overrun is an OOM
 * kill, a mapped one shows as major page faults), so a run records the peak of every server beside
 * its results. {@code status} is read every {@code period}; {@code smaps}, which is long for a JVM
 * with many mapped index files, every {@value #SMAPS_EVERY}th time. The poll runs on one daemon
 * thread of the runner's JVM, on the cores the servers are measured on: a few small reads a second.
 * A process that ends is dropped, its peaks kept. Thread-safe.
 */
public final class MemorySampler implements AutoCloseable {
  /** How many {@code status} reads per read of {@code smaps}. */
  static final int SMAPS_EVERY = 10;

  /**
   * The peaks of one process, each the largest of its own over the samples (not necessarily at the
   * same instant).
   *
   * @param rss the largest resident set read ({@code VmRSS})
   * @param highWater the kernel's own peak of the resident set ({@code VmHWM}), which also covers
   *     the moments between samples
   * @param anonymous the largest anonymous part ({@code RssAnon}: heap, metaspace, stacks)
   * @param file the largest mapped-file part ({@code RssFile})
   * @param mappedByExtension the largest resident bytes of mapped files per extension
   * @param samples how many samples of {@code status} the peaks come from
   */
  public record Peak(
      long rss,
      long highWater,
      long anonymous,
      long file,
      Map<String, Long> mappedByExtension,
      int samples) {
    public Peak {
      mappedByExtension = Map.copyOf(mappedByExtension);
    }
  }

  private final Duration period;
  private final Map<String, ProcessMemory> watched = new LinkedHashMap<>();
  private final Map<String, Peak> peaks = new LinkedHashMap<>();
  private Thread thread;
  private boolean closed;
  private long polls;

  /** A sampler that polls every {@code period} once it watches a process. */
  public MemorySampler(Duration period) {
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("the sampling period must be positive; got " + period);
    }
    this.period = period;
  }

  /** Watches the process {@code pid} under {@code name}; the first call starts the polling. */
  public synchronized void watch(String name, long pid) {
    if (closed) {
      throw new IllegalStateException("the memory sampler is closed");
    }
    watched.put(name, new ProcessMemory(pid));
    if (thread == null) {
      thread = Thread.ofPlatform().daemon().name("memory-sampler").start(this::loop);
    }
  }

  /**
   * Stops reading the process watched under {@code name} and returns its peaks, or null when it was
   * never sampled; its peaks stay in {@link #peaks()}. A scale run watches each server under a name
   * per size and ends each one here, so that a size's peak is its own.
   */
  public synchronized Peak unwatch(String name) {
    ProcessMemory m = watched.remove(name);
    if (m != null) {
      // One last read, so that a name watched for less than a period still has its peak.
      try {
        ProcessMemory.Reading r = m.read();
        peaks.merge(
            name,
            new Peak(r.rss(), r.peakRss(), r.anonymous(), r.file(), m.mappedByExtension(), 1),
            MemorySampler::max);
      } catch (UncheckedIOException gone) {
        // ended meanwhile: what was sampled stays
      }
    }
    return peaks.get(name);
  }

  private void loop() {
    try {
      while (true) {
        sampleNow();
        Thread.sleep(period.toMillis());
      }
    } catch (InterruptedException e) {
      // closed
    }
  }

  /** Reads every watched process once (the poll's step; tests call it directly). */
  synchronized void sampleNow() {
    boolean smaps = polls++ % SMAPS_EVERY == 0;
    for (var it = watched.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, ProcessMemory> e = it.next();
      try {
        ProcessMemory.Reading r = e.getValue().read();
        Map<String, Long> mapped = smaps ? e.getValue().mappedByExtension() : Map.of();
        peaks.merge(
            e.getKey(),
            new Peak(r.rss(), r.peakRss(), r.anonymous(), r.file(), mapped, 1),
            MemorySampler::max);
      } catch (UncheckedIOException gone) {
        // The process ended (a server stopped): its peaks stay, it is read no more.
        it.remove();
      }
    }
  }

  private static Peak max(Peak a, Peak b) {
    Map<String, Long> mapped = new TreeMap<>(a.mappedByExtension());
    b.mappedByExtension().forEach((ext, bytes) -> mapped.merge(ext, bytes, Math::max));
    return new Peak(
        Math.max(a.rss(), b.rss()),
        Math.max(a.highWater(), b.highWater()),
        Math.max(a.anonymous(), b.anonymous()),
        Math.max(a.file(), b.file()),
        mapped,
        a.samples() + b.samples());
  }

  /** The peaks so far, by the name each process was watched under, in the order first sampled. */
  public synchronized Map<String, Peak> peaks() {
    return new LinkedHashMap<>(peaks);
  }

  /** Stops the polling; the peaks stay readable. */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      closed = true;
      t = thread;
    }
    if (t != null) {
      t.interrupt();
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
