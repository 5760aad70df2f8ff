package org.searchlab.bench.experiment;

/**
 * What a feed achieved. Immutable.
 *
 * @param docs documents acknowledged
 * @param errors documents the server rejected (after retries of 429)
 * @param seconds wall time of the feed
 * @param cpuCores server cores used over the feed, from the meter's source
 * @param secondCpuCores the same from the meter's second source ({@link
 *     org.searchlab.bench.load.CpuMeter#second()}), or null when it has none
 */
public record FeedStats(
    long docs, long errors, double seconds, double cpuCores, Double secondCpuCores) {

  /** A feed measured by one source only. */
  public FeedStats(long docs, long errors, double seconds, double cpuCores) {
    this(docs, errors, seconds, cpuCores, null);
  }

  public double docsPerSec() {
    return seconds > 0 ? docs / seconds : 0;
  }

  public double docsPerSecPerCore() {
    return cpuCores > 0 ? docsPerSec() / cpuCores : 0;
  }
}
