package org.searchlab.bench.experiment;

/**
 * What a feed achieved.
 *
 * @param docs documents acknowledged
 * @param errors documents the server rejected (after retries of 429)
 * @param seconds wall time of the feed
 * @param cpuCores server cores used over the feed
 */
public record FeedStats(long docs, long errors, double seconds, double cpuCores) {
  public double docsPerSec() {
    return seconds > 0 ? docs / seconds : 0;
  }

  public double docsPerSecPerCore() {
    return cpuCores > 0 ? docsPerSec() / cpuCores : 0;
  }
}
