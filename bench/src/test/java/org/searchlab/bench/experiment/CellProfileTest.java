package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.experiment.CellProfile.Part;
import org.searchlab.testing.TestSeeds;

class CellProfileTest {
  @Test
  void aSampleBelongsToThePartOfItsFirstRecognisedFrame() {
    // java.* frames say nothing: the caller below them decides.
    assertEquals(
        Part.DISTANCES,
        CellProfile.classify(
            List.of(
                "jdk.internal.misc.Unsafe",
                "org.apache.lucene.internal.vectorization.PanamaVectorUtilSupport",
                "org.apache.lucene.util.hnsw.HnswGraphSearcher")));
    assertEquals(
        Part.GRAPH,
        CellProfile.classify(
            List.of("java.util.Arrays", "org.searchlab.mutable.hnsw.GraphSearcher")));
    // The accept bits of a filtered graph search are the filter's, not the graph's.
    assertEquals(
        Part.FILTERS,
        CellProfile.classify(
            List.of(
                "org.searchlab.mutable.hnsw.AcceptBits",
                "org.searchlab.mutable.hnsw.GraphSearcher")));
    assertEquals(
        Part.GRAPH, CellProfile.classify(List.of("org.apache.lucene.search.TopKnnCollector")));
    assertEquals(
        Part.RESULTS,
        CellProfile.classify(List.of("org.apache.lucene.search.TopScoreDocCollector")));
    assertEquals(
        Part.POSTINGS,
        CellProfile.classify(
            List.of(
                "org.apache.lucene.codecs.lucene103.Lucene103PostingsReader$BlockPostingsEnum")));
    assertEquals(
        Part.POSTINGS,
        CellProfile.classify(List.of("org.apache.lucene.search.MaxScoreBulkScorer")));
    assertEquals(Part.REQUEST, CellProfile.classify(List.of("io.netty.channel.nio.NioEventLoop")));
    assertEquals(Part.OTHER, CellProfile.classify(List.of("java.lang.Thread")));
    // Lucene 10's SIMD postings code sits beside its vector kernels; methods tell them apart.
    assertEquals(
        Part.POSTINGS,
        CellProfile.classify(
            List.of(
                "org.apache.lucene.internal.vectorization.MemorySegmentPostingDecodingUtil#splitInts")));
    assertEquals(
        Part.POSTINGS,
        CellProfile.classify(
            List.of(
                "org.apache.lucene.internal.vectorization.PanamaVectorUtilSupport#findNextGEQ",
                "org.apache.lucene.util.VectorUtil#findNextGEQ")));
    assertEquals(
        Part.DISTANCES,
        CellProfile.classify(List.of("org.apache.lucene.util.VectorUtil#dotProduct")));
  }

  @Test
  void recordsAJvmThroughJcmdAndFindsWhereItsCpuWent(@TempDir Path dir) throws Exception {
    long seed = TestSeeds.seed("CellProfileTest");
    Random random = new Random(seed);
    float[][] vectors = new float[512][384];
    for (float[] v : vectors) {
      for (int i = 0; i < v.length; i++) {
        v[i] = random.nextFloat() - 0.5f;
      }
    }
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    PrintStream log = new PrintStream(said, true, StandardCharsets.UTF_8);
    Path file = dir.resolve("profiles").resolve("cell.jfr");
    float[] sink = new float[1];
    // This JVM is the server: one thread computes dot products for 600 ms, nothing else runs.
    Optional<CellProfile.Result> r =
        CellProfile.record(
            ProcessHandle.current().pid(),
            file,
            () -> {
              long end = System.nanoTime() + 600_000_000L;
              int i = 0;
              while (System.nanoTime() < end) {
                sink[0] += VectorUtil.dotProduct(vectors[i & 511], vectors[(i * 7 + 1) & 511]);
                i++;
              }
            },
            log);
    assertTrue(r.isPresent(), said.toString(StandardCharsets.UTF_8));
    CellProfile.Result p = r.get();
    assertTrue(p.samples() >= 10, "samples: " + p.samples());
    assertTrue(p.share(Part.DISTANCES) >= 0.5, CellProfile.describe(p) + " " + p.topMethods());
    double sum = 0;
    for (Part part : Part.values()) {
      sum += p.share(part);
    }
    assertEquals(1.0, sum, 1e-9);
    assertFalse(p.topMethods().isEmpty());
    assertEquals(p.samples(), p.json().path("samples").asInt());
    assertTrue(Files.exists(file), "the recording is kept where it was asked for");
  }

  @Test
  void aPidThatIsNoJvmGivesNoProfileButTheCellStillRuns(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    PrintStream log = new PrintStream(said, true, StandardCharsets.UTF_8);
    boolean[] ran = {false};
    // A process that has ended: nothing to attach to (and no live process gets the Attach API's
    // SIGQUIT).
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    Optional<CellProfile.Result> r =
        CellProfile.record(gone.pid(), dir.resolve("x.jfr"), () -> ran[0] = true, log);
    assertTrue(ran[0], "the cell ran");
    assertTrue(r.isEmpty());
    assertTrue(
        said.toString(StandardCharsets.UTF_8).contains("cannot start a recording"),
        said.toString());
  }
}
