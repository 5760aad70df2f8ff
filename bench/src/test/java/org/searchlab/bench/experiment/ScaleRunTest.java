package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.distribution.SearchlabCli;
import org.searchlab.testing.TestSeeds;

/**
 * The scale job end to end on small sizes (design-68 §6): a seeded synthetic corpus at 16
 * dimensions grown 2k → 8k on real mutable and segmented server children, with a force-merged copy
 * per size, lexical and vector cells at 4 clients in 2 rounds of tiny cells. It checks what a scale
 * run promises: rows per size, variant and type carrying their size, recall at the target or
 * marked, the report's slopes equal to a least-squares slope recomputed here from the rows, the
 * mutable store's float vectors where N × 16 × 4 bytes puts them, each store's memory parts summing
 * to what it reported, the stores' visited vectors per vector search on every vector row, the
 * restart and memory probe at the largest size and at the smallest (its base: the probe plan names
 * only the largest, and the run's first size comes with it) with the check below the noise floor
 * (8k × 16-d cannot grow the RSS by 256 MiB: this asserts the rule, not a number), the plots, and
 * the report rendered again by {@code --report-only}. The probes warm with {@value #PROBE_WARM}
 * queries per type rather than 1,000, to keep the test's four extra restarts per probed size short.
 */
class ScaleRunTest {
  // Two sizes, not three (design-68 §6's fallback): the probe's eight server starts cost about what
  // a middle size did, and the suite's time must not grow. 2k → 8k keeps a factor of 4 for slopes.
  private static final List<Integer> SIZES = List.of(2_000, 8_000);
  private static final int DIM = 16;
  private static final int CLIENTS = 4;
  private static final double TARGET = 0.95;
  private static final int PROBE_WARM = 20;

