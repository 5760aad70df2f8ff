package org.searchlab.bench.experiment;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.searchlab.bench.report.SegmentPoint;

/**
 * Watches one server through a write window of the merge-policy comparison, on a thread of its own:
 * every {@link #THREAD_POLL} the kernel's reading of its merge threads ({@link ServerIo}), every
 * {@link #SEGMENT_POLL} its segments ({@code _segments}: the timeline, and the segments that
 * vanish, which merges took as input) and its write-ahead log's size ({@code _stats}, whose growth
 * is the log's bytes written). Reading {@code _segments} and {@code _stats} costs the server a
 * little CPU, the same for every policy; the {@code /proc} reads cost only the runner.
 *
 * <p>Thread-safe: the poller thread writes the fields, {@link #close()} joins it before the results
 * are read.
 */
final class MergeWatch {
  static final java.time.Duration THREAD_POLL = java.time.Duration.ofMillis(50);
  static final java.time.Duration SEGMENT_POLL = java.time.Duration.ofMillis(500);

  private final HttpClient http;
  private final URI base;
  private final String index;
  private final ServerIo io;
  private final boolean segmented;
  private final String variant;
  private final String phase;
  private final Integer round;
  private final long t0 = System.nanoTime();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Map<ServerIo.ThreadId, ServerIo.MergeThread> baseline = new HashMap<>();
  private final Map<ServerIo.ThreadId, ServerIo.MergeThread> threads = new HashMap<>();
  private final List<SegmentPoint> timeline = new ArrayList<>();
  private final Map<String, StoreAccounting.Segment> seen = new HashMap<>();
  private Set<String> current = new HashSet<>();
  private final double startUptime;
  private long vanishedDocs;
  private long vanishedBytes;
  private long translogWritten;
  private Long lastTranslog;
  private int polls;
  private Set<ServerIo.ThreadId> alive = new HashSet<>();
  private double tailMs;
  private int ended;
  private volatile Exception failure;
  private final Thread poller;

  /**
   * Starts watching.
   *
   * @param pid the server's process, or -1 when the runner did not start it
   * @param segmented whether it lists segments (the mutable store does not)
   */
  MergeWatch(
      HttpClient http,
      URI base,
      String index,
      long pid,
      boolean segmented,
      String variant,
      String phase,
      Integer round)
      throws IOException, InterruptedException {
    this.http = http;
    this.base = base;
    this.index = index;
    this.io = pid > 0 ? new ServerIo(pid) : null;
    this.segmented = segmented;
    this.variant = variant;
    this.phase = phase;
    this.round = round;
    if (io != null) {
      alive = io.readMergeThreads(baseline);
    }
    this.startUptime = ServerIo.uptimeSeconds(java.nio.file.Path.of("/proc"));
    pollSegments();
    this.poller = Thread.ofPlatform().daemon(true).name("merge-watch-" + variant).start(this::loop);
  }

