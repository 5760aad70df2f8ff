/**
 * Micrometer metrics of the server, exposed at {@code GET /metrics} in the Prometheus text format:
 * request timers by dialect, endpoint, query type and status (with a percentile histogram, so
 * p50/p99 can be computed across scrapes), feed operations by type and outcome, executor
 * rejections, the index's documents, segments, memory per part and counters, and the JVM and
 * process (CPU, memory, GC, threads).
 */
package org.searchlab.server.metrics;
