package org.searchlab.bench.experiment;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The size and timing of one experiment run. Built-in profiles: {@code quick} (tests, ≤ 5 min on 2
 * cores), {@code standard} (the default, ≤ 30 min on 2 cores), {@code full} (the benchmark's 1M
 * documents) and {@code grid} (the HNSW parameter grid only). Immutable; change with the {@code
 * withX} methods.
 *
 * @param name the profile's name, recorded in every row
 * @param docs documents fed to each variant; more makes the segmented variant have more segments
 * @param dimension embedding dimension (384 in the benchmark)
 * @param clients client counts of the query phases (the benchmark: 1 … 64)
 * @param refeedClients client counts of the refeed-under-queries phase (the benchmark: 1, 16, 64)
 * @param warmup unrecorded load before each query cell; longer is steadier and slower
 * @param duration measured window of each query cell (the benchmark: 20 s); longer is steadier
 * @param queryCount distinct queries cycled through by the load generator
 * @param recallQueries queries whose top-10 is compared against exact search and between variants
 * @param sweepDocs documents of the segment-count sweep index (0 skips the sweep)
 * @param sweepSegments segment counts the sweep force-merges down through, descending
 * @param sweepClients client counts of the sweep
 * @param sweepDuration measured window of each sweep cell
 * @param gridDocs documents of the HNSW grid index (0 skips the grid)
 * @param serverHeap the server JVM's -Xmx, e.g. {@code 2g}
 * @param mainPhases whether to run the benchmark procedure (false for the grid-only profile)
 */
