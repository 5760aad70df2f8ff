// Over 800 lines: one record of 39 components, its builder (a setter per component) and the
// built-in profiles, each component documented where it is declared and checked in the
// constructor; moving the builder or the profiles out would part each from the components it sets.
package org.searchlab.bench.experiment;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.searchlab.core.VectorQuantization;
import org.searchlab.segmented.Slicing;

/**
 * The size and timing of one experiment run. Built-in profiles: {@code quick} (tests, ≤ 5 min on 2
 * cores), {@code standard} (the default, 30–65 min on 2 cores before the sweep's longer warm-ups,
 * about 20 more with them), {@code full} (the benchmark's 1M documents in at most 3 hours, what it
 * keeps and drops of the benchmark's procedure in {@link #full()}), {@code scale} (the cost-growth
 * run at 100k, 300k and 1M documents, {@link #scale()}), {@code grid} (the HNSW parameter grid
 * only) and {@code sweep} (the segment-count sweep only). Immutable; build one with {@link
 * #builder()} or change one with {@link #toBuilder()}.
 *
 * @param name the profile's name, recorded in every row
 * @param docs documents fed to each variant; more makes the segmented variant have more segments
 * @param dimension embedding dimension (384 in the benchmark)
 * @param clients client counts of the query phases (the benchmark: 1 … 64)
 * @param refeedClients client counts of the refeed-under-queries phase (the benchmark: 1, 16, 64)
 * @param warmup unrecorded load before each query cell; longer is steadier and slower
 * @param duration measured window of each query cell (the benchmark: 20 s); longer is steadier
 * @param refeedDuration measured window of each cell of the refeed-under-queries phase, and of the
 *     same cell measured just before the refeed starts, which is its baseline, in each of {@code
 *     refeedRounds} rounds (null in the builder: as {@code duration})
 * @param queryCount distinct queries cycled through by the load generator
 * @param recallQueries queries whose top-10 is compared against exact search and between variants
 * @param sweepDocs documents of the segment-count sweep index (0 skips the sweep)
 * @param sweepSegments segment counts the sweep force-merges down through, descending
 * @param sweepClients client counts of the sweep
 * @param sweepDuration measured window of each sweep cell
 * @param sweepRounds rounds of the sweep, 1 or more: each round starts the servers of every segment
 *     count afresh and measures each of its cells once per setting ({@link SegmentSweep}); 6 or
 *     more give the medians a 95% interval, each costs a server start and a JIT warm-up per segment
 *     count and setting
 * @param sweepSlicings the slicings of the sweep's concurrent settings ({@code serve --slicing}),
 *     each a server of its own beside the sequential one; at least one
 * @param sweepWarmupLimit the longest a fresh sweep server warms its JIT on one query type before
 *     that type's cells are measured ({@link WarmupRule}): most warm-ups stop earlier, when the
 *     server's CPU per query has stopped falling; zero or more
 * @param gridDocs documents of the HNSW grid index (0 skips the grid)
 * @param serverHeap the server JVM's -Xmx, e.g. {@code 2g}
 * @param mainPhases whether to run the benchmark procedure (false for the grid-only profile)
 * @param rounds paired rounds of the query cells (1 or more); more narrows the intervals, each
 *     round costs one cell per variant, query type, filter setting and client count
 * @param recallTargets recall@10 targets the vector and hybrid cells are calibrated to, the first
 *     one the headline (each further target repeats the vector and hybrid cells)
 * @param calibrationQueries queries of the calibration set (disjoint from the measured ones)
 * @param fixedCandidates whether to skip the choice and send the benchmark's literal {@code k =
 *     num_candidates = 100} (the calibration grid still runs, for the recall/QPS curves)
 * @param quantization the vectors of searchlab's stores in the main phases: {@code none} (floats,
 *     the default and the benchmark's setting) or {@code int8} ({@code serve --quantization int8},
 *     Elasticsearch {@code int8_hnsw}); the grid and the segment sweep keep floats
 * @param feeds independent feeds of each default (not force-merged) segmented variant, 1 or more:
 *     the segment structure a feed leaves depends on when the 1 s refreshes and the background
 *     merges happen (11 to 21 segments for the same 100k documents on one machine), and the query
 *     cost with it, so one feed makes a ratio against that index reproducible only within its
 *     structure. With N feeds the paired rounds take the N indexes in turn (round r measures feed
 *     (r - 1) mod N), and the intervals over rounds include the variation between feeds. Each feed
 *     costs its feed time, a server and a JIT warm-up. The force-merged variant gets a copy of each
 *     feed, merged to one segment (the graph a force-merge leaves depends on the segments it
 *     merges), which costs the merge and a server more per feed. Each feed of either variant runs
 *     at its own beam: from the calibrated one, along the grid to the smallest at which its
 *     measured queries reach the target. The write phases and the calibration curve use the first
 *     feed.
 * @param refeedClientNiceness how much the runner's own feed client yields the cores during the
 *     refeed under queries, 0.0 to 1.0 as the stores' feed niceness (Linux nice {@code round(19 ×
 *     niceness)}, its threads only): the benchmark ran its feed client on a machine of 62 cores,
 *     where it took a negligible share; on two shared cores at nice 0 it takes a third to half of
 *     one from the server and the query clients, which measured as most of a store's query slowdown
 *     at 1 client (docs/benchmark.md). Default 1.0, so that the cells during the refeed measure
 *     what the store's own writes do to its queries; 0.0 lets the client compete as any thread.
 * @param serverFeedNiceness the searchlab servers' feed niceness ({@code serve --feed-niceness},
 *     0.0–1.0), or {@code null}, the default, for each store's own (the mutable store's writes at
 *     Linux nice 19, as Vespa's {@code feeding.niceness}; the segmented store's at 0, as
 *     Elasticsearch's). A nice writer takes only the cores nothing else wants, so on a machine that
 *     runs something besides the experiment (a second test JVM) its feeds wait; 0.0 puts both
 *     stores' writes level with every other thread.
 * @param refeedRounds rounds of the refeed-under-queries phase, 1 or more: each measures every cell
 *     before the refeed, starts the refeed, measures every cell during it and stops it, and each
 *     cell's row pools its latencies over the rounds (default 1). Alternating the two sides keeps a
 *     drift of the machine out of their ratio, and pooling gives the p99 more queries: at 1 client
 *     it rests on the 1% slowest, which is where a shared machine's rare stalls of a few
 *     milliseconds fall (docs/benchmark.md)
 * @param vectorBeams the calibration grid's vector beams ({@code num_candidates}, Vespa {@code
 *     targetHits + exploreAdditionalHits}), strictly ascending, 1 to {@value #MAX_BEAM}; each costs
 *     a recall check per variant and a timed curve cell (default {@link Calibration#VECTOR_GRID}).
 *     A finer grid puts the calibrated beam closer to the target; one reaching higher serves a
 *     target the default's 400 does not reach
 * @param facetClientCounts client counts of the faceted cells ({@link FacetedRounds}): 0 for every
 *     one of {@code clients}, n for the largest n of them (the quick profile's 1 keeps its cells
 *     within its budget); the profile of where faceting time goes runs at the largest
 * @param facets whether the faceted cells run ({@link FacetedRounds}): their oracle check scans
 *     every match of the lexical query, 10.6 min at 100k documents and about ten times that at 1M,
 *     so the {@code full} profile leaves them out
 * @param writeDocs documents the write phases refeed, update and refeed under queries: the first
 *     {@code writeDocs} of the corpus, 0 for all of them (the benchmark's); fewer shortens the
 *     write phases in proportion, and the rates they measure are per document all the same
 * @param sameClientFeed whether the mutable store is fed a second time through the segmented
 *     store's {@code _bulk} client ({@link Phases#FEED_SAME_CLIENT}) when a float segmented variant
 *     runs beside it; each costs a feed and a second mutable server
 * @param hybridBeams the calibration grid's hybrid beams, all with {@code k = 100}: strictly
 *     ascending, 100 to {@value #MAX_BEAM} (default {@link Calibration#HYBRID_GRID}); each costs a
 *     recall check per variant and a timed curve cell
 * @param scaleSizes the document counts of a scale run ({@code --scale}), strictly ascending, each
 *     {@value #MIN_SCALE_SIZE} or more; empty for none, else at least two
 * @param scaleClients the client count of a scale run's cells, 1 or more (default 16, the headline)
 * @param scaleTypes the query types a scale run measures, at least one (default all three)
 * @param heaps the heap of each store's server in the main phases (null in the builder: {@code
 *     serverHeap} for every store)
 */
