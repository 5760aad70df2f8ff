/**
 * A closed-loop HTTP load generator: a fixed number of clients, each on its own keep-alive
 * connection, sends its next request as soon as the previous answer arrives (vespa-fbench's model,
 * which the reproduced benchmark used). Latencies go into one HdrHistogram per cell; the server's
 * CPU time is read from {@code /proc/<pid>/stat} around the measured window, less the JIT compiler
 * threads.
 *
 * <p>Terms: a <em>cell</em> is one measurement at one client count for one query mix; its
 * <em>warm-up</em> runs the same load without recording.
 */
package org.searchlab.bench.load;
