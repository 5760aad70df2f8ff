// Just over 500 lines: starting, feeding, copying and stopping every variant's servers, which the
// main procedure and the merge-policy job (Servers.of) share.
package org.searchlab.bench.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.searchlab.opensearch.NodeClasspath;
import org.searchlab.opensearch.OpenSearchCluster;
import org.searchlab.opensearch.OpenSearchConfig;

/**
 * Every variant's engine, started once before the query cells and kept up until the write phases:
 * the mutable store fed 0→N and flushed; the segmented store fed and flushed (its Elasticsearch
 * defaults leave tens of segments); the force-merged variant a second segmented server started on a
 * copy of that flushed index directory and force-merged to one segment (one feed instead of two;
 * the copy is taken while the first server is idle after its commit, and files a background merge
 * removes meanwhile were not part of the commit). OpenSearch variants each get their own cluster of
 * child JVMs (an OpenSearch data directory cannot be copied under a running node), fed the same
 * way, the force-merged one then merged to one segment. Targets are fed as they are and never
 * force-merged. Each engine is warmed up once. An idle engine uses next to no CPU, so the engines
 * do not disturb each other's cells. Used from the runner's thread; not thread-safe.
 */
final class Servers implements AutoCloseable {
  private final Map<Variant, Session> sessions = new LinkedHashMap<>();
  private final Map<String, Session> writers = new LinkedHashMap<>();
  private final Map<Variant, Integer> segments = new LinkedHashMap<>();

  /**
   * The further feeds of a default segmented variant ({@link Profile#feeds()} above 1): each its
   * own server on its own index, fed the same way; the first feed is the variant's {@link
   * #session}.
   */
  private final Map<Variant, List<Session>> moreFeeds = new LinkedHashMap<>();

  private final Map<Variant, List<Integer>> moreFeedSegments = new LinkedHashMap<>();

  /** How long the merges a feed started may run on after it before the run gives up. */
  static final Duration MERGE_SETTLE = Duration.ofMinutes(20);

  private Servers() {}

  /**
   * The segmented pairs, float, int8, int4 and bbq: a plain variant and its force-merged one, which
   * starts from a copy of the plain one's index (or from its own feed when the plain one is not
   * run).
   */
  static final List<List<Variant>> SEGMENTED_PAIRS =
      List.of(
          List.of(Variant.SEGMENTED, Variant.SEGMENTED_FORCEMERGED),
          List.of(Variant.SEGMENTED_INT8, Variant.SEGMENTED_FORCEMERGED_INT8),
          List.of(Variant.SEGMENTED_INT4, Variant.SEGMENTED_FORCEMERGED_INT4),
          List.of(Variant.SEGMENTED_BBQ, Variant.SEGMENTED_FORCEMERGED_BBQ));

  /** The planned number of feeds, for the progress estimate. */
  static int feeds(List<Variant> variants) {
    int n = 0;
    for (Variant v : variants) {
      if (!v.store().equals(Variant.SEGMENTED_STORE)) {
        n++;
      }
    }
    for (List<Variant> pair : SEGMENTED_PAIRS) {
      n += pair.stream().anyMatch(variants::contains) ? 1 : 0;
    }
    return n;
  }

  /**
   * The feeds beyond the first that {@code p} plans: one per further feed of each default segmented
   * variant run, for the progress estimate.
   */
  static int extraFeeds(Profile p, List<Variant> variants) {
    int plain = 0;
    for (List<Variant> pair : SEGMENTED_PAIRS) {
      plain += variants.contains(pair.get(0)) ? 1 : 0;
    }
    return plain * (p.feeds() - 1) + (sameClientFeed(p, variants) ? 1 : 0);
  }

  /**
   * Whether the run repeats the mutable store's bootstrap feed through {@code _bulk} ({@link
   * Phases#FEED_SAME_CLIENT}): when the profile asks for it and a float segmented variant is fed
   * beside it, so that the two stores' feed rates can also be compared with one client.
   */
  static boolean sameClientFeed(Profile p, List<Variant> variants) {
    return p.sameClientFeed()
        && variants.contains(Variant.MUTABLE)
        && (variants.contains(Variant.SEGMENTED)
            || variants.contains(Variant.SEGMENTED_FORCEMERGED));
  }

