package org.searchlab.server;

import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * What every connection's dispatcher shares: the dialects in routing order (the last one answers
 * every path no other owns), the two bounded executors, the metrics and the config. Immutable and
 * thread-safe.
 *
 * @param dialects the dialects; the last one is the fallback
 * @param searchPool the executor for searches and reads
 * @param writePool the executor for writes and admin calls
 * @param metrics the request timers
 * @param config the server's settings
 */
record Routing(
    List<Dialect> dialects,
    ExecutorService searchPool,
    ExecutorService writePool,
    org.searchlab.server.metrics.ServerMetrics metrics,
    ServerConfig config) {

  Routing {
    dialects = List.copyOf(dialects);
  }

  /** The dialect that answers {@code path}. */
  Dialect dialectFor(String path) {
    for (Dialect d : dialects) {
      if (d.owns(path)) {
        return d;
      }
    }
    return dialects.get(dialects.size() - 1);
  }
}
