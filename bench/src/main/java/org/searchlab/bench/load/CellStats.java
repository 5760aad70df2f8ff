package org.searchlab.bench.load;

import org.HdrHistogram.Histogram;

/**
 * What one measured cell produced: throughput, latency percentiles from the cell's HdrHistogram and
 * the server's CPU and major page faults over the measured window.
 *
 * @param requests successful requests that completed inside the measured window
 * @param errors requests that failed or answered a non-2xx status (not in the histogram)
 * @param seconds length of the measured window
 * @param qps successful requests per second
 * @param avgMs mean latency
 * @param p50Ms median latency
 * @param p95Ms 95th percentile
 * @param p99Ms 99th percentile
 * @param p999Ms 99.9th percentile
 * @param cpuCores server CPU cores used over the window (CPU seconds / wall seconds)
 * @param firstError what the first failed request got (a status and the start of its body, or an
 *     exception), or null when none failed
 * @param clientRetries requests sent a second time because the HTTP client lost the first answer
 *     ({@link LoadGenerator#isPoolRace}); they count once, as requests or errors
 * @param majorFaults the server's major page faults over the window ({@link CpuMeter#majorFaults}),
 *     -1 where not counted (a source without them, or a cell made of other cells)
 */
public record CellStats(
    long requests,
    long errors,
    double seconds,
    double qps,
    double avgMs,
    double p50Ms,
    double p95Ms,
    double p99Ms,
    double p999Ms,
    double cpuCores,
    String firstError,
    long clientRetries,
    long majorFaults) {

  /** Summarises a histogram of latencies recorded in microseconds. */
  public static CellStats of(
      Histogram micros,
      long errors,
      String firstError,
      long clientRetries,
      double seconds,
      double cpuCores) {
    return of(micros, errors, firstError, clientRetries, seconds, cpuCores, -1);
  }

  /** As {@link #of(Histogram, long, String, long, double, double)}, with the major faults. */
  public static CellStats of(
      Histogram micros,
      long errors,
      String firstError,
      long clientRetries,
      double seconds,
      double cpuCores,
      long majorFaults) {
    long n = micros.getTotalCount();
    return new CellStats(
        n,
        errors,
        seconds,
        seconds > 0 ? n / seconds : 0,
        n == 0 ? 0 : micros.getMean() / 1000.0,
        micros.getValueAtPercentile(50) / 1000.0,
        micros.getValueAtPercentile(95) / 1000.0,
        micros.getValueAtPercentile(99) / 1000.0,
        micros.getValueAtPercentile(99.9) / 1000.0,
        cpuCores,
        firstError,
        clientRetries,
        majorFaults);
  }

  /** Queries per second per server core, or 0 when no CPU was measured. */
  public double qpsPerCore() {
    return cpuCores > 0 ? qps / cpuCores : 0;
  }
}
