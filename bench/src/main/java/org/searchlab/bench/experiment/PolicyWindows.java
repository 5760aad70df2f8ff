package org.searchlab.bench.experiment;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.searchlab.bench.report.MergeWindow;
import org.searchlab.bench.report.SegmentPoint;

/**
 * The write windows of the merge-policy comparison on one server at a time: a feed of the whole
 * corpus through {@code _bulk} (the same bulk size and client threads for every variant, the
 * mutable store included), or a force-merge to one segment, each watched by a {@link MergeWatch}
 * from its start until the merges it started have settled. Each window gives a {@link MergeWindow}
 * (the store's counters' growth beside the kernel's readings) and its segment timeline. Runs on the
 * caller's thread; not thread-safe.
 */
final class PolicyWindows {
  private final RunContext ctx;
  private final Corpus corpus;
  private final int batchSize;
  private final List<MergeWindow> windows = new ArrayList<>();
  private final List<SegmentPoint> timeline = new ArrayList<>();

  /**
   * @param batchSize documents per {@code _bulk} request
   */
  PolicyWindows(RunContext ctx, Corpus corpus, int batchSize) {
    this.ctx = ctx;
    this.corpus = corpus;
    this.batchSize = batchSize;
  }

  List<MergeWindow> windows() {
    return List.copyOf(windows);
  }

  List<SegmentPoint> timeline() {
    return List.copyOf(timeline);
  }

  /**
   * Feeds every document to {@code s} ({@link FeedOp#PUT}), waits for the merges it started, makes
   * the result searchable and committed; returns the feed's own figures.
   *
   * @param phase {@link MergeWindow#FEED} or {@link MergeWindow#REFEED}
   * @param round the refeed round, null for the first feed
   */
  FeedStats feed(Variant v, Session s, String phase, Integer round)
      throws IOException, InterruptedException {
    Window w = new Window(v, s, phase, round);
    FeedStats f;
    try {
      f = s.bulkFeeder(batchSize).feed(corpus.docs(), FeedOp.PUT, s.cpu);
      if (f.errors() > 0) {
        throw new IOException(
            v.label() + ": " + f.errors() + " documents rejected in the " + phase);
      }
      ctx.progress.fed(f.docs(), f.seconds());
      w.feedEnd = System.nanoTime();
      w.settle();
    } finally {
      w.watch.close();
    }
    w.finish(f);
    return f;
  }

  /** Force-merges {@code s}'s index to one segment, watched as a window of its own. */
  void forceMerge(Variant v, Session s, Integer round) throws IOException, InterruptedException {
    Window w = new Window(v, s, MergeWindow.FORCE_MERGE, round);
    // The whole merge is the window's settling: it has no feed.
    w.feedEnd = w.t0;
    try {
      s.admin.forceMerge(1);
      w.settle();
    } finally {
      w.watch.close();
    }
    w.finish(new FeedStats(0, 0, 0, 0));
  }

  /** One window's readings at its start, and its end. */
  private final class Window {
    final Variant v;
    final Session s;
    final String phase;
    final Integer round;
    final ServerIo io;
    final long kernel0;
    final long cancelled0;
    final long cpu0;
    final long t0;
    final StoreAccounting.Reading before;
    final MergeWatch watch;
    long feedEnd;

    Window(Variant v, Session s, String phase, Integer round)
        throws IOException, InterruptedException {
      this.v = v;
      this.s = s;
      this.phase = phase;
      this.round = round;
      long pid = s.serverPid().orElse(-1);
      this.io = pid > 0 ? new ServerIo(pid) : null;
      this.kernel0 = io == null ? -1 : io.writeBytes();
      this.cancelled0 = io == null ? -1 : io.cancelledWriteBytes();
      this.before = StoreAccounting.read(ctx.load.http(), s.base, corpus.mapping().index());
      this.cpu0 = s.cpu.cpuNanos();
      this.t0 = System.nanoTime();
      this.watch =
          new MergeWatch(
              ctx.load.http(),
              s.base,
              corpus.mapping().index(),
              pid,
              v.store().equals(Variant.SEGMENTED_STORE),
              v.label(),
              phase,
              round);
    }