public record Profile(
    String name,
    int docs,
    int dimension,
    List<Integer> clients,
    List<Integer> refeedClients,
    Duration warmup,
    Duration duration,
    Duration refeedDuration,
    int queryCount,
    int recallQueries,
    int sweepDocs,
    List<Integer> sweepSegments,
    List<Integer> sweepClients,
    Duration sweepDuration,
    int sweepRounds,
    List<Slicing> sweepSlicings,
    Duration sweepWarmupLimit,
    int gridDocs,
    String serverHeap,
    boolean mainPhases,
    int rounds,
    List<Double> recallTargets,
    int calibrationQueries,
    boolean fixedCandidates,
    VectorQuantization quantization,
    int feeds,
    double refeedClientNiceness,
    Double serverFeedNiceness,
    int refeedRounds,
    List<Integer> vectorBeams,
    int facetClientCounts,
    boolean facets,
    int writeDocs,
    boolean sameClientFeed,
    List<Integer> hybridBeams,
    List<Integer> scaleSizes,
    int scaleClients,
    List<QueryType> scaleTypes,
    ServerHeaps heaps) {

  /** The largest vector beam of the grid: Elasticsearch's limit of {@code num_candidates}. */
  public static final int MAX_BEAM = 10_000;

  /** The smallest document count of a scale run's sizes. */
  public static final int MIN_SCALE_SIZE = 1_000;

  public Profile {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(warmup, "warmup");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(refeedDuration, "refeedDuration");
    Objects.requireNonNull(quantization, "quantization");
    Objects.requireNonNull(sweepDuration, "sweepDuration");
    Objects.requireNonNull(sweepWarmupLimit, "sweepWarmupLimit");
    if (sweepWarmupLimit.isNegative()) {
      throw new IllegalArgumentException(
          "the sweep's warm-up limit must be zero or more; got " + sweepWarmupLimit);
    }
    Objects.requireNonNull(serverHeap, "serverHeap");
    clients = List.copyOf(clients);
    refeedClients = List.copyOf(refeedClients);
    sweepSegments = List.copyOf(sweepSegments);
    sweepClients = List.copyOf(sweepClients);
    sweepSlicings = List.copyOf(sweepSlicings);
    for (int i = 0; i < sweepSegments.size(); i++) {
      int n = sweepSegments.get(i);
      if (n < 1 || (i > 0 && n >= sweepSegments.get(i - 1))) {
        throw new IllegalArgumentException(
            "sweep segment counts must be 1 or more and strictly descending; got " + sweepSegments);
      }
    }
    if (sweepRounds < 1) {
      throw new IllegalArgumentException("sweep rounds must be 1 or more; got " + sweepRounds);
    }
    if (sweepSlicings.isEmpty() || sweepSlicings.size() != Set.copyOf(sweepSlicings).size()) {
      throw new IllegalArgumentException(
          "the sweep needs one or more distinct slicings; got "
              + sweepSlicings.stream().map(Slicing::cliName).toList());
    }
    recallTargets = List.copyOf(recallTargets);
    for (double t : recallTargets) {
      if (!(t > 0 && t <= 1)) {
        throw new IllegalArgumentException("a recall target must be in (0, 1]; got " + t);
      }
    }
    if (mainPhases && rounds < 1) {
      throw new IllegalArgumentException("rounds must be 1 or more; got " + rounds);
    }
    if (feeds < 1) {
      throw new IllegalArgumentException("feeds must be 1 or more; got " + feeds);
    }
    if (!(refeedClientNiceness >= 0 && refeedClientNiceness <= 1)) {
      throw new IllegalArgumentException(
          "the refeed client's niceness must be within 0.0 and 1.0; got " + refeedClientNiceness);
    }
    if (serverFeedNiceness != null && !(serverFeedNiceness >= 0 && serverFeedNiceness <= 1)) {
      throw new IllegalArgumentException(
          "the servers' feed niceness must be within 0.0 and 1.0; got " + serverFeedNiceness);
    }
    if (refeedRounds < 1) {
      throw new IllegalArgumentException("refeed rounds must be 1 or more; got " + refeedRounds);
    }
    vectorBeams = List.copyOf(vectorBeams);
    checkBeams("vector", vectorBeams, 1);
    if (facetClientCounts < 0) {
      throw new IllegalArgumentException(
          "faceted client counts must be 0 (all) or more; got " + facetClientCounts);
    }
    hybridBeams = List.copyOf(hybridBeams);
    checkBeams("hybrid", hybridBeams, ExactSearch.VECTOR_K);
    if (writeDocs < 0) {
      throw new IllegalArgumentException(
          "write documents must be 0 (all) or more; got " + writeDocs);
    }
    scaleSizes = List.copyOf(scaleSizes);
    if (scaleSizes.size() == 1) {
      throw new IllegalArgumentException(
          "a scale run needs at least two sizes to fit a slope; got " + scaleSizes);
    }
    for (int i = 0; i < scaleSizes.size(); i++) {
      int n = scaleSizes.get(i);
      if (n < MIN_SCALE_SIZE) {
        throw new IllegalArgumentException(
            "a scale size must be " + MIN_SCALE_SIZE + " documents or more; got " + n);
      }
      if (i > 0 && n <= scaleSizes.get(i - 1)) {
        throw new IllegalArgumentException(
            "scale sizes must be strictly ascending; got " + n + " after " + scaleSizes.get(i - 1));
      }
    }
    if (scaleClients < 1) {
      throw new IllegalArgumentException("scale clients must be 1 or more; got " + scaleClients);
    }
    scaleTypes = List.copyOf(scaleTypes);
    if (scaleTypes.isEmpty() || scaleTypes.size() != Set.copyOf(scaleTypes).size()) {
      throw new IllegalArgumentException(
          "a scale run needs one or more distinct query types; got " + scaleTypes);
    }
    Objects.requireNonNull(heaps, "heaps");
    if (mainPhases && recallTargets.isEmpty() && !fixedCandidates) {
      throw new IllegalArgumentException("a profile needs a recall target or fixed candidates");
    }
  }

  /**
   * Checks a calibration grid: not empty, strictly ascending, each beam within {@code min} and
   * {@value #MAX_BEAM}.
   */
  private static void checkBeams(String kind, List<Integer> beams, int min) {
    if (beams.isEmpty()) {
      throw new IllegalArgumentException(
          "the calibration grid needs at least one " + kind + " beam");
    }
    for (int i = 0; i < beams.size(); i++) {
      int beam = beams.get(i);
      if (beam < min || beam > MAX_BEAM) {
        throw new IllegalArgumentException(
            "a " + kind + " beam must be within " + min + " and " + MAX_BEAM + "; got " + beam);
      }
      if (i > 0 && beam <= beams.get(i - 1)) {
        throw new IllegalArgumentException(
            kind + " beams must be strictly ascending; got " + beam + " after " + beams.get(i - 1));
      }
    }
  }

  /**
   * The documents the write phases rewrite out of a corpus of {@code corpusDocs}: {@link
   * #writeDocs}, or all of them when that is 0 or more than the corpus.
   */
  public int writeDocsOf(int corpusDocs) {
    return writeDocs == 0 ? corpusDocs : Math.min(writeDocs, corpusDocs);
  }

  /** The client counts of the faceted cells, ascending: {@link #facetClientCounts} of them. */
  public List<Integer> facetClients() {
    List<Integer> all = clients.stream().sorted().toList();
    return facetClientCounts == 0 || facetClientCounts >= all.size()
        ? all
        : all.subList(all.size() - facetClientCounts, all.size());
  }

  /** The default {@link #refeedClientNiceness}: the nicest, Linux nice 19. */
  public static final double DEFAULT_REFEED_CLIENT_NICENESS = 1.0;

  /** The default recall@10 target of the calibrated cells. */
  public static final double DEFAULT_RECALL_TARGET = 0.95;

  private static final List<Integer> SWEEP_SEGMENTS = List.of(100, 50, 20, 10, 5, 2, 1);

  /** At most 5 minutes on 2 cores: a small corpus, 2 client counts, 3 rounds of 0.8 s cells. */
  public static Profile quick() {
    return builder()
        .name("quick")
        .docs(4_000)
        .dimension(384)
        .clients(List.of(1, 16))
        .refeedClients(List.of(1, 16))
        .warmup(Duration.ofMillis(200))
        .duration(Duration.ofMillis(600))
        .queryCount(200)
        .recallQueries(40)
        .rounds(3)
        .calibrationQueries(40)
        .sweepDocs(2_000)
        .sweepSegments(List.of(10, 1))
        .sweepClients(List.of(1, 16))
        .sweepDuration(Duration.ofMillis(400))
        .sweepWarmupLimit(Duration.ofSeconds(8))
        .sweepRounds(2)
        .facetClientCounts(1)
        .gridDocs(0)
        .serverHeap("1g")
        .mainPhases(true)
        .build();
  }

  /**
   * The default: 100k documents (tens of segments in the segmented variant), 4 of the benchmark's
   * client counts (1, 4, 16, 64) in 6 paired rounds of 0.2 s warm-up + 0.9 s cells (72 cells a
   * round, ~11 min with the recall checks at the rounds' beams), the calibration grid (~6.5 min
   * with its curve cells), and a sweep over 100, 10 and 1 segments on 30k docs in 3 rounds of 1 s
   * cells (~30 min with its servers' warm-ups, estimated from the sweep profile's measured ones; ~8
   * min before the warm-ups lasted until the JIT was done; the whole sweep is {@link #sweep()});
   * the rest is feeds, merges and server starts (30.4 and 29.7 min in all on 2 cores, 2026-11-28,
   * with the shorter warm-ups). The default segmented index is fed three times, each feed on its
   * own server, and the rounds take the three in turn: on one machine the same feed left it with 11
   * to 21 segments, and one feed made its ratios move by up to 30% between runs while their
   * intervals were a few percent wide. Recall is measured on 1,000 of the measured queries and
   * calibrated on 1,000 others: with 200 each, a force-merged graph's recall@10 differed by 0.03
   * between the two sets, and the beam chosen for it moved from 40 to 400 between two runs. The
   * benchmark's 7 client counts and 20 s cells are options of the {@code full} profile. Since
   * 2026-12-02 the refeed under queries alternates its 3-second cells over three refeed rounds,
   * about 3 minutes per store (38.0 min in all on 2 cores).
   */
  public static Profile standard() {
    return builder()
        .name("standard")
        .docs(100_000)
        .dimension(384)
        .clients(List.of(1, 4, 16, 64))
        .refeedClients(List.of(1, 16, 64))
        .warmup(Duration.ofMillis(200))
        .duration(Duration.ofMillis(900))
        // 3 s cells give the p99 a few thousand queries at 1 client where 0.9 s gave it a few
        // hundred (its third-slowest query); three rounds of them, alternating before and during,
        // pool about ten thousand per side.
        .refeedDuration(Duration.ofSeconds(3))
        .refeedRounds(3)
        .queryCount(2_000)
        .recallQueries(1_000)
        .rounds(6)
        .calibrationQueries(1_000)
        .sweepDocs(30_000)
        // The sweep's ends and middle in 3 rounds (the whole sweep is the sweep profile): the
        // 100 ÷ 1 segments ratio with a [min, max] interval of its per-round ratios.
        .sweepSegments(List.of(100, 10, 1))
        .sweepClients(List.of(1, 16))
        .sweepDuration(Duration.ofMillis(1_000))
        .sweepRounds(3)
        .gridDocs(0)
        .serverHeap("3g")
        .mainPhases(true)
        .feeds(3)
        .build();
  }

  /**
   * The benchmark's scale in one sitting (design-68 §2.1): 1M documents, all three variants up
   * together, in at most 3 hours on 2 cores (corpus build excluded; estimated 94 min nominal, 139
   * pessimistic). It keeps the benchmark's feed, force-merge, write phases and its 16-client
   * comparison, at recall@10 0.95, with paired rounds for the intervals. It drops what does not
   * change that answer or does not fit 24 GiB: client counts 2, 8 and 32 (points on the curve, not
   * answers), the 20 s cells (6 rounds of 0.5 s + 2 s: a 16-client cell still sees thousands of
   * queries), the 0.99 target (it doubles the vector and hybrid cells), the faceted cells (their
   * oracle check scans every match, about 100 min at 1M), the sweep (a profile of its own), the
   * second and third segmented feeds and the same-client mutable feed (each a further server of 4–7
   * GiB), and it rewrites the first 200,000 documents rather than all 1M. Vector beams reach 3,200:
   * at 100k Lucene's merged graph already stopped at 0.94–0.98 at 400, and at 1M it was at 0.913 at
   * 800. Heaps per store (mutable 6g: its live set after mixed collections at 1M was 3.9–4.0 GB;
   * the segmented servers 2g beside their mapped index). As designed it did not fit 24 GiB on that
   * attempt: the two segmented indexes' mapped files (4.8 GB each) page-faulted beside the mutable
   * server and the 6 GB runner (bench/README.md). The literal procedure stays reachable with {@code
   * --clients 1,2,4,8,16,32,64 --duration 20 --warmup 5 --rounds 7 --write-docs 0}, but neither
   * fits 3 hours nor 24 GiB.
   */
  public static Profile full() {
    return builder()
        .name("full")
        .docs(1_000_000)
        .dimension(384)
        .clients(List.of(1, 4, 16, 64))
        .refeedClients(List.of(1, 16, 64))
        .warmup(Duration.ofMillis(500))
        .duration(Duration.ofSeconds(2))
        .refeedDuration(Duration.ofSeconds(3))
        .queryCount(2_000)
        .recallQueries(500)
        .rounds(6)
        .recallTargets(List.of(DEFAULT_RECALL_TARGET))
        .calibrationQueries(500)
        .vectorBeams(FULL_VECTOR_BEAMS)
        .sweepDocs(0)
        .sweepSegments(SWEEP_SEGMENTS)
        .sweepClients(List.of(1, 4, 16))
        .sweepDuration(Duration.ofSeconds(10))
        .sweepRounds(6)
        .gridDocs(0)
        // OpenSearch maps its index as the segmented store does: the same heap.
        .serverHeap("2g")
        .heaps(new ServerHeaps("6g", "2g", "2g"))
        .mainPhases(true)
        .feeds(1)
        .sameClientFeed(false)
        .facets(false)
        .writeDocs(200_000)
        .build();
  }

  /**
   * The cost-growth run (design-68 §4.1): {@code standard}'s settings at 100k, 300k and 1M
   * documents, each store grown through the sizes on the same servers ({@code ScaleRun}), measured
   * at 16 clients in 6 paired rounds of 0.5 s warm-up + 2 s cells at recall@10 0.95, calibrated
   * again at every size on the vector beams of {@code full} (the beams grow with N). No faceted
   * cells, no write phases, no sweep, one feed of the segmented index; the heaps of {@code full},
   * which the largest size needs.
   */
  public static Profile scale() {
    return standard().toBuilder()
        .name("scale")
        .docs(1_000_000)
        .clients(List.of(16))
        .warmup(Duration.ofMillis(500))
        .duration(Duration.ofSeconds(2))
        .recallQueries(500)
        .calibrationQueries(500)
        .recallTargets(List.of(DEFAULT_RECALL_TARGET))
        .vectorBeams(FULL_VECTOR_BEAMS)
        .sweepDocs(0)
        .feeds(1)
        .facets(false)
        .sameClientFeed(false)
        .serverHeap("2g")
        .heaps(new ServerHeaps("6g", "2g", "2g"))
        .scaleSizes(List.of(100_000, 300_000, 1_000_000))
        .scaleClients(16)
        .build();
  }

  /**
   * The vector beams of {@code full}: at 1M documents the calibrated beams move up. The first 1M
   * attempt (2026-12-06, the grown Debian corpus) had the force-merged segment at recall@10 0.913
   * at 800, the default index (32 segments) at 0.949, so the grid goes on to 3,200.
   */
  static final List<Integer> FULL_VECTOR_BEAMS =
      List.of(10, 20, 30, 40, 60, 100, 150, 200, 300, 400, 600, 800, 1200, 1600, 2400, 3200);

  /**
   * Only the segment-count sweep, done properly (issue 71): 30k documents in segments of tiered
   * sizes, force-merged down through 100 … 1 segments, every cell (filtered vector, lexical, hybrid
   * and faceted queries at 1, 4 and 16 clients, sequential and concurrent segment search) in 6
   * rounds of 0.2 s warm-up + 1 s cells, so that each median has a 95% interval, vector and hybrid
   * at recall@10 0.95 per segment count. Its measured time is in bench/README.md.
   */
  public static Profile sweep() {
    return standard().toBuilder()
        .name("sweep")
        .docs(30_000)
        .mainPhases(false)
        .sweepSegments(SWEEP_SEGMENTS)
        .sweepClients(List.of(1, 4, 16))
        .sweepRounds(6)
        .build();
  }

  /** Only the HNSW parameter grid (DocArray's): 20k docs, each (M, efConstruction) built once. */
  public static Profile grid() {
    return builder()
        .name("grid")
        .docs(0)
        .dimension(384)
        .clients(List.of(1))
        .refeedClients(List.of())
        .warmup(Duration.ofMillis(500))
        .duration(Duration.ofSeconds(2))
        .queryCount(500)
        .recallQueries(200)
        .sweepDocs(0)
        .sweepSegments(List.of())
        .sweepClients(List.of())
        .sweepDuration(Duration.ZERO)
        .gridDocs(20_000)
        .serverHeap("2g")
        .mainPhases(false)
        .build();
  }

  /** A built-in profile by name. */
  public static Profile named(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "quick" -> quick();
      case "standard" -> standard();
      case "full" -> full();
      case "grid" -> grid();
      case "sweep" -> sweep();
      case "scale" -> scale();
      default ->
          throw new IllegalArgumentException(
              "unknown profile '" + name + "'; use quick, standard, full, scale, grid or sweep");
    };
  }

  /** An empty builder: name and server heap must be set; lists start empty, durations zero. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder preloaded with this profile's values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.name = name;
    b.docs = docs;
    b.dimension = dimension;
    b.clients = clients;
    b.refeedClients = refeedClients;
    b.warmup = warmup;
    b.duration = duration;
    b.refeedDuration = refeedDuration;
    b.queryCount = queryCount;
    b.recallQueries = recallQueries;
    b.sweepDocs = sweepDocs;
    b.sweepSegments = sweepSegments;
    b.sweepClients = sweepClients;
    b.sweepDuration = sweepDuration;
    b.sweepRounds = sweepRounds;
    b.sweepSlicings = sweepSlicings;
    b.sweepWarmupLimit = sweepWarmupLimit;
    b.gridDocs = gridDocs;
    b.serverHeap = serverHeap;
    b.mainPhases = mainPhases;
    b.rounds = rounds;
    b.recallTargets = recallTargets;
    b.calibrationQueries = calibrationQueries;
    b.fixedCandidates = fixedCandidates;
    b.quantization = quantization;
    b.feeds = feeds;
    b.refeedClientNiceness = refeedClientNiceness;
    b.serverFeedNiceness = serverFeedNiceness;
    b.refeedRounds = refeedRounds;
    b.facetClientCounts = facetClientCounts;
    b.vectorBeams = vectorBeams;
    b.facets = facets;
    b.writeDocs = writeDocs;
    b.sameClientFeed = sameClientFeed;
    b.hybridBeams = hybridBeams;
    b.scaleSizes = scaleSizes;
    b.scaleClients = scaleClients;
    b.scaleTypes = scaleTypes;
    // A uniform heap equal to the server heap is the default, which follows serverHeap(v).
    b.heaps = heaps.isUniform() && heaps.mutable().equals(serverHeap) ? null : heaps;
    return b;
  }

  /**
   * Builds a {@link Profile}, one setter per component; {@link #build()} runs the record's
   * validation. Not thread-safe.
   */
  public static final class Builder {
    private String name;
    private int docs;
    private int dimension;
    private List<Integer> clients = List.of();
    private List<Integer> refeedClients = List.of();
    private Duration warmup = Duration.ZERO;
    private Duration duration = Duration.ZERO;
    private Duration refeedDuration;
    private int queryCount;
    private int recallQueries;
    private int sweepDocs;
    private List<Integer> sweepSegments = List.of();
    private List<Integer> sweepClients = List.of();
    private Duration sweepDuration = Duration.ZERO;
    private int sweepRounds = 1;
    private List<Slicing> sweepSlicings = List.of(Slicing.LUCENE_DEFAULT);
    private Duration sweepWarmupLimit = Duration.ofSeconds(60);
    private int gridDocs;
    private String serverHeap;
    private boolean mainPhases;
    private int rounds = 1;
    private List<Double> recallTargets = List.of(DEFAULT_RECALL_TARGET);
    private int calibrationQueries = 100;
    private boolean fixedCandidates;
    private VectorQuantization quantization = VectorQuantization.NONE;
    private int feeds = 1;
    private double refeedClientNiceness = DEFAULT_REFEED_CLIENT_NICENESS;
    private Double serverFeedNiceness;
    private int refeedRounds = 1;
    private int facetClientCounts;
    private List<Integer> vectorBeams = Calibration.VECTOR_GRID;
    private boolean facets = true;
    private int writeDocs;
    private boolean sameClientFeed = true;
    private List<Integer> hybridBeams = Calibration.HYBRID_GRID;
    private List<Integer> scaleSizes = List.of();
    private int scaleClients = 16;
    private List<QueryType> scaleTypes = List.of(QueryType.values());
    private ServerHeaps heaps;

    private Builder() {}

    public Builder facets(boolean v) {
      facets = v;
      return this;
    }

    public Builder writeDocs(int v) {
      writeDocs = v;
      return this;
    }

    public Builder sameClientFeed(boolean v) {
      sameClientFeed = v;
      return this;
    }

    public Builder hybridBeams(List<Integer> v) {
      hybridBeams = v;
      return this;
    }

    public Builder scaleSizes(List<Integer> v) {
      scaleSizes = v;
      return this;
    }

    public Builder scaleClients(int v) {
      scaleClients = v;
      return this;
    }

    public Builder scaleTypes(List<QueryType> v) {
      scaleTypes = v;
      return this;
    }

    /** The heap of each store; null (the default) gives every store {@link #serverHeap}. */
    public Builder heaps(ServerHeaps v) {
      heaps = v;
      return this;
    }

    public Builder vectorBeams(List<Integer> v) {
      vectorBeams = v;
      return this;
    }

    public Builder refeedClientNiceness(double v) {
      refeedClientNiceness = v;
      return this;
    }

    public Builder serverFeedNiceness(Double v) {
      serverFeedNiceness = v;
      return this;
    }

    public Builder facetClientCounts(int v) {
      facetClientCounts = v;
      return this;
    }

    public Builder refeedRounds(int v) {
      refeedRounds = v;
      return this;
    }

    public Builder feeds(int v) {
      feeds = v;
      return this;
    }

    public Builder rounds(int v) {
      rounds = v;
      return this;
    }

    public Builder recallTargets(List<Double> v) {
      recallTargets = v;
      return this;
    }

    public Builder calibrationQueries(int v) {
      calibrationQueries = v;
      return this;
    }

    public Builder quantization(VectorQuantization v) {
      quantization = v;
      return this;
    }

    public Builder fixedCandidates(boolean v) {
      fixedCandidates = v;
      return this;
    }

    public Builder name(String v) {
      name = v;
      return this;
    }

    public Builder docs(int v) {
      docs = v;
      return this;
    }

    public Builder dimension(int v) {
      dimension = v;
      return this;
    }

    public Builder clients(List<Integer> v) {
      clients = v;
      return this;
    }

    public Builder refeedClients(List<Integer> v) {
      refeedClients = v;
      return this;
    }

    public Builder warmup(Duration v) {
      warmup = v;
      return this;
    }

    public Builder duration(Duration v) {
      duration = v;
      return this;
    }

    public Builder refeedDuration(Duration v) {
      refeedDuration = v;
      return this;
    }

    public Builder queryCount(int v) {
      queryCount = v;
      return this;
    }

    public Builder recallQueries(int v) {
      recallQueries = v;
      return this;
    }

    public Builder sweepDocs(int v) {
      sweepDocs = v;
      return this;
    }

    public Builder sweepSegments(List<Integer> v) {
      sweepSegments = v;
      return this;
    }

    public Builder sweepClients(List<Integer> v) {
      sweepClients = v;
      return this;
    }

    public Builder sweepDuration(Duration v) {
      sweepDuration = v;
      return this;
    }

    public Builder sweepRounds(int v) {
      sweepRounds = v;
      return this;
    }

    public Builder sweepSlicings(List<Slicing> v) {
      sweepSlicings = v;
      return this;
    }

    public Builder sweepWarmupLimit(Duration v) {
      sweepWarmupLimit = v;
      return this;
    }

    public Builder gridDocs(int v) {
      gridDocs = v;
      return this;
    }

    public Builder serverHeap(String v) {
      serverHeap = v;
      return this;
    }

    public Builder mainPhases(boolean v) {
      mainPhases = v;
      return this;
    }

    public Profile build() {
      return new Profile(
          name,
          docs,
          dimension,
          clients,
          refeedClients,
          warmup,
          duration,
          refeedDuration != null ? refeedDuration : duration,
          queryCount,
          recallQueries,
          sweepDocs,
          sweepSegments,
          sweepClients,
          sweepDuration,
          sweepRounds,
          sweepSlicings,
          sweepWarmupLimit,
          gridDocs,
          serverHeap,
          mainPhases,
          rounds,
          recallTargets,
          calibrationQueries,
          fixedCandidates,
          quantization,
          feeds,
          refeedClientNiceness,
          serverFeedNiceness,
          refeedRounds,
          vectorBeams,
          facetClientCounts,
          facets,
          writeDocs,
          sameClientFeed,
          hybridBeams,
          scaleSizes,
          scaleClients,
          scaleTypes,
          heaps != null
              ? heaps
              : ServerHeaps.uniform(Objects.requireNonNull(serverHeap, "serverHeap")));
    }
  }
}
