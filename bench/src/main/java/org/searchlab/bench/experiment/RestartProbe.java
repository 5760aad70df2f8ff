package org.searchlab.bench.experiment;

import java.io.IOException;
import java.lang.management.MemoryUsage;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.load.ProcessMemory;

/**
 * The restart and memory probe of one store at one size (design-68 §5.4): it times a restart and
 * checks the store's own memory accounting against the resident memory the kernel counts, in a JVM
 * whose heap shrinks to what is live.
 *
 * <ol>
 *   <li>SIGTERM the store's measurement server and time its exit (the mutable store writes its
 *       snapshot on the way);
 *   <li>start a probe server on the same directory with the same flags but {@link #PROBE_JVM_FLAGS}
 *       ({@code -Xms64m} and free ratios of 1–5%: after a full collection G1 gives back all but
 *       about 5% of the free heap) and, for the segmented store, {@code serve --preload} of {@link
 *       #PROBE_PRELOAD}, so that its index files are resident whatever the warm-up touched; time
 *       start → {@code /health} 200 → the first query answered, and read the store's {@code
 *       open_<phase>_ms} counters. The page cache holds the files from before (a warm restart);
 *   <li>warm it with {@link Settings#warmQueriesPerType} queries of each type (half filtered),
 *       collect the garbage over JMX ({@link ServerJmx#fullGc}) and take a {@link Reading}: {@code
 *       VmRSS}, {@code RssAnon}, {@code RssFile}, the resident bytes of mapped files by extension,
 *       the heap used and committed after the collection, the collector's own structures (native
 *       memory tracking's {@code GC} and {@code GCCardSet}), the store's parts ({@code
 *       memory_bytes}) and the bytes of the files it preloaded;
 *   <li>stop the probe (timed) and start the measurement server again with its own flags, timed as
 *       in step 2.
 * </ol>
 *
 * <p>The accounting check ({@link #check}) is a pure function of two readings of the same store, at
 * a base size and at a larger one: the growth of Σ parts + preloaded file bytes + the JVM's heap
 * overhead (the free heap it keeps committed and its collector's structures, both as the JVM
 * reports them, never derived from the resident set) against the growth of {@code VmRSS}, within
 * {@link #TOLERANCE}, judged only where the resident set grew by at least {@link
 * #NOISE_FLOOR_BYTES}: below that, the JIT's code cache, metaspace and thread stacks move it by
 * tens of MB, and the verdict is "below the noise floor". A heap store pays that overhead for every
 * byte it holds (about 9% of its growth at 1M documents), so it is part of what the store costs;
 * the verdict also gives the store's parts and files alone ({@link Verdict#storeOnlyGrowth}) so a
 * reader can see both.
 *
 * <p>A runner calls {@link #run} once per store and size and turns the {@link Result} into rows;
 * the {@link Outcome}'s session replaces the measurement server's. Stateless; not for concurrent
 * use on one store (it stops and starts that store's server).
 */
final class RestartProbe {
  /**
   * The probe JVM's flags after the server's own: a heap that shrinks to about what is live, and
   * native memory tracking, from which the reading takes the collector's own structures ({@link
   * Reading#gcStructuresBytes}).
   */
  public static final List<String> PROBE_JVM_FLAGS =
      List.of(
          "-Xms64m",
          "-XX:MinHeapFreeRatio=1",
          "-XX:MaxHeapFreeRatio=5",
          "-XX:NativeMemoryTracking=summary");

  /**
   * What the segmented probe preloads: every file of the index ({@code *}, as Elasticsearch's
   * {@code index.store.preload}), so that the files' bytes are what is resident of them, whichever
   * files the warm-up read. A subset (vectors, postings, norms, doc values) left the stored fields
   * that hits are fetched from outside the accounting but partly resident: 141 MB at 1M synthetic
   * documents, 8% of the check.
   */
  public static final Set<String> PROBE_PRELOAD = Set.of("*");

  /** The resident-set growth below which the check is not judged: 256 MiB. */
  public static final long NOISE_FLOOR_BYTES = 256L << 20;

  /** How far the accounting's growth may be from the resident set's, as a share of the latter. */
  public static final double TOLERANCE = 0.10;

  private RestartProbe() {}