    /**
     * The feed (or the force-merge request) is done: wait for the merges it started, then refresh
     * and commit, reading the log's size just before the commit trims it.
     */
    void settle() throws IOException, InterruptedException {
      s.admin.awaitMerges(Servers.MERGE_SETTLE);
      s.admin.refresh();
      watch.poll();
      s.admin.flush();
      // A commit can start merges of its own (a policy that merges on commit): wait for those too.
      s.admin.awaitMerges(Servers.MERGE_SETTLE);
    }

    void finish(FeedStats f) throws IOException, InterruptedException {
      long end = System.nanoTime();
      double cpuSeconds = (s.cpu.cpuNanos() - cpu0) / 1e9;
      long kernel = io == null ? -1 : io.writeBytes();
      long cancelled = io == null ? -1 : io.cancelledWriteBytes();
      StoreAccounting.Reading grew =
          StoreAccounting.read(ctx.load.http(), s.base, corpus.mapping().index()).since(before);
      MergeWatch.Threads th = watch.threads();
      List<SegmentPoint> points = watch.timeline();
      timeline.addAll(points);
      Long indexBytes = grew.storeBytes();
      if (indexBytes == null && !points.isEmpty()) {
        indexBytes = points.getLast().bytes();
      }
      Integer segments = s.admin.segments();
      MergeWindow m =
          new MergeWindow(
              v.label(),
              phase,
              round,
              f.docs(),
              f.seconds(),
              (end - feedEnd) / 1e9,
              f.cpuCores(),
              f.docsPerSecPerCore(),
              cpuSeconds,
              segments,
              indexBytes,
              grew.mergesTotal(),
              grew.mergeTimeMs(),
              grew.mergeThrottledMs(),
              grew.mergeDocs(),
              grew.mergeInputBytes(),
              grew.mergeOutputBytes(),
              grew.mergeCpuMs(),
              grew.flushedSegmentBytes(),
              grew.walWrittenBytes() != null
                  ? grew.walWrittenBytes()
                  : grew.translogBytes() == null ? null : watch.translogWritten(),
              grew.refreshes(),
              grew.flushes(),
              kernel0 < 0 || kernel < 0 ? null : kernel - kernel0,
              watch.threadsRead() ? th.count() : null,
              watch.threadsRead() ? th.cpuMs() : null,
              watch.threadsRead() ? th.wallMs() : null,
              watch.threadsRead() && th.writeBytes() >= 0 ? th.writeBytes() : null,
              v.store().equals(Variant.SEGMENTED_STORE) ? watch.vanishedDocs() : null,
              v.store().equals(Variant.SEGMENTED_STORE) ? watch.vanishedBytes() : null,
              watch.polls(),
              cancelled0 < 0 || cancelled < 0 ? null : cancelled - cancelled0,
              grew.indexWrittenPageBytes(),
              grew.mergeWrittenPageBytes(),
              watch.threadsRead() ? th.ended() : null,
              watch.threadsRead() ? th.tailMs() : null);
      windows.add(m);
      ctx.progress.step(
          phase,
          String.format(
              java.util.Locale.ROOT,
              "%s%s: %s; %.1f s settling, %s segments, merges %s (threads seen %s), merge CPU %s"
                  + " ms, write amplification %s",
              v.label(),
              round == null ? "" : " round " + round,
              f.docs() > 0 ? ProcedureRun.describe(f) : "force-merged",
              m.settleSeconds(),
              segments,
              m.mergesTotal() == null ? "n/a" : m.mergesTotal(),
              m.mergeThreads() == null ? "n/a" : m.mergeThreads(),
              m.mergeCpu() == null
                  ? "n/a"
                  : String.format(java.util.Locale.ROOT, "%.0f", m.mergeCpu()),
              m.writeAmplification() == null
                  ? "n/a"
                  : String.format(java.util.Locale.ROOT, "%.2f", m.writeAmplification())));
    }
  }
}
