package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.testing.TestSeeds;

/**
 * What the {@code full} profile changes in a run, at a tiny scale against a real server child (one,
 * the segmented store's: a server start is most of this test's time): the server gets its store's
 * heap, not the mutable store's nor the profile's server heap, the write phases rewrite only the
 * first {@code writeDocs} documents, and the faceted cells do not run; and what the run records of
 * the server's memory (the major page faults of each cell, the peaks in {@code run.json}). (That
 * the same-client feed is left out is {@link ProfileTest}'s: it needs a second store.)
 */
class FullPlumbingIntegrationTest {
  @Test
  void theStoresHeapAPrefixOfWritesAndNoFacets(@TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir)
      throws Exception {
    long seed = TestSeeds.seed("FullPlumbingIntegrationTest");
    Profile p =
        Profile.quick().toBuilder()
            // the servers' writes at nice 0, as in ExperimentIntegrationTest (which says why)
            .serverFeedNiceness(0.0)
            .docs(600)
            .dimension(16)
            .clients(List.of(2))
            .refeedClients(List.of(2))
            .warmup(Duration.ofMillis(30))
            .duration(Duration.ofMillis(80))
            .vectorBeams(List.of(10, 100))
            .hybridBeams(List.of(100))
            .recallQueries(10)
            .calibrationQueries(10)
            .rounds(1)
            .sweepDocs(0)
            .heaps(new ServerHeaps("320m", "256m", "256m"))
            .writeDocs(200)
            .facets(false)
            .sameClientFeed(false)
            .build();
    Corpus corpus = Corpus.synthetic(seed, p.docs(), p.dimension(), 40);
    Path out = dir.resolve("results");
    List<ResultRow> rows =
        new ExperimentRunner(
                p,
                List.of(Variant.SEGMENTED),
                corpus,
                out,
                Path.of(".").toAbsolutePath(),
                new PrintStream(System.out, true),
                false)
            .run();
    // The first line of a server's log is its command line.
    String command = Files.readAllLines(out.resolve("logs").resolve("segmented.log")).get(0);
    assertTrue(command.contains(" -Xmx256m "), command);
    assertEquals(600L, feedDocs(rows, "segmented", Phases.FEED), "the feed has every document");
    assertEquals(200L, feedDocs(rows, "segmented", Phases.REFEED), "the refeed the first 200");
    assertEquals(200L, feedDocs(rows, "segmented", Phases.UPDATE), "the update the first 200");
    assertFalse(
        rows.stream().anyMatch(r -> FacetedRounds.LABEL.equals(r.queryType())), "no facets");
    assertTrue(
        rows.stream().anyMatch(r -> "hybrid".equals(r.queryType()) && r.numCandidates() == 100),
        "hybrid cells at the one hybrid beam");
    if (Files.isReadable(Path.of("/proc/self/status"))) {
      // Each measured round's cell counts the server's major page faults (estimates at the target
      // are made of two cells and count none); run.json has the server's memory peaks.
      assertTrue(
          rows.stream()
              .filter(r -> Phases.AFTER_FLUSH.equals(r.phase()) && r.round() != null)
              .allMatch(r -> r.majorFaults() != null && r.majorFaults() >= 0),
          "major faults of every round's cell");
      var memory =
          new com.fasterxml.jackson.databind.ObjectMapper()
              .readTree(out.resolve("run.json").toFile())
              .path("server_memory")
              .path("segmented");
      assertTrue(memory.path("peak_rss_bytes").asLong() > 0, memory.toString());
      assertTrue(
          memory.path("vm_hwm_bytes").asLong() >= memory.path("peak_rss_bytes").asLong(),
          memory.toString());
      assertTrue(memory.path("samples").asInt() > 0, memory.toString());
    }
  }

  private static long feedDocs(List<ResultRow> rows, String variant, String phase) {
    return rows.stream()
        .filter(r -> variant.equals(r.variant()) && phase.equals(r.phase()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + phase + " row of " + variant))
        .requests();
  }
}
