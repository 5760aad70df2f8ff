package org.searchlab.bench.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Every variant's server, started once before the query cells and kept up until the write phases:
 * the mutable store fed 0→N and flushed; the segmented store fed and flushed (its Elasticsearch
 * defaults leave tens of segments); the force-merged variant a second segmented server started on a
 * copy of that flushed index directory and force-merged to one segment (one feed instead of two;
 * the copy is taken while the first server is idle after its commit, and files a background merge
 * removes meanwhile were not part of the commit). Each server is warmed up once. An idle server
 * uses no CPU, so the servers do not disturb each other's cells. Used from the runner's thread; not
 * thread-safe.
 */
final class Servers implements AutoCloseable {
  private final Map<Variant, Session> sessions = new LinkedHashMap<>();
  private final Map<String, Session> writers = new LinkedHashMap<>();
  private final Map<Variant, Integer> segments = new LinkedHashMap<>();

  private Servers() {}

  /** The planned number of server starts and feeds, for the progress estimate. */
  static int feeds(List<Variant> variants) {
    return (int) variants.stream().map(Variant::store).distinct().count();
  }

  /** Starts, feeds, merges and warms every variant's server. */
  static Servers start(RunContext ctx, Corpus corpus, List<Variant> variants)
      throws IOException, InterruptedException {
    Servers s = new Servers();
    try {
      if (variants.contains(Variant.MUTABLE)) {
        Session m = s.fed(ctx, corpus, Variant.MUTABLE);
        s.sessions.put(Variant.MUTABLE, m);
        s.writers.put("mutable", m);
      }
      boolean plain = variants.contains(Variant.SEGMENTED);
      boolean merged = variants.contains(Variant.SEGMENTED_FORCEMERGED);
      if (plain || merged) {
        Variant first = plain ? Variant.SEGMENTED : Variant.SEGMENTED_FORCEMERGED;
        Session seg = s.fed(ctx, corpus, first);
        s.writers.put("segmented", seg);
        if (plain) {
          s.sessions.put(Variant.SEGMENTED, seg);
        }
        if (merged) {
          Session fm = seg;
          if (plain) {
            Path copy = ctx.dataDir(Variant.SEGMENTED_FORCEMERGED.label());
            copyTree(ctx.dataDir("segmented"), copy);
            fm =
                Session.start(
                    ServerOptions.defaults("segmented", corpus.dimension()),
                    copy,
                    ctx.profile.serverHeap(),
                    ctx.serverLog(Variant.SEGMENTED_FORCEMERGED.label()),
                    ctx.load);
          }
          s.sessions.put(Variant.SEGMENTED_FORCEMERGED, fm);
          String label = Variant.SEGMENTED_FORCEMERGED.label();
          ctx.progress.step(Phases.AFTER_MERGE, label + ": force-merging to 1 segment");
          long t0 = System.nanoTime();
          fm.admin.forceMerge(1);
          fm.admin.refresh();
          Integer n = fm.admin.segments();
          s.segments.put(Variant.SEGMENTED_FORCEMERGED, n);
          ctx.progress.step(
              Phases.AFTER_MERGE,
              String.format(
                  "%s: force-merged in %.1f s, segments %s",
                  label, (System.nanoTime() - t0) / 1e9, n));
        }
      }
      for (Map.Entry<Variant, Session> e : s.sessions.entrySet()) {
        ctx.progress.step(Phases.AFTER_FLUSH, e.getKey().label() + ": JIT warm-up");
        e.getValue().warmUp(corpus.queries(), ProcedureRun.jitWarmup(ctx.profile));
      }
      return s;
    } catch (IOException | InterruptedException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  private Session fed(RunContext ctx, Corpus corpus, Variant v)
      throws IOException, InterruptedException {
    String store = v.store();
    Session s =
        Session.start(
            ServerOptions.defaults(store, corpus.dimension()),
            ctx.dataDir(store),
            ctx.profile.serverHeap(),
            ctx.serverLog(store),
            ctx.load);
    try {
      int status = s.admin.createIndex(corpus.dimension(), 16, 200);
      ctx.progress.step(Phases.FEED, v.label() + ": PUT /product answered " + status);
      ctx.progress.step(Phases.FEED, v.label() + ": feeding " + corpus.docs().size() + " docs");
      FeedStats feed = s.feeder(Feeder.ES_BATCH).feed(corpus.docs(), FeedOp.PUT, s.server.cpu());
      ctx.progress.fed(feed.docs(), feed.seconds());
      s.admin.refresh();
      s.admin.flush();
      Integer n = s.admin.segments();
      segments.put(v, n);
      if (v == Variant.SEGMENTED_FORCEMERGED) {
        segments.put(Variant.SEGMENTED, n);
      }
      ctx.add(Rows.feed(ctx.info, v.label(), Phases.FEED, n, null, feed));
      // The mutable store feeds with its graph build threads (serve --build-threads): say how
      // many, next to the feed rate they explain.
      Long buildThreads = s.admin.storeCounter("build_threads");
      ctx.progress.step(
          Phases.FEED,
          v.label()
              + ": "
              + ProcedureRun.describe(feed)
              + ", segments "
              + n
              + (buildThreads == null ? "" : ", build threads " + buildThreads));
      return s;
    } catch (IOException | InterruptedException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** The variants with a server, in start order. */
  List<Variant> variants() {
    return new ArrayList<>(sessions.keySet());
  }

  /** The server of a variant. */
  Session session(Variant v) {
    return sessions.get(v);
  }

  /** The segment count the variant's index had when its queries started (null for mutable). */
  Integer segments(Variant v) {
    return segments.get(v);
  }

  /**
   * Stops the force-merged copy (its writes are not part of the procedure) and returns the servers
   * the write phases run on, by store.
   */
  Map<String, Session> writers() {
    Session fm = sessions.get(Variant.SEGMENTED_FORCEMERGED);
    if (fm != null && !writers.containsValue(fm)) {
      fm.close();
      sessions.remove(Variant.SEGMENTED_FORCEMERGED);
    }
    return writers;
  }

  @Override
  public void close() {
    for (Session s : sessions.values()) {
      s.close();
    }
    for (Session s : writers.values()) {
      s.close();
    }
  }

  /** Copies a directory tree; files that vanish during the copy (merge leftovers) are skipped. */
  static void copyTree(Path from, Path to) throws IOException {
    List<Path> all;
    try (Stream<Path> walk = Files.walk(from)) {
      all = walk.toList();
    }
    for (Path p : all) {
      Path target = to.resolve(from.relativize(p).toString());
      try {
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (NoSuchFileException e) {
        // deleted by a merge after the walk: not part of the committed index
      }
    }
  }
}
