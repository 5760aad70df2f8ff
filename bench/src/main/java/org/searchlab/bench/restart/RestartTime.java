package org.searchlab.bench.restart;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.searchlab.core.IndexStats;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.mutable.MutableIndex;
import org.searchlab.mutable.hnsw.HnswConfig;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Measures how long a mutable index takes to reopen from its snapshot: builds the index once from
 * {@link SyntheticCorpus} (seeded, so the same {@code --docs}, {@code --dims} and {@code --seed}
 * give the same index), closes it (a clean close writes the snapshot and trims the log), then opens
 * it in {@code rounds} fresh JVMs, as a server restart does, and reports each phase of the open
 * (the store's {@code open_<phase>_ms} counters) and the median over the rounds.
 *
 * <p>Not thread-safe: one run at a time per directory (the store locks it anyway).
 */
public final class RestartTime {
  /**
   * What to build and how often to reopen it.
   *
   * @param buildBudget how long one run may build before it closes the index (the next run goes
   *     on); zero for no limit
   * @param efConstruction the graph's build beam while building (the store's default is 200); the
   *     snapshot's layout and size do not depend on it, adjacency lists being bounded by M
   * @param buildThreads threads linking graph nodes while building
   */
  public record Settings(
      Path dir,
      int docs,
      int dims,
      long seed,
      int rounds,
      int bulkSize,
      String heap,
      Duration buildBudget,
      int efConstruction,
      int buildThreads) {}

  private final Settings settings;
  private final PrintStream out;

  public RestartTime(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /**
   * Builds the index (or goes on building it) until it holds {@code docs} documents, then times the
   * reopens; returns the medians, or an empty map when the build budget ran out first (run again to
   * go on).
   */
  public Map<String, Long> run() throws IOException, InterruptedException {
    if (!build()) {
      return Map.of();
    }
    if (settings.rounds() == 0) {
      return Map.of("built", (long) settings.docs());
    }
    Map<String, List<Long>> rounds = new LinkedHashMap<>();
    for (int r = 1; r <= settings.rounds(); r++) {
      Map<String, Long> phases = openInChild();
      StringBuilder line = new StringBuilder("round " + r + ":");
      phases.forEach(
          (phase, ms) -> {
            rounds.computeIfAbsent(phase, p -> new ArrayList<>()).add(ms);
            line.append(' ').append(phase).append('=').append(ms).append("ms");
          });
      out.println(line);
    }
    Map<String, Long> medians = new LinkedHashMap<>();
    out.println("median of " + settings.rounds() + " fresh-JVM opens:");
    rounds.forEach(
        (phase, values) -> {
          long[] v = values.stream().mapToLong(Long::longValue).sorted().toArray();
          long median = v[v.length / 2];
          medians.put(phase, median);
          out.printf("  %-10s %8d ms   (rounds: %s)%n", phase, median, Arrays.toString(v));
        });
    return medians;
  }

  private MutableConfig buildConfig() {
    // No periodic snapshot while building: each close writes one.
    return MutableConfig.builder()
        .snapshotInterval(Duration.ZERO)
        .hnsw(
            HnswConfig.builder()
                .efConstruction(settings.efConstruction())
                .buildThreads(settings.buildThreads())
                .build())
        .build();
  }

  /**
   * Feeds documents {@code doc-<n>} to {@code doc-<docs-1>} in order, where n is how many the index
   * holds already, until all are in or the build budget is spent, then closes it (a snapshot).
   * Returns whether the index is complete.
   */
  private boolean build() throws IOException {
    SyntheticCorpus corpus = new SyntheticCorpus(settings.seed(), settings.dims());
    long t0 = System.nanoTime();
    long deadline =
        settings.buildBudget().isZero() ? Long.MAX_VALUE : t0 + settings.buildBudget().toNanos();
    int i;
    try (MutableIndex index =
        MutableIndex.open(settings.dir(), new Schema(settings.dims()), buildConfig())) {
      i = (int) index.stats().docCount();
      if (i >= settings.docs()) {
        out.printf("restart-time: the index in %s holds %,d documents%n", settings.dir(), i);
        return true;
      }
      out.printf(
          "restart-time: building documents %,d to %,d, %d dimensions (seed %d), in %s%n",
          i, settings.docs() - 1, settings.dims(), settings.seed(), settings.dir());
      List<Operation> ops = new ArrayList<>(settings.bulkSize());
      while (i < settings.docs() && System.nanoTime() < deadline) {
        ops.add(Operation.put(corpus.document(i)));
        i++;
        if (ops.size() == settings.bulkSize() || i == settings.docs()) {
          if (index.bulk(ops).stream().anyMatch(r -> r.failed())) {
            throw new IOException("a bulk item failed while building, before document " + i);
          }
          ops.clear();
        }
        if (i % 100_000 == 0) {
          out.printf("  %,d documents fed (%.0f s)%n", i, (System.nanoTime() - t0) / 1e9);
        }
      }
      if (!ops.isEmpty() && index.bulk(ops).stream().anyMatch(r -> r.failed())) {
        throw new IOException("a bulk item failed while building, before document " + i);
      }
      out.printf(
          "  %,d documents after %.0f s; closing (writes the snapshot)%n",
          index.stats().docCount(), (System.nanoTime() - t0) / 1e9);
    }
    out.printf("  closed after %.0f s%n", (System.nanoTime() - t0) / 1e9);
    if (i < settings.docs()) {
      out.println("  the build budget is spent: run the same command again to go on");
      return false;
    }
    return true;
  }

  private Map<String, Long> openInChild() throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(
        List.of(
            "--add-modules",
            "jdk.incubator.vector",
            "-ea",
            "-Xmx" + settings.heap(),
            "-cp",
            System.getProperty("java.class.path"),
            OpenOnce.class.getName(),
            settings.dir().toString(),
            Integer.toString(settings.dims())));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Map<String, Long> phases = new LinkedHashMap<>();
    List<String> other = new ArrayList<>();
    long documents = -1;
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith("phase ")) {
          String[] f = line.split(" ");
          phases.put(f[1], Long.parseLong(f[2]));
        } else if (line.startsWith("docs ")) {
          documents = Long.parseLong(line.substring(5));
        } else {
          other.add(line);
        }
      }
    }
    int code = p.waitFor();
    if (code != 0 || !phases.containsKey("total")) {
      throw new IOException("the reopening JVM failed (exit " + code + "): " + other);
    }
    if (documents != settings.docs()) {
      throw new IOException(
          "the reopened index holds " + documents + " documents, not " + settings.docs());
    }
    return phases;
  }

  /**
   * The child: opens the index once, prints {@code phase <name> <ms>} per open phase and the total
   * time {@link MutableIndex#open} took, checks the document count and closes it.
   */
  public static final class OpenOnce {
    private OpenOnce() {}

    public static void main(String[] args) throws IOException {
      Path dir = Path.of(args[0]);
      Schema schema = new Schema(Integer.parseInt(args[1]));
      long t0 = System.nanoTime();
      // As a server opens it by default, but without a periodic snapshot timer.
      MutableConfig config = MutableConfig.builder().snapshotInterval(Duration.ZERO).build();
      try (MutableIndex index = MutableIndex.open(dir, schema, config)) {
        long total = (System.nanoTime() - t0) / 1_000_000;
        IndexStats s = index.stats();
        s.counters().entrySet().stream()
            .filter(e -> e.getKey().startsWith("open_"))
            .forEach(
                e ->
                    System.out.println(
                        "phase "
                            + e.getKey().substring(5, e.getKey().length() - 3)
                            + " "
                            + e.getValue()));
        System.out.println("phase total " + total);
        System.out.println("docs " + s.docCount());
      }
    }
  }
}