  /**
   * How the probe runs. Immutable.
   *
   * @param warmQueriesPerType warm queries of each query type before the reading, ≥ 0 (design
   *     1,000): more touch more of the index before the reading
   * @param stopTimeout how long a server may take to exit after SIGTERM before the probe fails
   * @param probeJvmFlags the probe JVM's flags after the server's own ({@link #PROBE_JVM_FLAGS})
   * @param preload the segmented probe's {@code --preload} extensions ({@link #PROBE_PRELOAD})
   */
  public record Settings(
      int warmQueriesPerType,
      Duration stopTimeout,
      List<String> probeJvmFlags,
      Set<String> preload) {
    public Settings {
      if (warmQueriesPerType < 0) {
        throw new IllegalArgumentException(
            "warm queries per type must be ≥ 0; got " + warmQueriesPerType);
      }
      Objects.requireNonNull(stopTimeout, "stopTimeout");
      probeJvmFlags = List.copyOf(probeJvmFlags);
      preload = Set.copyOf(preload);
    }

    /** The design's probe: 1,000 warm queries per type, 10 minutes to stop. */
    public static Settings defaults() {
      return new Settings(1000, Duration.ofMinutes(10), PROBE_JVM_FLAGS, PROBE_PRELOAD);
    }
  }

  /**
   * How the measurement server runs, before the probe and again after it. Immutable.
   *
   * @param options its serve flags
   * @param dataDir its data directory, which the probe opens too
   * @param heap its {@code -Xmx}; the probe gets the same maximum
   * @param log its log; the probe logs beside it, to {@code <name>-probe.log}
   */
  public record Launch(ServerOptions options, Path dataDir, String heap, Path log) {
    public Launch {
      Objects.requireNonNull(options, "options");
      Objects.requireNonNull(dataDir, "dataDir");
      Objects.requireNonNull(heap, "heap");
      Objects.requireNonNull(log, "log");
    }

    Path probeLog() {
      String name = log.getFileName().toString().replaceFirst("\\.log$", "");
      return log.resolveSibling(name + "-probe.log");
    }
  }

  /**
   * One timed restart.
   *
   * @param close SIGTERM → exit of the server it replaced
   * @param toHealth start of the JVM → {@code /health} answered 200 (polled every 100 ms)
   * @param toFirstQuery {@code /health} 200 → the first query answered
   * @param openPhasesMs the store's {@code open_<phase>_ms} counters by phase, in ms
   */
  public record Restart(
      Duration close, Duration toHealth, Duration toFirstQuery, Map<String, Long> openPhasesMs) {
    public Restart {
      openPhasesMs = Map.copyOf(openPhasesMs);
    }

    /** Start → first query answered: the restart time a user waits for. */
    public Duration startToFirstQuery() {
      return toHealth.plus(toFirstQuery);
    }
  }

