package org.searchlab.bench.experiment;

import java.util.ArrayList;
import java.util.List;
import org.searchlab.segmented.Slicing;

/**
 * One search setting of the segment sweep: segments searched one after another ({@code
 * searchThreads} 0) or concurrently on the server's default pool with a given {@link Slicing}. Each
 * setting of a segment count runs on a server of its own, over its own copy of that count's index.
 * Immutable.
 *
 * @param slicing the concurrent setting's slicing; null for the sequential one
 */
record SweepSetting(Slicing slicing) {
  /** The sequential setting. */
  static final SweepSetting SEQUENTIAL = new SweepSetting(null);

  /** The {@code search_threads} value of the rows: {@code "0"} or {@code "default"}. */
  String threads() {
    return slicing == null ? SegmentSweep.SEQUENTIAL : SegmentSweep.DEFAULT_POOL;
  }

  /** The {@code slicing} value of the rows: null for the sequential setting. */
  String slicingName() {
    return slicing == null ? null : slicing.cliName();
  }

  /** A name for logs, progress lines and data directories: {@code seq}, {@code conc-partitions}. */
  String label() {
    return slicing == null ? "seq" : "conc-" + slicing.cliName();
  }

  /** The server options of this setting over {@code base}. */
  ServerOptions options(ServerOptions base) {
    return base.toBuilder().searchThreads(slicing == null ? 0 : null).slicing(slicing).build();
  }

  /** The sequential setting, then one concurrent setting per slicing, in the given order. */
  static List<SweepSetting> of(List<Slicing> slicings) {
    List<SweepSetting> out = new ArrayList<>(List.of(SEQUENTIAL));
    for (Slicing s : slicings) {
      out.add(new SweepSetting(s));
    }
    return out;
  }
}
