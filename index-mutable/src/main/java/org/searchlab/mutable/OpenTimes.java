package org.searchlab.mutable;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The wall-clock time each phase of opening a mutable index took (snapshot checksum, ids, document
 * store, attributes, postings, graph, log tail), in the order they ran. Reported in the index's
 * stats as {@code open_<phase>_ms} counters, so a restart's cost can be read from {@code /metrics}
 * and measured by {@code searchlab restart-time}.
 *
 * <p>Not thread-safe: filled by the opening thread, then only read.
 */
final class OpenTimes {
  private final Map<String, Long> nanos = new LinkedHashMap<>();
  private long last = System.nanoTime();

  /** Ends the current phase under {@code name}: the time since the previous mark (or creation). */
  void mark(String name) {
    long now = System.nanoTime();
    nanos.merge(name, now - last, Long::sum);
    last = now;
  }

  /** Phase names to nanoseconds, in the order the phases first ran. */
  Map<String, Long> nanos() {
    return Collections.unmodifiableMap(nanos);
  }
}
