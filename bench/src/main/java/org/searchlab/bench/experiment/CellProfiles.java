package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The profiles of one size of a scale run ({@link CellProfile}): after the paired rounds, one extra
 * cell per variant, query type and filter at the calibrated beam and the rounds' client count, with
 * a flight recording of the variant's server on. Kept by variant and cell ({@code vector}, {@code
 * vector filtered}, …) for {@code scale.json}. The recordings go to {@code dir} and are deleted
 * once read unless the run keeps its data. Not thread-safe: cells run one at a time.
 */
final class CellProfiles {
  /** The shortest profiled cell: a 2 s cell gives too few samples for shares of a few percent. */
  static final Duration MIN_DURATION = Duration.ofSeconds(3);

  private final Path dir;
  private final PrintStream log;
  private final boolean keepRecordings;
  private final Duration window;
  private final Map<String, Map<String, CellProfile.Result>> byVariant = new LinkedHashMap<>();

  /**
   * @param dir where the recordings go
   * @param log where a recording that could not be made is said
   * @param keepRecordings whether the {@code .jfr} files stay after they are read
   * @param window each profiled cell's measuring window
   */
  CellProfiles(Path dir, PrintStream log, boolean keepRecordings, Duration window) {
    this.dir = dir;
    this.log = log;
    this.keepRecordings = keepRecordings;
    this.window = window;
  }

  /** Each profiled cell's measuring window. */
  Duration window() {
    return window;
  }

  /** The profiled cell's measuring window: the profile's, at least {@link #MIN_DURATION}. */
  static Duration duration(Profile p) {
    return p.duration().compareTo(MIN_DURATION) >= 0 ? p.duration() : MIN_DURATION;
  }

  /**
   * Runs {@code cell} on {@code s} with a recording on, and keeps its profile under the variant and
   * cell; a server without a process id (an external target) just runs the cell.
   */
  void profile(Variant v, QueryType t, boolean filtered, Session s, CellProfile.Cell cell)
      throws IOException, InterruptedException {
    String name = t.label() + (filtered ? " filtered" : "");
    var pid = s.serverPid();
    if (pid.isEmpty()) {
      cell.run();
      return;
    }
    Path file = dir.resolve(v.label() + "-" + t.label() + (filtered ? "-filtered" : "") + ".jfr");
    Optional<CellProfile.Result> r = CellProfile.record(pid.getAsLong(), file, cell, log);
    if (!keepRecordings) {
      Files.deleteIfExists(file);
    }
    r.ifPresent(
        p -> {
          byVariant.computeIfAbsent(v.label(), k -> new LinkedHashMap<>()).put(name, p);
          log.printf("profile: %s %s: %s%n", v.label(), name, CellProfile.describe(p));
        });
  }

  /** A variant's profiles by cell, for its entry in {@code scale.json}; empty when it has none. */
  ObjectNode json(Variant v) {
    ObjectNode o = Json.object();
    byVariant.getOrDefault(v.label(), Map.of()).forEach((cell, r) -> o.set(cell, r.json()));
    return o;
  }
}
