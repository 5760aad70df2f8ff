package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.testing.TestSeeds;

/**
 * The merge-policy comparison end to end on a small synthetic corpus against real {@code searchlab
 * serve} children (mutable, a tiered policy that merges at every chance, none): every variant has
 * its feed, refeed rounds, cells at rest and while a refeed runs with intervals; {@code
 * merge-policies.json} has every window, consistent with itself and with the kernel; the report
 * names every variant and links plots that exist. No timing is asserted.
 */
class MergePolicyComparisonTest {
  private static final String TIERED = "tiered:segments_per_tier=2,max_merge_at_once=2";

  @Test
  void smallComparisonProducesRowsWindowsAndReport(
      @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
    long seed = TestSeeds.seed("MergePolicyComparisonTest");
    Profile p =
        Profile.quick().toBuilder()
            // the servers' writes at nice 0, as in ExperimentIntegrationTest (which says why)
            .serverFeedNiceness(0.0)
            .docs(800)
            .dimension(16)
            .clients(List.of(2))
            .warmup(Duration.ofMillis(50))
            .duration(Duration.ofMillis(120))
            .vectorBeams(List.of(10, 40))
            .recallQueries(20)
            .calibrationQueries(20)
            .rounds(2)
            .build();
    Corpus corpus = Corpus.synthetic(seed, p.docs(), p.dimension(), 60);
    List<MergePolicySpec> policies = MergePolicySpec.parseList(TIERED + ",none");
    Path out = dir.resolve("results");
    List<ResultRow> rows =
        new MergePolicyComparison(
                p,
                policies,
                corpus,
                out,
                Path.of(".").toAbsolutePath(),
                new PrintStream(System.out, true),
                false)
            // bulks of 40 and a refresh every 20 ms: tens of segments from 800 documents
            .feedWith(40, 20)
            .run();
    List<String> variants = List.of("mutable", TIERED, "none");
    ObjectMapper json = new ObjectMapper();

    // results.jsonl: the rows returned, each variant's feed, refeed rounds and cells
    List<String> lines = Files.readAllLines(out.resolve("results.jsonl"));
    assertEquals(rows.size(), lines.size());
    Map<String, Integer> count = new HashMap<>();
    for (String l : lines) {
      JsonNode n = json.readTree(l);
      String key =
          n.get("variant").asText()
              + "/"
              + n.get("phase").asText()
              + "/"
              + (n.get("round").isNull() ? "summary" : "round");
      count.merge(key, 1, Integer::sum);
      assertEquals(0, n.get("errors").asLong(), "errors in " + n);
      if (n.get("query_type").isNull()) {
        assertTrue(n.get("docs_per_sec_per_core").asDouble() > 0, "feed rate per core in " + n);
      } else if (n.get("round").isNull()
          && (n.get("phase").asText().equals("after_flush")
              || n.get("phase").asText().equals("during_refeed"))) {
        // summaries of two rounds: a median and its interval
        assertEquals(2, n.get("rounds").asInt(), "rounds in " + n);
        assertTrue(n.get("qps_low").asDouble() <= n.get("qps").asDouble(), n.toString());
        assertTrue(n.get("qps").asDouble() <= n.get("qps_high").asDouble(), n.toString());
        if (!n.get("query_type").asText().equals("lexical")) {
          assertTrue(n.get("recall_at_10").isNumber(), "recall in " + n);
          assertTrue(n.get("num_candidates").asInt() > 0, "beam in " + n);
        }
      }
    }
    for (String v : variants) {
      assertEquals(1, count.getOrDefault(v + "/feed/summary", 0), v + " feed row");
      assertEquals(2, count.getOrDefault(v + "/refeed/round", 0), v + " refeed rounds");
      assertEquals(1, count.getOrDefault(v + "/refeed/summary", 0), v + " refeed summary");
      // 3 query types × 2 filters × 1 client count, at rest
      assertEquals(6, count.getOrDefault(v + "/after_flush/summary", 0), v + " cells at rest");
      assertEquals(12, count.getOrDefault(v + "/after_flush/round", 0), v + " rounds at rest");
      // 3 query types × 1 client count while feeding
      assertEquals(3, count.getOrDefault(v + "/during_refeed/summary", 0), v + " cells feeding");
      assertEquals(6, count.getOrDefault(v + "/during_refeed/round", 0), v + " rounds feeding");
    }

    // merge-policies.json: the policies with their flags, every window consistent
    JsonNode mp = json.readTree(out.resolve(MergePolicyComparison.POLICIES_FILE).toFile());
    List<String> labels = new ArrayList<>();
    mp.get("policies").forEach(x -> labels.add(x.get("label").asText()));
    assertEquals(variants, labels);
    assertTrue(
        mp.get("policies")
            .get(1)
            .get("serve_flags")
            .toString()
            .contains("--segments-per-tier=2.0"));
    Map<String, Integer> windows = new HashMap<>();
    for (JsonNode w : mp.get("windows")) {
      String v = w.get("variant").asText();
      String phase = w.get("phase").asText();
      windows.merge(v + "/" + phase, 1, Integer::sum);
      boolean segmented = !v.equals("mutable");
      if (w.get("kernel_write_bytes").isNumber() && !phase.equals("force_merge")) {
        // the log alone of 800 documents is tens of kilobytes
        assertTrue(w.get("kernel_write_bytes").asLong() > 10_000, "kernel bytes in " + w);
      }
      if (segmented) {
        long index = w.get("index_bytes").asLong();
        assertTrue(index > 0, "index bytes in " + w);
        if (w.get("merge_bytes").isNumber()) {
          assertEquals(
              w.get("merge_bytes").asDouble() / index,
              w.get("write_amplification").asDouble(),
              1e-9,
              "write amplification in " + w);
        }
        assertTrue(w.get("polls").asInt() >= 2, "segment polls in " + w);
      }
      if (v.equals("none")) {
        if (phase.equals("force_merge")) {
          assertEquals(1, w.get("segments").asInt(), "none force-merged: " + w);
          assertTrue(w.get("vanished_docs").asLong() > 0, "the merge took segments: " + w);
        } else {
          // never merges on its own
          assertEquals(0, w.get("merge_threads").asInt(), "merge threads of none in " + w);
          if (w.get("merges_total").isNumber()) {
            assertEquals(0, w.get("merges_total").asLong(), "merges of none in " + w);
          }
        }
      }
    }
    for (String v : variants) {
      assertEquals(1, windows.getOrDefault(v + "/feed", 0), v + " feed window");
      assertEquals(2, windows.getOrDefault(v + "/refeed", 0), v + " refeed windows");
    }
    // none: after its feed and after each refeed
    assertEquals(3, windows.getOrDefault("none/force_merge", 0));
    assertFalse(windows.containsKey("mutable/force_merge"));

    // the timeline: segmented variants only, each poll's sizes add up to its bytes
    Set<String> polled = new HashSet<>();
    for (String l : Files.readAllLines(out.resolve(MergePolicyComparison.TIMELINE_FILE))) {
      JsonNode t = json.readTree(l);
      polled.add(t.get("variant").asText());
      long sum = 0;
      for (JsonNode s : t.get("sizes")) {
        sum += s.asLong();
      }
      assertEquals(t.get("count").asInt(), t.get("sizes").size(), t.toString());
      assertEquals(t.get("bytes").asLong(), sum, t.toString());
    }
    assertEquals(Set.of(TIERED, "none"), polled);

    // the report: every variant, the force-merge said, the checks, plots that exist
    String report = Files.readString(out.resolve("report.md"));
    for (String v : variants) {
      assertTrue(report.contains(v), v + " in the report");
    }
    assertTrue(report.contains("force-merged to one segment"), "the force-merge is said");
    assertTrue(report.contains("## Findings"));
    assertTrue(report.contains("Cheapest to feed"));
    assertTrue(report.contains("## The store's merge accounting, checked"));
    Matcher png = Pattern.compile("\\]\\(([^)]+\\.png)\\)").matcher(report);
    int images = 0;
    while (png.find()) {
      images++;
      assertTrue(Files.size(out.resolve(png.group(1))) > 0, png.group(1));
    }
    assertEquals(3, images, "timeline, sizes and costs plots");
    assertTrue(json.readTree(out.resolve("run.json").toFile()).get("minutes").asDouble() > 0);
    // the servers' data is gone without --keep-data, their logs stay
    assertFalse(Files.exists(out.resolve("data")));
    assertTrue(Files.exists(out.resolve("logs").resolve("policy-none.log")));
  }
}