public record Profile(
    String name,
    int docs,
    int dimension,
    List<Integer> clients,
    List<Integer> refeedClients,
    Duration warmup,
    Duration duration,
    int queryCount,
    int recallQueries,
    int sweepDocs,
    List<Integer> sweepSegments,
    List<Integer> sweepClients,
    Duration sweepDuration,
    int gridDocs,
    String serverHeap,
    boolean mainPhases) {

  public Profile {
    clients = List.copyOf(clients);
    refeedClients = List.copyOf(refeedClients);
    sweepSegments = List.copyOf(sweepSegments);
    sweepClients = List.copyOf(sweepClients);
  }

  private static final List<Integer> BENCHMARK_CLIENTS = List.of(1, 2, 4, 8, 16, 32, 64);
  private static final List<Integer> SWEEP_SEGMENTS = List.of(100, 50, 20, 10, 5, 2, 1);

  /** At most 5 minutes on 2 cores: a small corpus, 3 client counts, 1.5 s cells. */
  public static Profile quick() {
    return new Profile(
        "quick",
        4_000,
        384,
        List.of(1, 4, 16),
        List.of(1, 16),
        Duration.ofMillis(300),
        Duration.ofSeconds(1),
        200,
        40,
        2_000,
        List.of(10, 5, 1),
        List.of(1, 16),
        Duration.ofMillis(700),
        0,
        "1g",
        true);
  }

  /**
   * The default: 100k documents (tens of segments in the segmented variant), the benchmark's 7
   * client counts with 0.5 s warm-up + 2.5 s cells (126 query cells), and the sweep over 100 … 1
   * segments on 30k docs with 1.5 s cells. Budget on an idle 2-core machine: ~7 min of query cells,
   * ~4 min of sweep cells, the rest feeds, merges and server starts.
   */
  public static Profile standard() {
    return new Profile(
        "standard",
        100_000,
        384,
        BENCHMARK_CLIENTS,
        List.of(1, 16, 64),
        Duration.ofMillis(500),
        Duration.ofMillis(2_500),
        2_000,
        200,
        30_000,
        SWEEP_SEGMENTS,
        List.of(1, 16),
        Duration.ofMillis(1_500),
        0,
        "3g",
        true);
  }

  /** The benchmark's scale: 1M documents, 20 s cells (hours on 2 cores). */
  public static Profile full() {
    return new Profile(
        "full",
        1_000_000,
        384,
        BENCHMARK_CLIENTS,
        List.of(1, 16, 64),
        Duration.ofSeconds(5),
        Duration.ofSeconds(20),
        10_000,
        500,
        200_000,
        SWEEP_SEGMENTS,
        List.of(1, 16),
        Duration.ofSeconds(10),
        0,
        "12g",
        true);
  }

  /** Only the HNSW parameter grid (DocArray's): 20k docs, each (M, efConstruction) built once. */
  public static Profile grid() {
    return new Profile(
        "grid",
        0,
        384,
        List.of(1),
        List.of(),
        Duration.ofMillis(500),
        Duration.ofSeconds(2),
        500,
        200,
        0,
        List.of(),
        List.of(),
        Duration.ZERO,
        20_000,
        "2g",
        false);
  }

  /** A built-in profile by name. */
  public static Profile named(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "quick" -> quick();
      case "standard" -> standard();
      case "full" -> full();
      case "grid" -> grid();
      default ->
          throw new IllegalArgumentException(
              "unknown profile '" + name + "'; use quick, standard, full or grid");
    };
  }

  public Profile withDocs(int v) {
    return new Profile(
        name,
        v,
        dimension,
        clients,
        refeedClients,
        warmup,
        duration,
        queryCount,
        recallQueries,
        Math.min(sweepDocs, v),
        sweepSegments,
        sweepClients,
        sweepDuration,
        gridDocs,
        serverHeap,
        mainPhases);
  }

  public Profile withDimension(int v) {
    return new Profile(
        name,
        docs,
        v,
        clients,
        refeedClients,
        warmup,
        duration,
        queryCount,
        recallQueries,
        sweepDocs,
        sweepSegments,
        sweepClients,
        sweepDuration,
        gridDocs,
        serverHeap,
        mainPhases);
  }

  public Profile withClients(List<Integer> v) {
    return new Profile(
        name,
        docs,
        dimension,
        v,
        refeedClients,
        warmup,
        duration,
        queryCount,
        recallQueries,
        sweepDocs,
        sweepSegments,
        sweepClients,
        sweepDuration,
        gridDocs,
        serverHeap,
        mainPhases);
  }

  public Profile withDuration(Duration v) {
    return new Profile(
        name,
        docs,
        dimension,
        clients,
        refeedClients,
        warmup,
        v,
        queryCount,
        recallQueries,
        sweepDocs,
        sweepSegments,
        sweepClients,
        sweepDuration,
        gridDocs,
        serverHeap,
        mainPhases);
  }

  public Profile withWarmup(Duration v) {
    return new Profile(
        name,
        docs,
        dimension,
        clients,
        refeedClients,
        v,
        duration,
        queryCount,
        recallQueries,
        sweepDocs,
        sweepSegments,
        sweepClients,
        sweepDuration,
        gridDocs,
        serverHeap,
        mainPhases);
  }

  public Profile withSweep(int docsV, List<Integer> segmentsV, Duration durationV) {
    return new Profile(
        name,
        docs,
        dimension,
        clients,
        refeedClients,
        warmup,
        duration,
        queryCount,
        recallQueries,
        docsV,
        segmentsV,
        sweepClients,
        durationV,
        gridDocs,
        serverHeap,
        mainPhases);
  }

  public Profile withGridDocs(int v) {
    return new Profile(
        name,
        docs,
        dimension,
        clients,
        refeedClients,
        warmup,
        duration,
        queryCount,
        recallQueries,
        sweepDocs,
        sweepSegments,
        sweepClients,
        sweepDuration,
        v,
        serverHeap,
        mainPhases);
  }

  public Profile withMainPhases(boolean v) {
    return new Profile(
        name,
        docs,
        dimension,
        clients,
        refeedClients,
        warmup,
        duration,
        queryCount,
        recallQueries,
        sweepDocs,
        sweepSegments,
        sweepClients,
        sweepDuration,
        gridDocs,
        serverHeap,
        v);
  }

  public Profile withRecallQueries(int v) {
    return new Profile(
        name,
        docs,
        dimension,
        clients,
        refeedClients,
        warmup,
        duration,
        queryCount,
        v,
        sweepDocs,
        sweepSegments,
        sweepClients,
        sweepDuration,
        gridDocs,
        serverHeap,
        mainPhases);
  }
}
