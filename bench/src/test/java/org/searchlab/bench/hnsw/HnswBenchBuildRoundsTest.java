package org.searchlab.bench.hnsw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code hnsw-bench --build-rounds}: every implementation is built that many times before the
 * passes, the peer in its own process each time, and the build ratio is the median of per-round
 * ratios. A small synthetic corpus and a peer in the shell that takes 2 s per build by its word.
 */
class HnswBenchBuildRoundsTest {
  @TempDir Path dir;

  @Test
  void buildsEveryImplementationEachRoundAndPairsTheRatios() throws Exception {
    Path log = dir.resolve("peer.log");
    String peer =
        "while read cmd; do echo \"$cmd\" >> "
            + log
            + "; case \"$cmd\" in build) echo '{\"impl\": \"shellpeer\", \"buildSeconds\": 2.0,"
            + " \"buildCpuSeconds\": 2.0}';; *) echo '{\"wall\": 1.0, \"cpu\": 1.0,"
            + " \"recallSum\": 10}';; esac; done";
    String[] args = {
      "--docs",
      "300",
      "--queries",
      "10",
      "--dim",
      "16",
      "--ef",
      "16,32",
      "--impl",
      "mutable",
      "--rounds",
      "1",
      "--build-rounds",
      "3",
      "--peer",
      peer
    };
    List<JsonNode> lines = run(args);
    JsonNode summary = null;
    for (JsonNode line : lines) {
      if (line.path("summary").asBoolean() && line.path("impl").asText().equals("mutable-hnsw")) {
        summary = line;
      }
    }
    assertNotNull(summary, lines.toString());
    JsonNode perRound = summary.get("buildSecondsPerRound");
    assertEquals(3, perRound.size(), summary.toString());
    double[] ours = new double[3];
    for (int r = 0; r < 3; r++) {
      ours[r] = perRound.get(r).asDouble();
    }
    double[] sorted = ours.clone();
    Arrays.sort(sorted);
    assertEquals(sorted[1], summary.get("buildSeconds").asDouble(), 1e-9);
    JsonNode ratios = summary.get("buildSecondsVsShellpeerPerRound");
    assertEquals(3, ratios.size(), summary.toString());
    for (int r = 0; r < 3; r++) {
      // Rounded to 3 digits from the unrounded seconds.
      assertEquals(ours[r] / 2.0, ratios.get(r).asDouble(), 0.01);
    }
    // The peer built three times, then searched: warm-up and timed passes at two efs.
    List<String> commands = Files.readAllLines(log);
    assertEquals(List.of("build", "build", "build"), commands.subList(0, 3), commands.toString());
    assertEquals(List.of("pass 16", "pass 32", "pass 16", "pass 16"), commands.subList(3, 7));
  }

  @Test
  void oneBuildRoundKeepsTheSingleBuild() throws Exception {
    List<JsonNode> lines = runSmall(1);
    for (JsonNode line : lines) {
      if (line.path("summary").asBoolean()) {
        assertEquals(null, line.get("buildSecondsPerRound"), line.toString());
        assertNotNull(line.get("buildSeconds"), line.toString());
      }
    }
  }

  @Test
  void luceneIsBuiltAgainEachRoundToo() throws Exception {
    // Each round after the first closes the previous Lucene index and deletes its directory.
    List<JsonNode> lines = runSmall(2);
    int summaries = 0;
    for (JsonNode line : lines) {
      if (line.path("summary").asBoolean()) {
        summaries++;
        assertEquals(2, line.get("buildSecondsPerRound").size(), line.toString());
      }
    }
    assertEquals(2, summaries, lines.toString());
  }

  /** The mutable graph and Lucene on 200 small synthetic vectors, one timed pass at ef 16. */
  private static List<JsonNode> runSmall(int buildRounds) throws Exception {
    return run(
        new String[] {
          "--docs",
          "200",
          "--queries",
          "5",
          "--dim",
          "8",
          "--ef",
          "16",
          "--impl",
          "mutable,lucene",
          "--rounds",
          "1",
          "--build-rounds",
          Integer.toString(buildRounds)
        });
  }

  static List<JsonNode> run(String[] args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream old = System.out;
    int exit;
    try (PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      System.setOut(capture);
      exit = new CommandLine(new HnswBenchCommand()).execute(args);
    } finally {
      System.setOut(old);
    }
    String text = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, exit, text);
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("{")) {
        lines.add(json.readTree(line));
      }
    }
    return lines;
  }
}