  /** Starts, feeds, merges and warms every variant's engine. */
  static Servers start(RunContext ctx, Corpus corpus, List<Variant> variants)
      throws IOException, InterruptedException {
    Servers s = new Servers();
    try {
      for (Variant mv :
          List.of(
              Variant.MUTABLE,
              Variant.MUTABLE_INT8,
              Variant.MUTABLE_BBQ,
              Variant.MUTABLE_BBQ_INLINE,
              Variant.MUTABLE_INT4)) {
        if (variants.contains(mv)) {
          Session m = s.fed(ctx, corpus, mv, server(ctx, corpus, mv, mv.label()));
          s.sessions.put(mv, m);
          s.writers.put(mv.label(), m);
        }
      }
      if (sameClientFeed(ctx.profile, variants)) {
        s.fedSameClient(ctx, corpus, Variant.MUTABLE);
      }
      for (List<Variant> pair : SEGMENTED_PAIRS) {
        Variant plainVariant = pair.get(0);
        Variant mergedVariant = pair.get(1);
        boolean plain = variants.contains(plainVariant);
        boolean merged = variants.contains(mergedVariant);
        if (!plain && !merged) {
          continue;
        }
        Variant first = plain ? plainVariant : mergedVariant;
        // The fed index lives under the plain variant's name either way.
        Session seg = s.fed(ctx, corpus, first, server(ctx, corpus, first, plainVariant.label()));
        s.writers.put(first.label(), seg);
        if (plain) {
          s.sessions.put(plainVariant, seg);
        }
        if (merged) {
          Session fm = seg;
          if (plain) {
            copyTree(ctx.dataDir(plainVariant.label()), ctx.dataDir(mergedVariant.label()));
            fm = server(ctx, corpus, mergedVariant, mergedVariant.label());
          }
          s.sessions.put(mergedVariant, fm);
          s.forceMerge(ctx, mergedVariant, fm);
        }
        if (plain) {
          // Further independent feeds of the default index, each on its own server (see
          // Profile#feeds): the rounds take them in turn. The force-merged variant gets a copy of
          // each, merged to one segment: the graph a force-merge leaves depends on the segments it
          // merges, and one copy's recall ceiling ranged from 0.944 to 0.98 between runs.
          for (int i = 2; i <= ctx.profile.feeds(); i++) {
            String dir = plainVariant.label() + "-feed" + i;
            Session more =
                s.fed(ctx, corpus, plainVariant, server(ctx, corpus, plainVariant, dir), i);
            s.moreFeeds.computeIfAbsent(plainVariant, k -> new ArrayList<>()).add(more);
            if (merged) {
              String mergedDir = mergedVariant.label() + "-feed" + i;
              copyTree(ctx.dataDir(dir), ctx.dataDir(mergedDir));
              Session fm = server(ctx, corpus, mergedVariant, mergedDir);
              s.moreFeeds.computeIfAbsent(mergedVariant, k -> new ArrayList<>()).add(fm);
              s.forceMerge(ctx, mergedVariant, fm, i);
            }
          }
        }
      }
      for (Variant v : List.of(Variant.OPENSEARCH, Variant.OPENSEARCH_FORCEMERGED)) {
        if (variants.contains(v)) {
          Session os = s.fed(ctx, corpus, v, openSearch(ctx, v));
          s.sessions.put(v, os);
          if (v.forceMerged()) {
            s.forceMerge(ctx, v, os);
          }
          if (!v.forceMerged() || !variants.contains(Variant.OPENSEARCH)) {
            s.writers.put(v.label(), os);
          }
        }
      }
      for (Variant v : variants) {
        if (v.isTarget()) {
          ctx.progress.step(Phases.FEED, v.label() + ": target " + v.target().uri());
          Session t = s.fed(ctx, corpus, v, Session.target(v.target(), ctx.load, corpus.mapping()));
          s.sessions.put(v, t);
          s.writers.put(v.label(), t);
        }
      }
      for (Map.Entry<Variant, Session> e : s.sessions.entrySet()) {
        ctx.progress.step(Phases.AFTER_FLUSH, e.getKey().label() + ": JIT warm-up");
        e.getValue().warmUp(corpus.queries(), ProcedureRun.jitWarmup(ctx.profile));
        List<Session> more = s.moreFeeds.getOrDefault(e.getKey(), List.of());
        for (int i = 0; i < more.size(); i++) {
          ctx.progress.step(
              Phases.AFTER_FLUSH, e.getKey().label() + " feed " + (i + 2) + ": JIT warm-up");
          more.get(i).warmUp(corpus.queries(), ProcedureRun.jitWarmup(ctx.profile));
        }
      }
      return s;
    } catch (IOException | InterruptedException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /**
   * The serve flags of {@code v}'s searchlab server, wherever the runner starts one (first, after a
   * restart, in the merge-policy comparison): its store at the corpus's dimension, the variant's
   * vectors (and the 1-bit codes' inline rows) and the profile's feed niceness.
   */
  static ServerOptions optionsOf(RunContext ctx, Corpus corpus, Variant v) {
    return ServerOptions.defaults(v.store(), corpus.dimension()).toBuilder()
        .quantization(quantizationOf(ctx, v))
        .inlineCodes(v.equals(Variant.MUTABLE_BBQ_INLINE))
        .feedNiceness(ctx.profile.serverFeedNiceness())
        .build();
  }

  /**
   * Starts a searchlab server for {@code v} on the data directory (and log) named {@code dir}, with
   * the variant's vectors.
   */
  static Session server(RunContext ctx, Corpus corpus, Variant v, String dir)
      throws IOException, InterruptedException {
    Session s =
        Session.start(
            optionsOf(ctx, corpus, v),
            ctx.dataDir(dir),
            ctx.profile.heaps().of(v.store()),
            ctx.serverLog(dir),
            ctx.load,
            corpus.mapping());
    s.serverPid().ifPresent(pid -> ctx.memory.watch(dir, pid));
    return s;
  }

  /**
   * Starts a local OpenSearch cluster for {@code v}: {@link RunContext#openSearchNodes} nodes with
   * the servers' heap each, green before it returns; one replica of the shard on more than one
   * node.
   */
  private static Session openSearch(RunContext ctx, Variant v)
      throws IOException, InterruptedException {
    int nodes = ctx.openSearchNodes;
    ctx.progress.step(
        Phases.FEED,
        String.format(
            "%s: starting %d OpenSearch node(s), heap %s each",
            v.label(), nodes, ctx.profile.heaps().of(v.store())));
    long t0 = System.nanoTime();
    OpenSearchCluster cluster =
        OpenSearchCluster.start(
            OpenSearchConfig.builder().nodes(nodes).heap(ctx.profile.heaps().of(v.store())).build(),
            ctx.dataDir(v.label()),
            NodeClasspath.locate());
    ctx.progress.step(
        Phases.FEED,
        String.format(
            "%s: cluster %s green in %.0f s, pids %s",
            v.label(), cluster.clusterName(), (System.nanoTime() - t0) / 1e9, cluster.pids()));
    List<Long> pids = cluster.pids();
    for (int i = 0; i < pids.size(); i++) {
      ctx.memory.watch(pids.size() == 1 ? v.label() : v.label() + " node " + (i + 1), pids.get(i));
    }
    return Session.openSearch(cluster, nodes > 1 ? 1 : 0, ctx.load);
  }

  /**
   * The quantization a variant's mapping asks for: the profile's for searchlab's own servers,
   * floats for engines this run does not configure (OpenSearch, targets).
   */
  static org.searchlab.core.VectorQuantization quantizationOf(RunContext ctx, Variant v) {
    boolean own =
        v.store().equals(Variant.MUTABLE_STORE) || v.store().equals(Variant.SEGMENTED_STORE);
    if (!own) {
      return org.searchlab.core.VectorQuantization.NONE;
    }
    return v.quantization() != org.searchlab.core.VectorQuantization.NONE
        ? v.quantization()
        : ctx.profile.quantization();
  }

  /**
   * Creates the index on a started engine, feeds it 0→N with {@code feeder} and makes the feed
   * searchable and committed; {@code how} ends the progress line that announces the feed.
   */
  private static FeedStats createAndFeed(
      RunContext ctx, Corpus corpus, Variant v, Session s, String name, Feeder feeder, String how)
      throws IOException, InterruptedException {
    int status = s.admin.createIndex(corpus.dimension(), 16, 200, quantizationOf(ctx, v));
    ctx.progress.step(
        Phases.FEED, name + ": PUT /" + corpus.mapping().index() + " answered " + status);
    ctx.progress.step(Phases.FEED, name + ": feeding " + corpus.docs().size() + " docs" + how);
    FeedStats stats = feeder.feed(corpus.docs(), FeedOp.PUT, s.cpu).requireComplete(name);
    ctx.progress.fed(stats.docs(), stats.seconds());
    s.admin.refresh();
    s.admin.flush();
    return stats;
  }

  /** Creates the index on a started engine and feeds it 0→N; closes it when that fails. */
  private Session fed(RunContext ctx, Corpus corpus, Variant v, Session s)
      throws IOException, InterruptedException {
    return fed(ctx, corpus, v, s, 1);
  }

  /**
   * {@link #fed(RunContext, Corpus, Variant, Session)} for the {@code feed}-th independent feed of
   * {@code v}: the first is the variant's own (its segment count, feed row and bytes per vector); a
   * further one records only its segment count and says what it measured in the progress log.
   */
  private Session fed(RunContext ctx, Corpus corpus, Variant v, Session s, int feed)
      throws IOException, InterruptedException {
    String name = feed == 1 ? v.label() : v.label() + " feed " + feed;
    try {
      ctx.cpuSource(v.label(), s.cpu.source());
      FeedStats stats = createAndFeed(ctx, corpus, v, s, name, s.feeder(Feeder.ES_BATCH), "");
      // Merges the feed started go on in the background after its last write: the queries are
      // measured on the index they leave (and without their CPU), so wait for them, then make
      // their result searchable and committed (the force-merged copy starts from that commit).
      double merging = s.admin.awaitMerges(MERGE_SETTLE);
      if (merging > 0) {
        s.admin.refresh();
        s.admin.flush();
      }
      Integer n = s.admin.segments();
      if (merging >= 0) {
        ctx.progress.step(
            Phases.FEED,
            String.format(
                "%s: merges settled %.1f s after the feed, %s segments", name, merging, n));
      }
      if (feed > 1) {
        moreFeedSegments.computeIfAbsent(v, k -> new ArrayList<>()).add(n);
        ctx.progress.step(
            Phases.FEED, name + ": " + ProcedureRun.describe(stats) + ", segments " + n);
        return s;
      }
      segments.put(v, n);
      for (List<Variant> pair : SEGMENTED_PAIRS) {
        if (v == pair.get(1)) {
          segments.put(pair.get(0), n); // fed for the force-merged one: the plain structure
        }
      }
      ctx.add(Rows.feed(ctx.info, v.label(), Phases.FEED, n, null, stats));
      Map<String, Long> perVector = s.admin.vectorBytesPerVector();
      if (!perVector.isEmpty()) {
        ctx.vectorBytes(v.label(), perVector);
        ctx.progress.step(Phases.FEED, v.label() + ": bytes per vector " + perVector);
      }
      // The mutable store feeds with its graph build threads (serve --build-threads): say how
      // many, next to the feed rate they explain.
      Long buildThreads = s.admin.storeCounter("build_threads");
      Long feedNice = s.admin.storeCounter("feed_nice");
      ctx.progress.step(
          Phases.FEED,
          v.label()
              + ": "
              + ProcedureRun.describe(stats)
              + ", segments "
              + n
              + (buildThreads == null ? "" : ", build threads " + buildThreads)
              + (feedNice == null ? "" : ", write threads at nice " + feedNice));
      return s;
    } catch (IOException | InterruptedException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /**
   * Feeds {@code v}'s store 0→N once more, on a fresh server of its own, through {@code _bulk}
   * requests of {@link Feeder#ES_BATCH} documents from {@link Feeder#ES_THREADS} threads, with the
   * same pre-encoded bodies as the segmented variants' feed. The variant's own feed goes through
   * its dialect's client (Vespa's feed client, one HTTP/2 request per document), which runs on the
   * cores the server is measured on and takes several tenths of a core there; this feed measures
   * the store with the client the segmented store gets. Records {@link Phases#FEED_SAME_CLIENT},
   * then stops the server and deletes its index: nothing else runs on it.
   */
  private void fedSameClient(RunContext ctx, Corpus corpus, Variant v)
      throws IOException, InterruptedException {
    String dir = v.label() + "-same-client";
    String name = v.label() + " (same _bulk client)";
    Session s = server(ctx, corpus, v, dir);
    try {
      FeedStats stats =
          createAndFeed(
              ctx,
              corpus,
              v,
              s,
              name,
              s.bulkFeeder(Feeder.ES_BATCH),
              " through _bulk, as segmented is fed");
      Integer n = s.admin.segments();
      ctx.add(Rows.feed(ctx.info, v.label(), Phases.FEED_SAME_CLIENT, n, null, stats));
      ctx.progress.step(Phases.FEED, name + ": " + ProcedureRun.describe(stats));
    } finally {
      s.close();
    }
    ExperimentRunner.deleteData(ctx.dataDir(dir));
  }

  private void forceMerge(RunContext ctx, Variant v, Session s)
      throws IOException, InterruptedException {
    forceMerge(ctx, v, s, 1);
  }

  /**
   * Force-merges the copy of {@code v}'s {@code feed}-th feed to one segment; the first feed's also
   * records its bytes per vector.
   */
  private void forceMerge(RunContext ctx, Variant v, Session s, int feed)
      throws IOException, InterruptedException {
    String name = feed == 1 ? v.label() : v.label() + " feed " + feed;
    if (feed == 1) {
      ctx.cpuSource(v.label(), s.cpu.source());
    }
    ctx.progress.step(Phases.AFTER_MERGE, name + ": force-merging to 1 segment");
    long t0 = System.nanoTime();
    s.admin.forceMerge(1);
    s.admin.refresh();
    Integer n = s.admin.segments();
    ctx.progress.step(
        Phases.AFTER_MERGE,
        String.format(
            "%s: force-merged in %.1f s, segments %s", name, (System.nanoTime() - t0) / 1e9, n));
    if (feed > 1) {
      moreFeedSegments.computeIfAbsent(v, k -> new ArrayList<>()).add(n);
      return;
    }
    segments.put(v, n);
    // One merged graph and one file of each kind: the bytes differ from the fed index's.
    Map<String, Long> perVector = s.admin.vectorBytesPerVector();
    if (!perVector.isEmpty()) {
      ctx.vectorBytes(v.label(), perVector);
      ctx.progress.step(Phases.AFTER_MERGE, v.label() + ": bytes per vector " + perVector);
    }
  }

  /**
   * Engines started, fed and warmed up elsewhere (the merge-policy comparison), one feed each, for
   * the calibration and the paired rounds; {@link #close()} stops them.
   *
   * @param segments each variant's segment count when its queries start (null for mutable)
   */
  static Servers of(Map<Variant, Session> sessions, Map<Variant, Integer> segments) {
    Servers s = new Servers();
    s.sessions.putAll(sessions);
    s.segments.putAll(segments);
    return s;
  }

  /** The variants with an engine, in start order. */
  List<Variant> variants() {
    return new ArrayList<>(sessions.keySet());
  }

  /** The engine of a variant. */
  Session session(Variant v) {
    return sessions.get(v);
  }

  /** The segment count the variant's index had when its queries started (null for mutable). */
  Integer segments(Variant v) {
    return segments.get(v);
  }

  /** How many independent feeds of {@code v} serve queries: 1 unless {@link Profile#feeds()}. */
  int feeds(Variant v) {
    return 1 + moreFeeds.getOrDefault(v, List.of()).size();
  }

  /** The engine of {@code v}'s {@code i}-th feed, 0-based (0 is {@link #session}). */
  Session session(Variant v, int i) {
    return i == 0 ? sessions.get(v) : moreFeeds.get(v).get(i - 1);
  }

  /** The segment count of {@code v}'s {@code i}-th feed, 0-based. */
  Integer segments(Variant v, int i) {
    return i == 0 ? segments.get(v) : moreFeedSegments.get(v).get(i - 1);
  }

  /** The feed a round measures: rounds take the feeds in turn, round 1 the first. */
  int feedOfRound(Variant v, int round) {
    return (round - 1) % feeds(v);
  }

  /**
   * Stops the engines that only served queries (a force-merged copy or cluster beside its plain
   * variant: their writes are not part of the procedure) and returns the engines the write phases
   * run on, by variant label.
   */
  Map<String, Session> writers() {
    closeMoreFeeds();
    for (Variant v : List.copyOf(sessions.keySet())) {
      Session s = sessions.get(v);
      if (!writers.containsValue(s)) {
        s.close();
        sessions.remove(v);
      }
    }
    return writers;
  }

  private void closeMoreFeeds() {
    for (List<Session> more : moreFeeds.values()) {
      for (Session s : more) {
        s.close();
      }
    }
    moreFeeds.clear();
  }

  @Override
  public void close() {
    closeMoreFeeds();
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
