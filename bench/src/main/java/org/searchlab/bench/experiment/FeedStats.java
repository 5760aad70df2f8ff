package org.searchlab.bench.experiment;

/**
 * What a feed achieved. Immutable.
 *
 * @param docs documents acknowledged
 * @param errors documents the server rejected (after retries of 429, and of a 503 that says the
 *     request was not run)
 * @param seconds wall time of the feed
 * @param cpuCores server cores used over the feed, from the meter's source
 * @param secondCpuCores the same from the meter's second source ({@link
 *     org.searchlab.bench.load.CpuMeter#second()}), or null when it has none
 * @param clientCores cores the runner's own JVM used over the feed (the feed client's threads, its
 *     JIT compiler and its garbage collector), which share the machine with the server; null when
 *     not measured
 */
public record FeedStats(
    long docs,
    long errors,
    double seconds,
    double cpuCores,
    Double secondCpuCores,
    Double clientCores) {

  /** A feed measured by one source only, its client not measured. */
  public FeedStats(long docs, long errors, double seconds, double cpuCores) {
    this(docs, errors, seconds, cpuCores, null, null);
  }

  /** A feed measured by two sources, its client not measured. */
  public FeedStats(long docs, long errors, double seconds, double cpuCores, Double secondCpuCores) {
    this(docs, errors, seconds, cpuCores, secondCpuCores, null);
  }

  /**
   * This feed, when every document it sent was acknowledged; else an {@link IOException} naming
   * {@code what} and the rejected count. A feed that builds an index must be complete: an index
   * missing documents is measured at the wrong size, against an oracle that holds them all.
   */
  public FeedStats requireComplete(String what) throws java.io.IOException {
    if (errors > 0) {
      throw new java.io.IOException(
          what
              + ": "
              + errors
              + " of "
              + (docs + errors)
              + " documents rejected, so the index would not hold the corpus it is measured"
              + " against");
    }
    return this;
  }

  /**
   * Several feeds as one: documents, errors and seconds summed, cores averaged over the seconds
   * (the second source's and the client's only when every feed has them).
   */
  public static FeedStats sum(java.util.List<FeedStats> feeds) {
    long docs = 0;
    long errors = 0;
    double seconds = 0;
    double cpuSeconds = 0;
    double secondCpuSeconds = 0;
    double clientCpuSeconds = 0;
    boolean second = true;
    boolean client = true;
    for (FeedStats f : feeds) {
      docs += f.docs;
      errors += f.errors;
      seconds += f.seconds;
      cpuSeconds += f.cpuCores * f.seconds;
      if (f.secondCpuCores == null) {
        second = false;
      } else {
        secondCpuSeconds += f.secondCpuCores * f.seconds;
      }
      if (f.clientCores == null) {
        client = false;
      } else {
        clientCpuSeconds += f.clientCores * f.seconds;
      }
    }
    return new FeedStats(
        docs,
        errors,
        seconds,
        seconds > 0 ? cpuSeconds / seconds : 0,
        second && seconds > 0 ? secondCpuSeconds / seconds : null,
        client && seconds > 0 ? clientCpuSeconds / seconds : null);
  }

  public double docsPerSec() {
    return seconds > 0 ? docs / seconds : 0;
  }

  public double docsPerSecPerCore() {
    return cpuCores > 0 ? docsPerSec() / cpuCores : 0;
  }
}