  /**
   * The probe server's memory after the warm-up and a full collection, in bytes.
   *
   * @param rss {@code VmRSS}
   * @param rssAnon {@code RssAnon}: heap, metaspace, code cache, stacks
   * @param rssFile {@code RssFile}: mapped files (the segmented store's index, the JDK's modules)
   * @param mappedByExtension resident bytes of mapped files by extension ({@code smaps})
   * @param heapUsedAfterGc the heap in use after the full collection (about what is live)
   * @param heapCommittedAfterGc the heap committed then, ≥ used
   * @param gcStructuresBytes the collector's own structures, committed (native memory tracking's
   *     {@code GC} and {@code GCCardSet}: marking bitmaps, card table, remembered sets), or -1
   *     where the JVM did not track them
   * @param parts the store's own accounting, {@code memory_bytes} of {@code /_admin/stats}
   * @param preloadedFileBytes the bytes of the index files of the preloaded extensions ({@code
   *     files_bytes_<ext>}), 0 for a store that maps none
   */
  public record Reading(
      long rss,
      long rssAnon,
      long rssFile,
      Map<String, Long> mappedByExtension,
      long heapUsedAfterGc,
      long heapCommittedAfterGc,
      long gcStructuresBytes,
      Map<String, Long> parts,
      long preloadedFileBytes) {
    public Reading {
      mappedByExtension = Map.copyOf(mappedByExtension);
      parts = Map.copyOf(parts);
    }

    /** Σ parts: what the store says it holds on the heap. */
    public long partsBytes() {
      return parts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Σ parts + preloaded file bytes: what the store's own accounting says it holds. */
    public long storeBytes() {
      return partsBytes() + preloadedFileBytes;
    }

    /**
     * What the JVM keeps beside the heap in use: the free heap it keeps committed after the
     * collection and, where tracked, the collector's structures.
     */
    public long heapOverheadBytes() {
      return heapCommittedAfterGc - heapUsedAfterGc + Math.max(0, gcStructuresBytes);
    }

    /** {@link #storeBytes} + {@link #heapOverheadBytes}: what should be resident. */
    public long accountedBytes() {
      return storeBytes() + heapOverheadBytes();
    }
  }

  /** The check's three answers. */
  public enum Judgement {
    /** The accounting's growth is within {@link #TOLERANCE} of the resident set's. */
    WITHIN,
    /** It is not. */
    OUTSIDE,
    /** The resident set grew by less than {@link #NOISE_FLOOR_BYTES}: not judged. */
    BELOW_NOISE_FLOOR
  }

  /**
   * The check of one size against a base.
   *
   * @param rssGrowth Δ{@code VmRSS}
   * @param accountedGrowth Δ(Σ parts + preloaded file bytes + heap overhead)
   * @param storeOnlyGrowth Δ(Σ parts + preloaded file bytes): the store's own accounting without
   *     the JVM's heap overhead
   */
  public record Verdict(
      Judgement judgement, long rssGrowth, long accountedGrowth, long storeOnlyGrowth) {
    /** (Δaccounted − ΔRSS) ÷ ΔRSS; NaN when the resident set did not grow. */
    public double relativeError() {
      return rssGrowth <= 0 ? Double.NaN : (accountedGrowth - rssGrowth) / (double) rssGrowth;
    }

    /** (Δstore-only − ΔRSS) ÷ ΔRSS: the error without the JVM's heap overhead. */
    public double storeOnlyRelativeError() {
      return rssGrowth <= 0 ? Double.NaN : (storeOnlyGrowth - rssGrowth) / (double) rssGrowth;
    }

    /**
     * As the report prints it, e.g. {@code within 10% (+1.9%): accounting +1021 MiB (store alone
     * +930 MiB, -7.2%), RSS +1002 MiB}.
     */
    public String describe() {
      String growth =
          String.format(
              Locale.ROOT,
              "accounting %+d MiB (store alone %+d MiB, %+.1f%%), RSS %+d MiB",
              accountedGrowth >> 20,
              storeOnlyGrowth >> 20,
              100 * storeOnlyRelativeError(),
              rssGrowth >> 20);
      return switch (judgement) {
        case WITHIN ->
            String.format(Locale.ROOT, "within 10%% (%+.1f%%): %s", 100 * relativeError(), growth);
        case OUTSIDE ->
            String.format(Locale.ROOT, "OUTSIDE 10%% (%+.1f%%): %s", 100 * relativeError(), growth);
        case BELOW_NOISE_FLOOR -> "below the noise floor (RSS growth < 256 MiB): " + growth;
      };
    }
  }

  /**
   * The accounting check of design-68 §5.4 step 4 between the readings of one store at a base size
   * (or an empty server with the same flags) and at a larger size.
   */
  public static Verdict check(Reading base, Reading size) {
    long rss = size.rss() - base.rss();
    long accounted = size.accountedBytes() - base.accountedBytes();
    long store = size.storeBytes() - base.storeBytes();
    if (rss < NOISE_FLOOR_BYTES) {
      return new Verdict(Judgement.BELOW_NOISE_FLOOR, rss, accounted, store);
    }
    boolean within = Math.abs(accounted - rss) <= TOLERANCE * rss;
    return new Verdict(within ? Judgement.WITHIN : Judgement.OUTSIDE, rss, accounted, store);
  }

  /**
   * One probe of one store at one size.
   *
   * @param store {@code mutable} or {@code segmented}
   * @param docs the documents the index held
   * @param probe the restart into the probe JVM ({@code close} is the measurement server's)
   * @param back the restart back into the measurement server ({@code close} is the probe's)
   * @param reading the probe's memory
   * @param preload the extensions the probe preloaded (empty for the mutable store)
   */
  public record Result(
      String store, long docs, Restart probe, Restart back, Reading reading, Set<String> preload) {
    public Result {
      preload = Set.copyOf(preload);
    }

    /** {@link #check} of this result against the same store's at a base size. */
    public Verdict against(Result base) {
      if (!base.store.equals(store)) {
        throw new IllegalArgumentException(
            "a " + store + " probe checked against a " + base.store + " one");
      }
      return check(base.reading, reading);
    }
  }

  /**
   * What {@link #run} leaves: its result, and the measurement server's new session, which replaces
   * the one the probe stopped.
   */
  public record Outcome(Result result, Session restarted) {}

  /**
   * Probes the store of {@code measured}, which must be a searchlab server this run started with
   * {@code launch}; returns with the measurement server running again (a new session: the old one
   * is stopped). When the probe fails, the measurement server is left stopped and the exception
   * says why.
   *
   * @param queries the warm-up's queries (cycled to {@link Settings#warmQueriesPerType}); the first
   *     one, as a vector query, is each restart's first query
   * @param docs the documents the index holds, for the result
   */
  public static Outcome run(
      Session measured,
      Launch launch,
      LoadGenerator load,
      List<BenchQuery> queries,
      long docs,
      Settings settings)
      throws IOException, InterruptedException {
    if (queries.isEmpty()) {
      throw new IllegalArgumentException("the probe needs at least one query");
    }
    String store = launch.options().store();
    boolean segmented = store.equals(Variant.SEGMENTED_STORE);
    BenchMapping mapping = measured.mapping();
    Duration close = measured.stop(settings.stopTimeout());
    ServerOptions probeOptions =
        segmented
            ? launch.options().toBuilder().preload(settings.preload()).build()
            : launch.options();
    Set<String> preloaded = segmented ? settings.preload() : Set.of();
    Reading reading;
    Restart probeRestart;
    Duration probeClose;
    long t0 = System.nanoTime();
    Session probe =
        Session.start(
            probeOptions,
            launch.dataDir(),
            launch.heap(),
            launch.probeLog(),
            load,
            mapping,
            settings.probeJvmFlags());
    try {
      probeRestart = timedFirstQuery(probe, close, System.nanoTime() - t0, queries.get(0));
      warm(probe, queries, settings.warmQueriesPerType());
      reading = read(probe, preloaded);
      probeClose = probe.stop(settings.stopTimeout());
    } catch (IOException | InterruptedException | RuntimeException e) {
      probe.close();
      throw e;
    }
    long t1 = System.nanoTime();
    Session back =
        Session.start(
            launch.options(), launch.dataDir(), launch.heap(), launch.log(), load, mapping);
    try {
      Restart backRestart =
          timedFirstQuery(back, probeClose, System.nanoTime() - t1, queries.get(0));
      return new Outcome(
          new Result(store, docs, probeRestart, backRestart, reading, preloaded), back);
    } catch (IOException | InterruptedException | RuntimeException e) {
      back.close();
      throw e;
    }
  }

  /**
   * The launch of {@code v}'s searchlab server as the runner starts it ({@code Servers}): serve
   * flags of its store, the corpus's dimension and the variant's vectors; data directory and log
   * named after the variant; the profile's heap for its store.
   */
  static Launch launchOf(RunContext ctx, Corpus corpus, Variant v) throws IOException {
    return new Launch(
        Servers.optionsOf(ctx, corpus, v),
        ctx.dataDir(v.label()),
        ctx.profile.heaps().of(v.store()),
        ctx.serverLog(v.label()));
  }

  /**
   * Completes a restart's timing: the first query (an unfiltered vector query) is sent as soon as
   * the server is healthy, then the open phases are read.
   */
  private static Restart timedFirstQuery(
      Session s, Duration close, long toHealthNanos, BenchQuery first)
      throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    s.ids(s.requests(List.of(first), QueryType.VECTOR, false));
    Duration toFirstQuery = Duration.ofNanos(System.nanoTime() - t0);
    Map<String, Long> phases = new TreeMap<>();
    s.admin
        .adminSection("counters")
        .forEach(
            (name, ms) -> {
              if (name.startsWith("open_") && name.endsWith("_ms")) {
                phases.put(name.substring(5, name.length() - 3), ms);
              }
            });
    return new Restart(close, Duration.ofNanos(toHealthNanos), toFirstQuery, phases);
  }