  @Test
  void growsEachStoreThroughTheSizesAndReportsItsSlopes(
      @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
    long seed = TestSeeds.seed("ScaleRunTest");
    Profile p =
        Profile.quick().toBuilder()
            .docs(SIZES.getLast())
            .dimension(DIM)
            .clients(List.of(CLIENTS))
            .warmup(Duration.ofMillis(30))
            .duration(Duration.ofMillis(100))
            .vectorBeams(List.of(10, 40))
            .hybridBeams(List.of(100))
            .recallQueries(12)
            .calibrationQueries(12)
            .rounds(2)
            .sweepDocs(0)
            .facets(false)
            .sameClientFeed(false)
            .heaps(new ServerHeaps("320m", "256m", "256m"))
            .scaleSizes(SIZES)
            .scaleClients(CLIENTS)
            .scaleTypes(List.of(QueryType.LEXICAL, QueryType.VECTOR))
            .build();
    Corpus corpus = Corpus.synthetic(seed, SIZES.getLast(), DIM, 60);
    Path out = dir.resolve("results");
    List<Variant> variants =
        List.of(Variant.MUTABLE, Variant.SEGMENTED, Variant.SEGMENTED_FORCEMERGED);
    List<ResultRow> rows =
        new ScaleRun(
                p,
                variants,
                corpus,
                out,
                Path.of(".").toAbsolutePath(),
                new PrintStream(System.out, true),
                false)
            .probing(ScaleProbes.at(List.of(SIZES.getLast()), PROBE_WARM))
            // One size's profiles: the machinery, not the sentences' arithmetic (ScaleWhyTest).
            .profiling(Duration.ofMillis(150), List.of(SIZES.getLast()))
            .run();

    // Rows per size, variant and type, each with the size it was measured at.
    for (int n : SIZES) {
      for (Variant v : variants) {
        for (String type : List.of("lexical", "vector")) {
          for (boolean filtered : new boolean[] {false, true}) {
            String what = n + " " + v.label() + " " + type + (filtered ? " filtered" : "");
            String phase = type.equals("vector") ? Phases.AT_TARGET : PairedRounds.phaseOf(v);
            List<ResultRow> cell = cell(rows, n, v.label(), phase, type, filtered);
            assertEquals(2, cell.stream().filter(r -> r.round() != null).count(), what);
            assertEquals(1, cell.stream().filter(r -> r.round() == null).count(), what);
          }
        }
      }
      for (String v : List.of("mutable", "segmented")) {
        ResultRow feed = feed(rows, n, v, Phases.SCALE_FEED);
        assertEquals(n - previous(n), feed.requests(), "the interval's documents " + v);
        assertEquals(n, feed(rows, n, v, Phases.SCALE_FEED_CUMULATIVE).requests(), v);
      }
      ResultRow merge = feed(rows, n, "segmented-forcemerged", Phases.FORCE_MERGE);
      assertEquals(1, merge.segments(), "merged to one segment at " + n);
      assertTrue(merge.seconds() > 0, "force-merge seconds at " + n);
    }
    assertTrue(rows.stream().noneMatch(r -> r.docs() == null), "every row has its size");
    assertTrue(
        rows.stream().noneMatch(r -> "hybrid".equals(r.queryType())), "only the types asked for");

    String report = Files.readString(out.resolve("report.md"));
    // Recall at the target, or the report says it is below.
    for (ResultRow r : rows) {
      if (Phases.AT_TARGET.equals(r.phase()) && r.round() == null) {
        boolean reached = r.recallAt10() != null && r.recallAt10() >= TARGET - 1e-6;
        String line =
            String.format(
                java.util.Locale.ROOT,
                "| %,d | %s%s | %s |",
                r.docs(),
                r.queryType(),
                Boolean.TRUE.equals(r.filtered()) ? " filtered" : "",
                r.variant());
        assertTrue(
            reached || report.lines().anyMatch(l -> l.startsWith(line) && l.contains("below")),
            "recall " + r.recallAt10() + " of " + line + " neither reached nor marked");
      }
    }

    // The report's slopes are the least-squares slopes of ln(CPU per query) on ln(N) of the rows;
    // where a round has no CPU per query (a tiny cell on a busy machine can read 0 server CPU),
    // the report must give none rather than fit a subset.
    int checked = 0;
    for (String type : List.of("lexical", "vector")) {
      for (boolean filtered : new boolean[] {false, true}) {
        for (Variant v : variants) {
          double[][] costs = new double[SIZES.size()][];
          boolean complete = true;
          for (int i = 0; i < SIZES.size(); i++) {
            String phase = type.equals("vector") ? Phases.AT_TARGET : PairedRounds.phaseOf(v);
            List<ResultRow> rounds =
                cell(rows, SIZES.get(i), v.label(), phase, type, filtered).stream()
                    .filter(r -> r.round() != null)
                    .sorted((a, b) -> a.round() - b.round())
                    .toList();
            complete &= rounds.stream().allMatch(r -> r.qpsPerCore() != null && r.qpsPerCore() > 0);
            costs[i] = rounds.stream().mapToDouble(r -> 1 / r.qpsPerCore()).toArray();
          }
          String what = type + (filtered ? " filtered " : " ") + v.label();
          double[] slope = reportedSlope(report, type, filtered, v.label());
          if (!complete) {
            assertEquals(null, slope, "a slope fitted on a subset, " + what);
            continue;
          }
          assertTrue(slope != null, "no slope of " + what);
          what += ": " + Arrays.toString(slope);
          double[] medians = Arrays.stream(costs).mapToDouble(ScaleRunTest::median).toArray();
          assertEquals(ols(medians), slope[3], 0.006, "through the medians, " + what);
          double[] perRound = new double[costs[0].length];
          for (int r = 0; r < perRound.length; r++) {
            final int round = r;
            perRound[r] = ols(Arrays.stream(costs).mapToDouble(c -> c[round]).toArray());
          }
          assertEquals(median(perRound), slope[0], 0.006, "per-round median, " + what);
          assertTrue(slope[1] <= slope[0] && slope[0] <= slope[2], "low ≤ median ≤ high, " + what);
          checked++;
        }
      }
    }
    System.out.println("[ScaleRunTest] slopes checked against the rows: " + checked + " of 12");
    assertTrue(checked > 0, "no store and type had CPU per query in every round at every size");
    assertTrue(report.contains("### vector filtered, 4 clients"), report);
    assertTrue(report.contains("| 8,000 |"), report);
    assertTrue(report.contains("visited/query |"), "the vector tables' visited column");

    // Memory: each store's parts sum to what it reported; mutable's floats are N × 16 × 4 bytes
    // plus at most twice the per-vector overhead its first size showed.
    JsonNode scale = new ObjectMapper().readTree(out.resolve("run.json").toFile()).path("scale");
    assertEquals(SIZES.size(), scale.path("per_size").size(), scale.toString());
    double overhead = -1;
    for (JsonNode size : scale.path("per_size")) {
      long n = size.path("docs").asLong();
      for (String v : List.of("mutable", "segmented", "segmented-forcemerged")) {
        JsonNode s = size.path("servers").path(v);
        long parts = 0;
        for (JsonNode b : s.path("parts_bytes")) {
          parts += b.asLong();
        }
        long reported = 0;
        for (JsonNode b : s.path("reported_bytes")) {
          reported += b.asLong();
        }
        assertTrue(reported > 0, v + " at " + n + ": " + s);
        assertEquals(reported, parts, v + " at " + n + ": the parts sum to the reported bytes");
        assertEquals(parts, s.path("total_bytes").asLong(), v + " at " + n);
        assertTrue(s.path("peak_rss_bytes").asLong() > 0, v + " at " + n + ": " + s);
      }
      long floats =
          size.path("servers")
              .path("mutable")
              .path("reported_bytes")
              .path("memory_bytes.vectors")
              .asLong();
      long exact = n * DIM * Float.BYTES;
      if (overhead < 0) {
        overhead = (double) (floats - exact) / n;
        assertTrue(
            overhead >= 0 && overhead < DIM * Float.BYTES, "per-vector overhead " + overhead);
      }
      assertTrue(
          floats >= exact && floats <= exact + 2 * overhead * n,
          "mutable's vectors at " + n + ": " + floats + " bytes against " + exact);
    }

    // Visited vectors per vector search on every vector row of every store, none on lexical ones.
    for (ResultRow r : rows) {
      if (r.queryType() != null
          && r.phase().equals(PairedRounds.phaseOf(Variant.parse(r.variant())))) {
        String what = r.docs() + " " + r.variant() + " " + r.queryType() + " round " + r.round();
        if (r.queryType().equals("vector")) {
          assertTrue(r.visitedPerQuery() != null && r.visitedPerQuery() > 0, what);
        } else {
          assertEquals(null, r.visitedPerQuery(), what);
        }
      }
    }

    // The probe: at the largest size and at the first (the base), of the grown stores only, with
    // the two restarts timed and the store's open phases; the check below the noise floor.
    for (JsonNode size : scale.path("per_size")) {
      int n = size.path("docs").asInt();
      boolean probed = n == SIZES.getFirst() || n == SIZES.getLast();
      for (String v : List.of("mutable", "segmented", "segmented-forcemerged")) {
        JsonNode probe = size.path("servers").path(v).path("probe");
        String what = v + " at " + n + ": " + probe;
        assertEquals(probed && !v.equals("segmented-forcemerged"), probe.isObject(), what);
        if (!probe.isObject()) {
          continue;
        }
        for (String restart : List.of("probe_restart", "return_restart")) {
          JsonNode r = probe.path(restart);
          assertTrue(r.path("close_ms").asDouble() > 0, restart + " close, " + what);
          assertTrue(r.path("start_to_first_query_ms").asDouble() > 0, restart + ", " + what);
          assertTrue(r.path("open_total_ms").isNumber(), restart + " open_total_ms, " + what);
        }
        assertTrue(probe.path("reading").path("vm_rss_bytes").asLong() > 0, what);
        assertTrue(probe.path("reading").path("accounted_bytes").asLong() > 0, what);
        JsonNode check = probe.path("check");
        assertEquals(SIZES.getFirst(), check.path("base_docs").asInt(), what);
        if (n == SIZES.getFirst()) {
          assertEquals("base", check.path("judgement").asText(), what);
        } else {
          assertEquals("below_noise_floor", check.path("judgement").asText(), what);
          assertTrue(check.path("verdict").asText().startsWith("below the noise floor"), what);
          assertTrue(
              check.path("rss_growth_bytes").asLong() < RestartProbe.NOISE_FLOOR_BYTES, what);
          String line = String.format(java.util.Locale.ROOT, "| %,d | %s |", n, v);
          assertTrue(
              report
                  .lines()
                  .anyMatch(
                      l ->
                          l.startsWith(line)
                              && l.endsWith("below the noise floor (RSS growth < 256 MiB) |")),
              "the memory-check row of " + line);
        }
      }
    }
    // The profiles: every measured server at the profiled size, each cell's parts summing to 1.
    for (JsonNode size : scale.path("per_size")) {
      int n = size.path("docs").asInt();
      for (String v : List.of("mutable", "segmented", "segmented-forcemerged")) {
        JsonNode profile = size.path("servers").path(v).path("profile");
        String what = v + " at " + n + ": " + profile;
        if (n != SIZES.getLast()) {
          assertTrue(profile.isMissingNode(), what);
          continue;
        }
        for (String cell : List.of("lexical", "lexical filtered", "vector", "vector filtered")) {
          JsonNode c = profile.path(cell);
          assertTrue(c.path("samples").asInt() > 0, cell + ", " + what);
          double sum = 0;
          for (JsonNode share : c.path("parts")) {
            sum += share.asDouble();
          }
          assertEquals(1.0, sum, 1e-9, cell + ", " + what);
        }
      }
    }
    assertTrue(report.contains("## Why the costs grow"), report);
    assertTrue(report.contains("From 2,000 to 8,000 documents: "), report);
    assertTrue(report.contains("## Restart and memory probe"), report);
    assertTrue(report.contains("### Restarts (ms)"), report);
    assertTrue(report.contains("### Memory check (MiB)"), report);
    assertTrue(report.contains("with a warm page cache"), report);

    // The plots, and the report rendered again from the run directory alone.
    List<String> pngs = new ArrayList<>();
    Matcher m = Pattern.compile("!\\[(scale-[a-z-]+\\.png)\\]").matcher(report);
    while (m.find()) {
      pngs.add(m.group(1));
    }
    assertEquals(
        List.of(
            "scale-cpu-lexical.png",
            "scale-cpu-vector.png",
            "scale-ratios.png",
            "scale-feed.png",
            "scale-memory.png",
            "scale-segments.png",
            "scale-force-merge.png",
            "scale-restart.png"),
        pngs);
    for (String png : pngs) {
      assertTrue(Files.size(out.resolve(png)) > 0, png);
    }
    Files.delete(out.resolve("report.md"));
    assertEquals(0, SearchlabCli.commandLine().execute("experiment", "--report-only=" + out));
    assertEquals(report, Files.readString(out.resolve("report.md")), "--report-only");
  }

