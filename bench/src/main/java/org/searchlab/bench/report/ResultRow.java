// Just over 500 lines: one record of the results schema, a component per JSON field, each
// documented where it is declared; the schema is read in one place.
package org.searchlab.bench.report;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One line of {@code results.jsonl}: one measured cell. Query cells fill the latency fields, feed
 * cells ({@code feed}, {@code refeed}, {@code update}, {@code refeed_with_queries}) the docs/s
 * fields; fields that do not apply are {@code null} but always present. Every row carries the run
 * context ({@link RunInfo}). Query cells of the paired rounds come as one row per round ({@code
 * round} 1, 2, …) and one summary row ({@code round} null) holding the median over rounds and its
 * interval ({@code *_low}, {@code *_high}, {@code interval_coverage}); {@code target_hits} and
 * {@code num_candidates} are the vector part's setting ({@code recall_target} when it was
 * calibrated). {@code recall_at_10} and {@code overlap_at_10} are tie-aware, the {@code _ids}
 * columns compare ids only. {@code cpu_source} says where the CPU figures came from ({@code /proc}
 * of the server's JVMs, an engine's {@code _nodes/stats}, or {@code none}: not measured, the
 * figures null); {@code cpu_cores_second} is a second source's reading of the same feed where there
 * is one. {@code first_error} describes the first failed request of a cell with {@code errors} (its
 * status and the start of its body, or the client's exception), null when none failed; {@code
 * client_retries} counts the cell's requests sent twice because the HTTP client lost the first
 * answer (the JDK client's pool race), which count once among its requests or errors. {@code
 * refeed_docs_per_sec} is set on the query cells measured while the refeed runs ({@code
 * during_refeed}): the documents the engine acknowledged per second over that cell, its warm-up
 * included, which is how hard the refeed pressed on the queries of that cell. {@code client_cores}
 * is set on the feed cells but the refeed under queries: the cores the runner's own JVM (the feed
 * client, its JIT compiler and collector) used over the feed, on the machine the server shares.
 * {@code slicing} is set on the segment sweep's concurrent cells: how the server grouped segments
 * into slices ({@code lucene-default}, {@code segment-per-slice}, {@code partitions}). {@code
 * major_faults} is set on the query cells measured against a process whose {@code /proc} the runner
 * reads: the server's major page faults over the cell's window (pages read from disk; more than 0
 * means its index or heap did not stay in memory), null where not counted. {@code
 * visited_per_query} is set on the vector and hybrid cells of a store that counts its vector
 * searches ({@code vector_searches}, {@code vector_visited_nodes} of {@code /_admin/stats}): the
 * vectors scored per vector search over the cell (Δvisited ÷ Δsearches, the cell's warm-up
 * included), pooled over the rounds in a summary row; the segmented store's sums its segments'
 * graph walks (and any exact scan's vectors, as {@link org.searchlab.core.VectorVisits} says).
 * Immutable.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({
  "variant",
  "phase",
  "query_type",
  "filtered",
  "clients",
  "segments",
  "search_threads",
  "qps",
  "avg_ms",
  "p50_ms",
  "p95_ms",
  "p99_ms",
  "p999_ms",
  "cpu_cores",
  "qps_per_core",
  "recall_at_10",
  "overlap_at_10",
  "recall_at_10_ids",
  "overlap_at_10_ids",
  "target_hits",
  "num_candidates",
  "recall_target",
  "round",
  "rounds",
  "interval_coverage",
  "qps_low",
  "qps_high",
  "qps_per_core_low",
  "qps_per_core_high",
  "docs_per_sec",
  "docs_per_sec_per_core",
  "cpu_source",
  "cpu_cores_second",
  "first_error",
  "client_retries",
  "refeed_docs_per_sec",
  "client_cores",
  "slicing",
  "major_faults",
  "visited_per_query"
})
public record ResultRow(
    @JsonProperty("variant") String variant,
    @JsonProperty("phase") String phase,
    @JsonProperty("query_type") String queryType,
    @JsonProperty("filtered") Boolean filtered,
    @JsonProperty("clients") Integer clients,
    @JsonProperty("segments") Integer segments,
    @JsonProperty("search_threads") String searchThreads,
    @JsonProperty("qps") Double qps,
    @JsonProperty("avg_ms") Double avgMs,
    @JsonProperty("p50_ms") Double p50Ms,
    @JsonProperty("p95_ms") Double p95Ms,
    @JsonProperty("p99_ms") Double p99Ms,
    @JsonProperty("p999_ms") Double p999Ms,
    @JsonProperty("cpu_cores") Double cpuCores,
    @JsonProperty("qps_per_core") Double qpsPerCore,
    @JsonProperty("recall_at_10") Double recallAt10,
    @JsonProperty("overlap_at_10") Double overlapAt10,
    @JsonProperty("docs_per_sec") Double docsPerSec,
    @JsonProperty("docs_per_sec_per_core") Double docsPerSecPerCore,
    @JsonProperty("requests") Long requests,
    @JsonProperty("errors") Long errors,
    @JsonProperty("seconds") Double seconds,
    @JsonProperty("hnsw_m") Integer hnswM,
    @JsonProperty("hnsw_ef_construction") Integer hnswEfConstruction,
    @JsonProperty("ef") Integer ef,
    @JsonProperty("profile") String profile,
    @JsonProperty("machine") RunInfo.Machine machine,
    @JsonProperty("jdk") String jdk,
    @JsonProperty("commit") String commit,
    @JsonProperty("docs") Integer docs,
    @JsonProperty("dim") Integer dim,
    @JsonProperty("recall_at_10_ids") Double recallAt10Ids,
    @JsonProperty("overlap_at_10_ids") Double overlapAt10Ids,
    @JsonProperty("target_hits") Integer targetHits,
    @JsonProperty("num_candidates") Integer numCandidates,
    @JsonProperty("recall_target") Double recallTarget,
    @JsonProperty("round") Integer round,
    @JsonProperty("rounds") Integer rounds,
    @JsonProperty("interval_coverage") Double intervalCoverage,
    @JsonProperty("qps_low") Double qpsLow,
    @JsonProperty("qps_high") Double qpsHigh,
    @JsonProperty("qps_per_core_low") Double qpsPerCoreLow,
    @JsonProperty("qps_per_core_high") Double qpsPerCoreHigh,
    @JsonProperty("cpu_source") String cpuSource,
    @JsonProperty("cpu_cores_second") Double cpuCoresSecond,
    @JsonProperty("first_error") String firstError,
    @JsonProperty("client_retries") Long clientRetries,
    @JsonProperty("refeed_docs_per_sec") Double refeedDocsPerSec,
    @JsonProperty("client_cores") Double clientCores,
    @JsonProperty("slicing") String slicing,
    @JsonProperty("major_faults") Long majorFaults,
    @JsonProperty("visited_per_query") Double visitedPerQuery) {

  /** A row without the calibration, round and interval fields. */
  public ResultRow(
      String variant,
      String phase,
      String queryType,
      Boolean filtered,
      Integer clients,
      Integer segments,
      String searchThreads,
      Double qps,
      Double avgMs,
      Double p50Ms,
      Double p95Ms,
      Double p99Ms,
      Double p999Ms,
      Double cpuCores,
      Double qpsPerCore,
      Double recallAt10,
      Double overlapAt10,
      Double docsPerSec,
      Double docsPerSecPerCore,
      Long requests,
      Long errors,
      Double seconds,
      Integer hnswM,
      Integer hnswEfConstruction,
      Integer ef,
      String profile,
      RunInfo.Machine machine,
      String jdk,
      String commit,
      Integer docs,
      Integer dim) {
    this(
        variant,
        phase,
        queryType,
        filtered,
        clients,
        segments,
        searchThreads,
        qps,
        avgMs,
        p50Ms,
        p95Ms,
        p99Ms,
        p999Ms,
        cpuCores,
        qpsPerCore,
        recallAt10,
        overlapAt10,
        docsPerSec,
        docsPerSecPerCore,
        requests,
        errors,
        seconds,
        hnswM,
        hnswEfConstruction,
        ef,
        profile,
        machine,
        jdk,
        commit,
        docs,
        dim,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * A copy that says where its CPU figures came from ({@code /proc}, {@code _nodes/stats}, …); with
   * {@link #NO_CPU} the CPU figures become null, since nothing measured them.
   */
  public ResultRow withCpuSource(String source) {
    Copy c = new Copy(this);
    c.cpuSource = source;
    if (NO_CPU.equals(source)) {
      c.cpuCores = null;
      c.qpsPerCore = null;
      c.qpsPerCoreLow = null;
      c.qpsPerCoreHigh = null;
      c.docsPerSecPerCore = null;
    }
    return c.build();
  }

  /** The {@code cpu_source} of a row whose server's CPU could not be read. */
  public static final String NO_CPU = "none";

  /** A copy with the cores the server's second CPU source gave over the same window. */
  public ResultRow withSecondCpu(Double cores) {
    Copy c = new Copy(this);
    c.cpuCoresSecond = cores;
    return c.build();
  }

  /**
   * A copy with the cores the runner's own JVM (the feed client) used over a feed, which the server
   * could not use; null when not measured.
   */
  public ResultRow withClientCpu(Double cores) {
    Copy c = new Copy(this);
    c.clientCores = cores;
    return c.build();
  }

  /** A copy with tie-aware recall and overlap set. */
  public ResultRow withQuality(Double recall, Double overlap) {
    Copy c = new Copy(this);
    c.recallAt10 = recall;
    c.overlapAt10 = overlap;
    return c.build();
  }

  /** A copy with the id-based recall and overlap set. */
  public ResultRow withIdQuality(Double recallIds, Double overlapIds) {
    Copy c = new Copy(this);
    c.recallAt10Ids = recallIds;
    c.overlapAt10Ids = overlapIds;
    return c.build();
  }

  /** A copy with the vector part's setting and the recall target it was calibrated for. */
  public ResultRow withCandidates(Integer k, Integer candidates, Double target) {
    Copy c = new Copy(this);
    c.targetHits = k;
    c.numCandidates = candidates;
    c.recallTarget = target;
    return c.build();
  }

  /** A copy with the description of the cell's first failed request (null when none failed). */
  public ResultRow withFirstError(String description) {
    Copy c = new Copy(this);
    c.firstError = description;
    return c.build();
  }

  /** A copy with the requests the HTTP client had to send twice (its own pool race). */
  public ResultRow withClientRetries(Long retries) {
    Copy c = new Copy(this);
    c.clientRetries = retries;
    return c.build();
  }

  /** A copy with the refeed's acknowledged documents per second over this cell. */
  public ResultRow withRefeedRate(Double docsPerSecond) {
    Copy c = new Copy(this);
    c.refeedDocsPerSec = docsPerSecond;
    return c.build();
  }

  /**
   * A copy with the slicing of the server's concurrent segment search ({@code serve --slicing});
   * null where the cell searched segments one after another or the slicing was not set.
   */
  public ResultRow withSlicing(String name) {
    Copy c = new Copy(this);
    c.slicing = name;
    return c.build();
  }

  /** A copy with the server's major page faults over the cell, null when not counted. */
  public ResultRow withMajorFaults(Long faults) {
    Copy c = new Copy(this);
    c.majorFaults = faults;
    return c.build();
  }

  /**
   * A copy with the vectors scored per vector search over the cell, null where the store does not
   * count them.
   */
  public ResultRow withVisitedPerQuery(Double visited) {
    Copy c = new Copy(this);
    c.visitedPerQuery = visited;
    return c.build();
  }

  /** A copy marked as round {@code r} of the paired rounds. */
  public ResultRow withRound(int r) {
    Copy c = new Copy(this);
    c.round = r;
    return c.build();
  }

  /**
   * A copy that summarises paired rounds: QPS and QPS per core become the medians over the rounds,
   * with their intervals.
   */
  public ResultRow withInterval(Intervals.Interval qpsOverRounds, Intervals.Interval perCore) {
    Copy c = new Copy(this);
    c.round = null;
    c.rounds = perCore.n();
    c.intervalCoverage = perCore.coverage();
    c.qps = qpsOverRounds.median();
    c.qpsLow = qpsOverRounds.low();
    c.qpsHigh = qpsOverRounds.high();
    c.qpsPerCore = perCore.median();
    c.qpsPerCoreLow = perCore.low();
    c.qpsPerCoreHigh = perCore.high();
    return c.build();
  }

  /** A mutable copy of every component, for the {@code with…} methods. Not thread-safe. */
  private static final class Copy {
    private String variant;
    private String phase;
    private String queryType;
    private Boolean filtered;
    private Integer clients;
    private Integer segments;
    private String searchThreads;
    private Double qps;
    private Double avgMs;
    private Double p50Ms;
    private Double p95Ms;
    private Double p99Ms;
    private Double p999Ms;
    private Double cpuCores;
    private Double qpsPerCore;
    private Double recallAt10;
    private Double overlapAt10;
    private Double docsPerSec;
    private Double docsPerSecPerCore;
    private Long requests;
    private Long errors;
    private Double seconds;
    private Integer hnswM;
    private Integer hnswEfConstruction;
    private Integer ef;
    private String profile;
    private RunInfo.Machine machine;
    private String jdk;
    private String commit;
    private Integer docs;
    private Integer dim;
    private Double recallAt10Ids;
    private Double overlapAt10Ids;
    private Integer targetHits;
    private Integer numCandidates;
    private Double recallTarget;
    private Integer round;
    private Integer rounds;
    private Double intervalCoverage;
    private Double qpsLow;
    private Double qpsHigh;
    private Double qpsPerCoreLow;
    private Double qpsPerCoreHigh;
    private String cpuSource;
    private Double cpuCoresSecond;
    private String firstError;
    private Long clientRetries;
    private Double refeedDocsPerSec;
    private Double clientCores;
    private String slicing;
    private Long majorFaults;
    private Double visitedPerQuery;

    Copy(ResultRow r) {
      variant = r.variant;
      phase = r.phase;
      queryType = r.queryType;
      filtered = r.filtered;
      clients = r.clients;
      segments = r.segments;
      searchThreads = r.searchThreads;
      qps = r.qps;
      avgMs = r.avgMs;
      p50Ms = r.p50Ms;
      p95Ms = r.p95Ms;
      p99Ms = r.p99Ms;
      p999Ms = r.p999Ms;
      cpuCores = r.cpuCores;
      qpsPerCore = r.qpsPerCore;
      recallAt10 = r.recallAt10;
      overlapAt10 = r.overlapAt10;
      docsPerSec = r.docsPerSec;
      docsPerSecPerCore = r.docsPerSecPerCore;
      requests = r.requests;
      errors = r.errors;
      seconds = r.seconds;
      hnswM = r.hnswM;
      hnswEfConstruction = r.hnswEfConstruction;
      ef = r.ef;
      profile = r.profile;
      machine = r.machine;
      jdk = r.jdk;
      commit = r.commit;
      docs = r.docs;
      dim = r.dim;
      recallAt10Ids = r.recallAt10Ids;
      overlapAt10Ids = r.overlapAt10Ids;
      targetHits = r.targetHits;
      numCandidates = r.numCandidates;
      recallTarget = r.recallTarget;
      round = r.round;
      rounds = r.rounds;
      intervalCoverage = r.intervalCoverage;
      qpsLow = r.qpsLow;
      qpsHigh = r.qpsHigh;
      qpsPerCoreLow = r.qpsPerCoreLow;
      qpsPerCoreHigh = r.qpsPerCoreHigh;
      cpuSource = r.cpuSource;
      cpuCoresSecond = r.cpuCoresSecond;
      firstError = r.firstError;
      clientRetries = r.clientRetries;
      refeedDocsPerSec = r.refeedDocsPerSec;
      clientCores = r.clientCores;
      slicing = r.slicing;
      majorFaults = r.majorFaults;
      visitedPerQuery = r.visitedPerQuery;
    }

    ResultRow build() {
      return new ResultRow(
          variant,
          phase,
          queryType,
          filtered,
          clients,
          segments,
          searchThreads,
          qps,
          avgMs,
          p50Ms,
          p95Ms,
          p99Ms,
          p999Ms,
          cpuCores,
          qpsPerCore,
          recallAt10,
          overlapAt10,
          docsPerSec,
          docsPerSecPerCore,
          requests,
          errors,
          seconds,
          hnswM,
          hnswEfConstruction,
          ef,
          profile,
          machine,
          jdk,
          commit,
          docs,
          dim,
          recallAt10Ids,
          overlapAt10Ids,
          targetHits,
          numCandidates,
          recallTarget,
          round,
          rounds,
          intervalCoverage,
          qpsLow,
          qpsHigh,
          qpsPerCoreLow,
          qpsPerCoreHigh,
          cpuSource,
          cpuCoresSecond,
          firstError,
          clientRetries,
          refeedDocsPerSec,
          clientCores,
          slicing,
          majorFaults,
          visitedPerQuery);
    }
  }

  /** Whether this is a query cell (not a feed cell). */
  @JsonIgnore
  public boolean isQueryCell() {
    return queryType != null;
  }
}
