package org.searchlab.bench.experiment;

import java.util.List;
import org.searchlab.bench.load.CellStats;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunInfo;

/** Builds {@link ResultRow}s for query and feed cells. Stateless and thread-safe. */
final class Rows {
  private Rows() {}

  static ResultRow query(
      RunInfo info,
      String variant,
      String phase,
      QueryType type,
      boolean filtered,
      int clients,
      Integer segments,
      String searchThreads,
      CellStats s) {
    return query(info, variant, phase, type.label(), filtered, clients, segments, searchThreads, s);
  }

  /** A query row of a type by its label ({@link FacetedRounds#LABEL} has no {@link QueryType}). */
  static ResultRow query(
      RunInfo info,
      String variant,
      String phase,
      String type,
      boolean filtered,
      int clients,
      Integer segments,
      String searchThreads,
      CellStats s) {
    return new ResultRow(
            variant,
            phase,
            type,
            filtered,
            clients,
            segments,
            searchThreads,
            s.qps(),
            s.avgMs(),
            s.p50Ms(),
            s.p95Ms(),
            s.p99Ms(),
            s.p999Ms(),
            s.cpuCores(),
            s.qpsPerCore(),
            null,
            null,
            null,
            null,
            s.requests(),
            s.errors(),
            s.seconds(),
            null,
            null,
            null,
            info.profile(),
            info.machine(),
            info.jdk(),
            info.commit(),
            info.docs(),
            info.dim())
        .withFirstError(s.firstError())
        .withClientRetries(s.clientRetries())
        .withMajorFaults(s.majorFaults() < 0 ? null : s.majorFaults());
  }

  /** The major faults of several cells' rows summed, or null when any of them was not counted. */
  static Long majorFaults(List<ResultRow> rows) {
    long sum = 0;
    for (ResultRow r : rows) {
      if (r.majorFaults() == null) {
        return null;
      }
      sum += r.majorFaults();
    }
    return rows.isEmpty() ? null : sum;
  }

  static ResultRow feed(
      RunInfo info,
      String variant,
      String phase,
      Integer segments,
      String searchThreads,
      FeedStats f) {
    return new ResultRow(
            variant,
            phase,
            null,
            null,
            null,
            segments,
            searchThreads,
            null,
            null,
            null,
            null,
            null,
            null,
            f.cpuCores(),
            null,
            null,
            null,
            f.docsPerSec(),
            f.docsPerSecPerCore(),
            f.docs(),
            f.errors(),
            f.seconds(),
            null,
            null,
            null,
            info.profile(),
            info.machine(),
            info.jdk(),
            info.commit(),
            info.docs(),
            info.dim())
        .withSecondCpu(f.secondCpuCores())
        .withClientCpu(f.clientCores());
  }

  static ResultRow grid(
      RunInfo info, String variant, int m, int efConstruction, int ef, CellStats s, Double recall) {
    ResultRow r = query(info, variant, "grid", QueryType.VECTOR, false, 1, null, null, s);
    return new ResultRow(
            r.variant(),
            r.phase(),
            r.queryType(),
            r.filtered(),
            r.clients(),
            r.segments(),
            r.searchThreads(),
            r.qps(),
            r.avgMs(),
            r.p50Ms(),
            r.p95Ms(),
            r.p99Ms(),
            r.p999Ms(),
            r.cpuCores(),
            r.qpsPerCore(),
            recall,
            null,
            null,
            null,
            r.requests(),
            r.errors(),
            r.seconds(),
            m,
            efConstruction,
            ef,
            r.profile(),
            r.machine(),
            r.jdk(),
            r.commit(),
            r.docs(),
            r.dim())
        .withFirstError(r.firstError())
        .withClientRetries(r.clientRetries());
  }
}
