package org.searchlab.bench.report;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One line of {@code results.jsonl}: one measured cell. Query cells fill the latency fields, feed
 * cells ({@code feed}, {@code refeed}, {@code update}, {@code refeed_with_queries}) the docs/s
 * fields; fields that do not apply are {@code null} but always present. Every row carries the run
 * context ({@link RunInfo}). Immutable.
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
  "docs_per_sec",
  "docs_per_sec_per_core"
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
    @JsonProperty("dim") Integer dim) {

  /** A copy with recall and overlap set. */
  public ResultRow withQuality(Double recall, Double overlap) {
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
        recall,
        overlap,
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
        dim);
  }

  /** Whether this is a query cell (not a feed cell). */
  @JsonIgnore
  public boolean isQueryCell() {
    return queryType != null;
  }
}