  private void loop() {
    long nextSegments = System.nanoTime() + SEGMENT_POLL.toNanos();
    try {
      while (!stop.get()) {
        Thread.sleep(THREAD_POLL.toMillis());
        if (io != null) {
          readThreads();
        }
        if (System.nanoTime() >= nextSegments) {
          pollSegments();
          nextSegments += SEGMENT_POLL.toNanos();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      failure = e;
    }
  }

  /**
   * One poll of the merge threads. A thread alive at the last poll and gone now ended in between:
   * what it ran after its last reading is lost, and is at most the time from that reading to now
   * (one thread runs on one core at most), which is summed as the reading's uncertainty.
   */
  private synchronized void readThreads() throws IOException {
    Set<ServerIo.ThreadId> now = io.readMergeThreads(threads);
    double t = ServerIo.uptimeSeconds(java.nio.file.Path.of("/proc"));
    for (ServerIo.ThreadId tid : alive) {
      if (!now.contains(tid)) {
        ServerIo.MergeThread last = threads.getOrDefault(tid, baseline.get(tid));
        ended++;
        tailMs += Math.max(0, t - last.seenSeconds()) * 1000;
      }
    }
    alive = now;
  }

  /** One poll of the segments and the log's size. */
  private synchronized void pollSegments() throws IOException, InterruptedException {
    polls++;
    Long translog = StoreAccounting.read(http, base, index).translogBytes();
    if (translog != null) {
      if (lastTranslog != null && translog > lastTranslog) {
        translogWritten += translog - lastTranslog;
      }
      lastTranslog = translog;
    }
    if (!segmented) {
      return;
    }
    List<StoreAccounting.Segment> now = StoreAccounting.segments(http, base, index);
    if (now == null) {
      return;
    }
    Set<String> names = new HashSet<>();
    List<Long> sizes = new ArrayList<>();
    long bytes = 0;
    for (StoreAccounting.Segment s : now) {
      names.add(s.name());
      seen.put(s.name(), s);
      sizes.add(s.bytes());
      bytes += s.bytes();
    }
    for (String gone : current) {
      if (!names.contains(gone)) {
        StoreAccounting.Segment s = seen.get(gone);
        vanishedDocs += s.docs();
        vanishedBytes += s.bytes();
      }
    }
    current = names;
    sizes.sort(Comparator.reverseOrder());
    timeline.add(
        new SegmentPoint(
            variant, phase, round, (System.nanoTime() - t0) / 1e9, now.size(), bytes, sizes));
  }

  /** One poll of the segments and the log now, outside the schedule (before a commit). */
  void poll() throws IOException, InterruptedException {
    pollSegments();
  }

  /** Stops the poller after one last poll of everything. */
  void close() throws IOException, InterruptedException {
    stop.set(true);
    poller.join();
    if (io != null) {
      readThreads();
    }
    pollSegments();
    if (failure != null) {
      throw new IOException("watching " + variant + " failed", failure);
    }
  }

  /** The segment counts and sizes polled, in order. */
  synchronized List<SegmentPoint> timeline() {
    return List.copyOf(timeline);
  }

  synchronized long translogWritten() {
    return translogWritten;
  }

  synchronized long vanishedDocs() {
    return vanishedDocs;
  }

  synchronized long vanishedBytes() {
    return vanishedBytes;
  }

  synchronized int polls() {
    return polls;
  }

  /** Whether the kernel's merge-thread readings exist (the runner started the server). */
  boolean threadsRead() {
    return io != null;
  }

  /**
   * The merge threads' work within the window.
   *
   * @param count threads that did any work in it
   * @param cpuMs their CPU in the window
   * @param wallMs their lifetimes within the window, summed
   * @param writeBytes their written bytes in the window, -1 when the kernel does not say
   * @param ended threads seen alive and then gone within the window
   * @param tailMs the most CPU those could have used between their last reading and their end
   */
  record Threads(
      int count, double cpuMs, double wallMs, long writeBytes, int ended, double tailMs) {}

  synchronized Threads threads() {
    int count = 0;
    double cpu = 0;
    double wall = 0;
    long written = 0;
    boolean bytesKnown = true;
    double halfPoll = THREAD_POLL.toMillis() / 2000.0;
    for (Map.Entry<ServerIo.ThreadId, ServerIo.MergeThread> e : threads.entrySet()) {
      ServerIo.MergeThread last = e.getValue();
      ServerIo.MergeThread first = baseline.get(e.getKey());
      long cpuNanos = last.cpuNanos() - (first == null ? 0 : first.cpuNanos());
      double from = Math.max(last.startSeconds(), startUptime);
      double lifetime = Math.max(0, last.seenSeconds() + halfPoll - from);
      if (first != null && cpuNanos == 0) {
        continue; // a thread alive before the window that did nothing in it
      }
      count++;
      cpu += cpuNanos / 1e6;
      wall += lifetime * 1000;
      if (last.writeBytes() < 0) {
        bytesKnown = false;
      } else {
        written += last.writeBytes() - (first == null ? 0 : Math.max(0, first.writeBytes()));
      }
    }
    return new Threads(count, cpu, wall, bytesKnown ? written : -1, ended, tailMs);
  }
}