  private static int previous(int n) {
    int i = SIZES.indexOf(n);
    return i == 0 ? 0 : SIZES.get(i - 1);
  }

  private static List<ResultRow> cell(
      List<ResultRow> rows, int n, String v, String phase, String type, boolean filtered) {
    return rows.stream()
        .filter(
            r ->
                r.docs() == n
                    && v.equals(r.variant())
                    && phase.equals(r.phase())
                    && type.equals(r.queryType())
                    && Boolean.valueOf(filtered).equals(r.filtered())
                    && r.clients() == CLIENTS)
        .toList();
  }

  private static ResultRow feed(List<ResultRow> rows, int n, String v, String phase) {
    return rows.stream()
        .filter(r -> r.docs() == n && v.equals(r.variant()) && phase.equals(r.phase()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + phase + " row of " + v + " at " + n));
  }

  /**
   * The slope line of a store under a cell's table: per-round median, low, high, and the slope
   * through the medians; null where the report gives none ("–").
   */
  private static double[] reportedSlope(
      String report, String type, boolean filtered, String variant) {
    String name =
        switch (variant) {
          case "segmented-forcemerged" -> "force-merged";
          case "segmented" -> "default";
          default -> variant;
        };
    String heading = "### " + type + (filtered ? " filtered" : "") + ", " + CLIENTS + " clients";
    assertTrue(report.contains(heading), heading);
    String table = report.substring(report.indexOf(heading));
    table = table.substring(0, table.indexOf("\n\n", table.indexOf("Slope of CPU")));
    Matcher none = Pattern.compile("\\n- " + Pattern.quote(name) + ": –").matcher(table);
    if (none.find()) {
      return null;
    }
    Matcher m =
        Pattern.compile(
                "\\n- "
                    + Pattern.quote(name)
                    + ": (-?[0-9.]+) \\[(-?[0-9.]+)–(-?[0-9.]+)\\]; (-?[0-9.]+)")
            .matcher(table);
    assertTrue(m.find(), "no slope line of " + variant + " under " + heading + ": " + table);
    return new double[] {
      Double.parseDouble(m.group(1)),
      Double.parseDouble(m.group(2)),
      Double.parseDouble(m.group(3)),
      Double.parseDouble(m.group(4))
    };
  }

  /** The least-squares slope of ln(cost) on ln(size), written out here rather than reused. */
  private static double ols(double[] costs) {
    Map<Double, Double> pts = new TreeMap<>();
    for (int i = 0; i < costs.length; i++) {
      pts.put(Math.log(SIZES.get(i)), Math.log(costs[i]));
    }
    double mx = pts.keySet().stream().mapToDouble(d -> d).average().orElseThrow();
    double my = pts.values().stream().mapToDouble(d -> d).average().orElseThrow();
    double num = 0;
    double den = 0;
    for (Map.Entry<Double, Double> e : pts.entrySet()) {
      num += (e.getKey() - mx) * (e.getValue() - my);
      den += (e.getKey() - mx) * (e.getKey() - mx);
    }
    return num / den;
  }

  private static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }
}
