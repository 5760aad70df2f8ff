package org.searchlab.bench.experiment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which sizes of a scale run get the restart and memory probe ({@link RestartProbe}, design-68
 * §5.4), and how a probe's {@link RestartProbe.Result} is written into the scale section: per store
 * and size the two timed restarts, the readings, the accounting and the verdict of the check
 * against the base, the first size probed. Immutable; thread-safe ({@link #probe} stops and starts
 * one store's server: one caller per store).
 *
 * @param everySize whether every size is probed (the default); when false, {@code sizes} and the
 *     run's first size (the check's base) are
 * @param sizes the sizes probed when not every size is; each must be one of the run's sizes
 * @param warmQueriesPerType the probe's warm queries of each query type before its reading, ≥ 0
 *     (design 1,000): more touch more of the index before the resident set is read
 */
public record ScaleProbes(boolean everySize, List<Integer> sizes, int warmQueriesPerType) {
  /** What the verdict of the first size probed says: it is the base the others are checked on. */
  public static final String BASE =
      "base: the first size probed, the others are checked against it";

  public ScaleProbes {
    sizes = List.copyOf(sizes);
    if (warmQueriesPerType < 0) {
      throw new IllegalArgumentException(
          "warm queries per type must be ≥ 0; got " + warmQueriesPerType);
    }
  }

  /** The design's plan: every size probed, after 1,000 warm queries of each type. */
  public static ScaleProbes everySize(int warmQueriesPerType) {
    return new ScaleProbes(true, List.of(), warmQueriesPerType);
  }

  /**
   * {@code sizes} probed, and the run's first size with them, since the check needs a base: a test
   * that probes only its largest size checks it against its smallest.
   */
  public static ScaleProbes at(List<Integer> sizes, int warmQueriesPerType) {
    return new ScaleProbes(false, sizes, warmQueriesPerType);
  }

  /** No size probed: no restart and no check (for runs that cannot spare the restarts). */
  public static ScaleProbes none() {
    return new ScaleProbes(false, List.of(), 0);
  }

  /** Whether no size of {@code runSizes} is probed. */
  boolean off(List<Integer> runSizes) {
    return runSizes.stream().noneMatch(n -> probes(n, runSizes));
  }

  /** Whether size {@code n} of a run grown through {@code runSizes} is probed. */
  boolean probes(int n, List<Integer> runSizes) {
    if (everySize) {
      return true;
    }
    return !sizes.isEmpty() && (sizes.contains(n) || n == runSizes.get(0));
  }

  /**
   * Refuses a size the run does not grow to, naming it.
   *
   * @throws IllegalArgumentException when one of {@link #sizes} is not among {@code runSizes}
   */
  void check(List<Integer> runSizes) {
    for (int n : sizes) {
      if (!runSizes.contains(n)) {
        throw new IllegalArgumentException(
            "probe size " + n + " is not one of the scale sizes " + runSizes);
      }
    }
  }

  /** The probe's settings: the design's, with this plan's warm queries. */
  RestartProbe.Settings settings() {
    RestartProbe.Settings d = RestartProbe.Settings.defaults();
    return new RestartProbe.Settings(
        warmQueriesPerType, d.stopTimeout(), d.probeJvmFlags(), d.preload());
  }

  /**
   * Probes a grown store's measurement server ({@link RestartProbe}) with this plan's settings,
   * writes the probe into its server node ({@link #write}) against the store's base (the first
   * probe of the store, recorded in {@code bases}), and returns the measurement server's new
   * session, whose memory the sampler then watches under the variant's label.
   */
  Session probe(
      RunContext ctx,
      Corpus corpus,
      Variant v,
      Session s,
      int n,
      ObjectNode serverNode,
      Map<Variant, RestartProbe.Result> bases)
      throws IOException, InterruptedException {
    ctx.progress.step(
        "probe",
        String.format(
            "%s at %,d docs: stop, probe JVM (%d warm queries per type), start again",
            v.label(), n, warmQueriesPerType));
    RestartProbe.Outcome o =
        RestartProbe.run(
            s, RestartProbe.launchOf(ctx, corpus, v), ctx.load, corpus.queries(), n, settings());
    Session back = o.restarted();
    // The whole run's peak of the server goes on under its label with the new process.
    back.serverPid().ifPresent(pid -> ctx.memory.watch(v.label(), pid));
    RestartProbe.Result r = o.result();
    ObjectNode node = serverNode.putObject("probe");
    write(node, r, bases.computeIfAbsent(v, k -> r));
    ctx.progress.step(
        "probe",
        String.format(
            "%s at %,d docs: close %d ms, probe start → first query %d ms, back %d ms; RSS %,d,"
                + " heap after GC %,d, accounted %,d; %s",
            v.label(),
            n,
            r.probe().close().toMillis(),
            r.probe().startToFirstQuery().toMillis(),
            r.back().startToFirstQuery().toMillis(),
            r.reading().rss(),
            r.reading().heapUsedAfterGc(),
            r.reading().accountedBytes(),
            node.path("check").path("verdict").asText()));
    return back;
  }

  /**
   * Writes one probe into {@code node}: {@code probe_restart} (the measurement server's close, then
   * the probe JVM's start → {@code /health} → first query and the store's {@code open_<phase>_ms}),
   * {@code return_restart} (the probe's close, then the measurement server's start again), the
   * {@code reading} and the {@code check} against {@code base} ({@link #BASE} when {@code base} is
   * this result).
   */
  static void write(ObjectNode node, RestartProbe.Result r, RestartProbe.Result base) {
    restart(node.putObject("probe_restart"), r.probe());
    restart(node.putObject("return_restart"), r.back());
    node.putPOJO("preload", new TreeSet<>(r.preload()));
    RestartProbe.Reading m = r.reading();
    ObjectNode reading = node.putObject("reading");
    reading.put("vm_rss_bytes", m.rss());
    reading.put("rss_anon_bytes", m.rssAnon());
    reading.put("rss_file_bytes", m.rssFile());
    reading.put(
        "mapped_bytes", m.mappedByExtension().values().stream().mapToLong(Long::longValue).sum());
    reading.putPOJO("mapped_by_extension", new TreeMap<>(m.mappedByExtension()));
    reading.put("heap_used_after_gc_bytes", m.heapUsedAfterGc());
    reading.put("heap_committed_after_gc_bytes", m.heapCommittedAfterGc());
    if (m.gcStructuresBytes() >= 0) {
      reading.put("gc_structures_bytes", m.gcStructuresBytes());
    }
    reading.put("heap_overhead_bytes", m.heapOverheadBytes());
    reading.putPOJO("parts_bytes", new TreeMap<>(m.parts()));
    reading.put("parts_total_bytes", m.partsBytes());
    reading.put("preloaded_file_bytes", m.preloadedFileBytes());
    reading.put("store_bytes", m.storeBytes());
    reading.put("accounted_bytes", m.accountedBytes());
    ObjectNode check = node.putObject("check");
    check.put("base_docs", base.docs());
    if (base == r) {
      check.put("judgement", "base");
      check.put("verdict", BASE);
      return;
    }
    RestartProbe.Verdict v = r.against(base);
    check.put("judgement", v.judgement().name().toLowerCase(Locale.ROOT));
    check.put("accounted_growth_bytes", v.accountedGrowth());
    check.put("store_only_growth_bytes", v.storeOnlyGrowth());
    check.put("rss_growth_bytes", v.rssGrowth());
    if (Double.isFinite(v.relativeError())) {
      check.put("relative_error", v.relativeError());
      check.put("store_only_relative_error", v.storeOnlyRelativeError());
    }
    check.put("verdict", verdict(v));
  }

  /** "within 10% (+x%)", "off by +x%" or "below the noise floor (RSS growth < 256 MiB)". */
  static String verdict(RestartProbe.Verdict v) {
    return switch (v.judgement()) {
      case WITHIN -> String.format(Locale.ROOT, "within 10%% (%+.1f%%)", 100 * v.relativeError());
      case OUTSIDE -> String.format(Locale.ROOT, "off by %+.1f%%", 100 * v.relativeError());
      case BELOW_NOISE_FLOOR ->
          "below the noise floor (RSS growth < " + (RestartProbe.NOISE_FLOOR_BYTES >> 20) + " MiB)";
    };
  }

  /**
   * A restart's times in ms and the store's open phases as {@code open_<phase>_ms}, with {@code
   * open_total_ms} their sum (the stores report the phases, not a total).
   */
  private static void restart(ObjectNode node, RestartProbe.Restart r) {
    node.put("close_ms", ms(r.close()));
    node.put("to_health_ms", ms(r.toHealth()));
    node.put("to_first_query_ms", ms(r.toFirstQuery()));
    node.put("start_to_first_query_ms", ms(r.startToFirstQuery()));
    long total = 0;
    for (Map.Entry<String, Long> e : new TreeMap<>(r.openPhasesMs()).entrySet()) {
      node.put("open_" + e.getKey() + "_ms", e.getValue());
      total += e.getValue();
    }
    if (!r.openPhasesMs().isEmpty()) {
      node.put("open_total_ms", total);
    }
  }

  private static double ms(Duration d) {
    return d.toNanos() / 1e6;
  }
}
