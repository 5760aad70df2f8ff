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
 * @param writeSlots writes running or waiting, queued or awaiting the store's acknowledgement:
 *     {@code writeThreads + writeQueue} permits, beyond them 429 (an asynchronous write leaves its
 *     thread but keeps its slot until it is answered)
 */
record Routing(
    List<Dialect> dialects,
    ExecutorService searchPool,
    ExecutorService writePool,
    org.searchlab.server.metrics.ServerMetrics metrics,
    ServerConfig config,
    java.util.concurrent.Semaphore writeSlots) {

  Routing {
    dialects = List.copyOf(dialects);
  }

  /** With {@code writeThreads + writeQueue} write slots, as the config says. */
  Routing(
      List<? extends Dialect> dialects,
      ExecutorService searchPool,
      ExecutorService writePool,
      org.searchlab.server.metrics.ServerMetrics metrics,
      ServerConfig config) {
    this(
        List.copyOf(dialects),
        searchPool,
        writePool,
        metrics,
        config,
        new java.util.concurrent.Semaphore(config.writeThreads() + config.writeQueue()));
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