  /** {@code perType} queries of each type, every other one filtered; any error fails the probe. */
  private static void warm(Session s, List<BenchQuery> queries, int perType)
      throws IOException, InterruptedException {
    for (QueryType t : QueryType.values()) {
      List<HttpRequest> plain = s.requests(queries, t, false);
      List<HttpRequest> filtered = s.requests(queries, t, true);
      List<HttpRequest> batch = new ArrayList<>(perType);
      for (int i = 0; i < perType; i++) {
        List<HttpRequest> from = i % 2 == 0 ? plain : filtered;
        batch.add(from.get((i / 2) % from.size()));
      }
      s.ids(batch);
    }
  }

  /** Collects the garbage over JMX, then reads the process and the store's accounting. */
  private static Reading read(Session s, Set<String> preloaded)
      throws IOException, InterruptedException {
    long pid =
        s.serverPid().orElseThrow(() -> new IllegalStateException("the probe has no process"));
    MemoryUsage heap;
    long gcStructures;
    try (ServerJmx jmx = ServerJmx.connect(pid)) {
      heap = jmx.fullGc();
      gcStructures = jmx.gcStructuresBytes();
    }
    ProcessMemory memory = new ProcessMemory(pid);
    ProcessMemory.Reading r = memory.read();
    Map<String, Long> mapped = memory.mappedByExtension();
    Map<String, Long> counters = s.admin.adminSection("counters");
    long preloadedBytes = 0;
    for (Map.Entry<String, Long> e : counters.entrySet()) {
      String prefix = "files_bytes_";
      if (e.getKey().startsWith(prefix)) {
        String ext = e.getKey().substring(prefix.length());
        if (preloaded.contains(ext) || preloaded.contains("*")) {
          preloadedBytes += e.getValue();
        }
      }
    }
    return new Reading(
        r.rss(),
        r.anonymous(),
        r.file(),
        mapped,
        heap.getUsed(),
        heap.getCommitted(),
        gcStructures,
        s.admin.adminSection("memory_bytes"),
        preloadedBytes);
  }
}
