package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.testing.TestSeeds;

/**
 * {@code --target} end to end at a tiny scale: a searchlab segmented server started here plays the
 * external endpoint (Elasticsearch dialect), measured next to a local segmented variant. The target
 * goes through the whole procedure, its CPU is read the only way a remote engine's can be, from its
 * {@code _nodes/stats} (the server answers it with its own JVM's process CPU, as Elasticsearch
 * does), never from this machine's {@code /proc}, and its lexical answers overlap the local store's
 * fully (the same engine fed the same documents).
 */
class TargetRunTest {
  @Test
  void aTargetRunsTheProcedureNextToALocalVariant(@TempDir Path dir) throws Exception {
    long seed = TestSeeds.seed("TargetRunTest");
    Profile p =
        Profile.quick().toBuilder()
            // the servers' writes at nice 0, as in ExperimentIntegrationTest (which says why)
            .serverFeedNiceness(0.0)
            .docs(600)
            .dimension(16)
            .clients(List.of(2))
            .refeedClients(List.of(2))
            .warmup(Duration.ofMillis(50))
            .duration(Duration.ofMillis(150))
            .recallQueries(10)
            .rounds(1)
            .calibrationQueries(10)
            .vectorBeams(List.of(10, 40, 400))
            .sweepDocs(0)
            .serverHeap("512m")
            .build();
    Corpus corpus = Corpus.synthetic(seed, p.docs(), p.dimension(), 40);
    try (ServerProcess target =
        ServerProcess.start(
            ServerOptions.defaults("segmented", p.dimension()),
            dir.resolve("target-data"),
            "512m",
            dir.resolve("target.log"))) {
      Variant mine = Variant.parseTarget("mine=" + target.base());
      Path out = dir.resolve("results");
      List<ResultRow> rows =
          new ExperimentRunner(
                  p,
                  List.of(Variant.SEGMENTED, mine),
                  corpus,
                  out,
                  Path.of(".").toAbsolutePath(),
                  new PrintStream(System.out, true),
                  false)
              .run();

      Set<String> phases = new HashSet<>();
      int lexicalSummaries = 0;
      for (ResultRow r : rows) {
        if (r.variant().equals("segmented")) {
          assertEquals("/proc", r.cpuSource(), r.toString());
          continue;
        }
        assertEquals("mine", r.variant(), r.toString());
        phases.add(r.phase());
        assertEquals(NodesStatsCpu.SOURCE, r.cpuSource(), "CPU from the target's stats: " + r);
        assertNull(r.cpuCoresSecond(), "a remote engine has no second source: " + r);
        assertTrue(r.cpuCores() != null && r.cpuCores() >= 0, r.toString());
        assertEquals(0, r.errors(), r.toString());
        if (r.isQueryCell() && r.phase().equals(Phases.AFTER_FLUSH) && r.round() == null) {
          assertTrue(r.qps() > 0, r.toString());
          if (r.queryType().equals("lexical")) {
            lexicalSummaries++;
            assertEquals(1.0, r.overlapAt10(), 1e-9, "overlap with the local store: " + r);
            assertEquals(1.0, r.recallAt10(), 1e-9, r.toString());
          }
        }
        if (!r.isQueryCell()) {
          assertTrue(r.docsPerSec() > 0, r.toString());
        }
      }
      assertEquals(2, lexicalSummaries);
      // below_beam rows exist only where a calibrated beam is above the grid's smallest, which
      // depends on the graphs this run built; every other phase must be there.
      phases.remove(Phases.BELOW_BEAM);
      assertEquals(
          Set.of(
              Phases.FEED,
              Phases.CALIBRATION,
              Phases.AFTER_FLUSH,
              Phases.AT_TARGET,
              Phases.REFEED,
              Phases.UPDATE,
              Phases.BEFORE_REFEED,
              Phases.DURING_REFEED,
              Phases.REFEED_WITH_QUERIES),
          phases);
      String report = Files.readString(out.resolve("report.md"));
      assertTrue(report.contains("### segmented vs mine"), report);
      assertTrue(report.contains("/proc / _nodes/stats"), report);
    }
  }
}
