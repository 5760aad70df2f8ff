package org.searchlab.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.distribution.SearchlabCli;
import picocli.CommandLine;

/**
 * Two sweep runs compared cell by cell: a cell agrees when the medians are within the tolerance and
 * the intervals overlap; vector cells are compared at their estimate at the goal recall, not at the
 * beam; a cell one run lacks never agrees; and {@code searchlab sweep-compare} exits 1 exactly when
 * a cell does not agree.
 */
class SweepRunComparisonTest {
  /**
   * A sweep of 100 and 1 segments, sequential and concurrent, 1 and 16 clients, 6 rounds at ±5%:
   * vector at the goal (and a decoy at the beam) and lexical. {@code scale} multiplies the CPU per
   * query of a cell, given its type and segment count.
   */
  private static List<ResultRow> run(Scale scale, boolean withLexicalAtOne) {
    List<ResultRow> rows = new ArrayList<>();
    for (int segments : List.of(100, 1)) {
      for (String threads : List.of("0", "default")) {
        for (int clients : List.of(1, 16)) {
          for (int round = 1; round <= 6; round++) {
            double jitter = round % 2 == 0 ? 1.05 : 0.95;
            double vector = 900.0 * jitter / scale.of("vector", segments);
            rows.add(
                SweepReportTest.row(
                    SweepRows.SWEEP, "vector", segments, threads, round, clients, 50, 1.0, 4));
            rows.add(
                SweepReportTest.row(
                    SweepRows.AT_TARGET,
                    "vector",
                    segments,
                    threads,
                    round,
                    clients,
                    vector,
                    1.0,
                    4));
            if (segments == 100 || withLexicalAtOne) {
              double lexical = 1000.0 * jitter / scale.of("lexical", segments);
              rows.add(
                  SweepReportTest.row(
                      SweepRows.SWEEP,
                      "lexical",
                      segments,
                      threads,
                      round,
                      clients,
                      lexical,
                      1.0,
                      3));
            }
          }
        }
      }
    }
    rows.addAll(SweepReportTest.summaries(rows));
    return rows;
  }

  private interface Scale {
    double of(String type, int segments);
  }

  private static Scale all(double factor) {
    return (t, n) -> factor;
  }

  @Test
  void tenPercentApartWithOverlappingIntervalsAgrees() {
    List<SweepRunComparison.Cell> cells =
        SweepRunComparison.compare(run(all(1), true), run(all(1.10), true), List.of());
    // 2 types × 2 counts × 2 settings × 2 client counts
    assertEquals(16, cells.size());
    for (SweepRunComparison.Cell c : cells) {
      assertEquals(1.10, c.ratio(), 1e-9, c.toString());
      assertTrue(c.agrees(0.15), c.toString());
      assertFalse(c.agrees(0.05), "10% apart is not within 5%: " + c);
    }
  }

  @Test
  void theVectorCellIsItsEstimateAtTheGoalNotTheBeamsDecoy() {
    List<SweepRunComparison.Cell> cells =
        SweepRunComparison.compare(run(all(1), true), run(all(1), true), List.of(1));
    SweepRunComparison.Cell v = cells.getFirst();
    assertEquals("vector", v.type());
    // at the goal: 900 QPS per core is 1.111 ms per query; the beam's row says 20 ms
    assertEquals(1000 / 900.0, v.first().orElseThrow().median(), 1e-9);
    assertTrue(cells.stream().allMatch(c -> c.clients() == 1));
  }

  @Test
  void aCellApartOrMissingDoesNotAgreeAndTheTableSaysWhy() {
    // vector at 100 segments costs 1.3× in the second run; lexical at 1 segment is missing there
    List<ResultRow> second = run((t, n) -> t.equals("vector") && n == 100 ? 1.3 : 1.0, false);
    List<SweepRunComparison.Cell> cells =
        SweepRunComparison.compare(run(all(1), true), second, List.of());
    assertEquals(16, cells.size());
    long apart =
        cells.stream()
            .filter(c -> c.type().equals("vector") && c.segments() == 100)
            .peek(c -> assertFalse(c.agrees(0.15), c.toString()))
            .count();
    assertEquals(4, apart);
    long missing =
        cells.stream()
            .filter(c -> c.type().equals("lexical") && c.segments() == 1)
            .peek(c -> assertTrue(c.second().isEmpty() && !c.agrees(0.15), c.toString()))
            .count();
    assertEquals(4, missing);
    String md = SweepRunComparison.markdown(cells, 0.15, "run1", "run2");
    assertTrue(md.contains("| vector | 100 | seq | 1 | 1.111 [1.058–1.170] |"), md);
    assertTrue(md.contains("1.300 | no: medians apart, intervals apart |"), md);
    assertTrue(
        md.contains("| lexical | 1 | conc lucene-default | 16 | 1.000 [0.952–1.053] | – |"), md);
    assertTrue(md.contains("no: missing in one run"), md);
    assertTrue(md.contains("8 of 16 cells agree."), md);
  }

  @Test
  void theCommandExitsOneExactlyWhereACellDisagrees(@TempDir Path dir) throws Exception {
    Path a = write(dir.resolve("a"), run(all(1), true));
    Path b = write(dir.resolve("b"), run(all(1.10), true));
    Path c = write(dir.resolve("c"), run((t, n) -> t.equals("lexical") ? 0.8 : 1.0, true));
    assertEquals(0, execute(a, b).exit, "10% apart agrees at the default 15%");
    Result apart = execute(a, c, "--clients=16");
    assertEquals(1, apart.exit, apart.out);
    assertTrue(apart.out.contains("4 of 8 cells agree."), apart.out);
    assertFalse(
        apart.out.contains("seq | 1 |") || apart.out.contains("lucene-default | 1 |"),
        "only 16 clients: " + apart.out);
    assertFalse(apart.out.contains("Machine reference"), "no sweep.json, no line: " + apart.out);
    // With both runs' machine references, the second ÷ the first
    Files.writeString(
        a.resolve("sweep.json"),
        "{\"machine_reference\":[{\"ns_per_op\":200000},{\"ns_per_op\":210000},"
            + "{\"ns_per_op\":190000}]}");
    Files.writeString(b.resolve("sweep.json"), "{\"machine_reference\":[{\"ns_per_op\":220000}]}");
    Result machine = execute(a, b);
    assertTrue(
        machine.out.contains("200 µs per operation on median in a, 220 in b, second ÷ first 1.100"),
        machine.out);
    Result tight = execute(a, b, "--tolerance=0.05");
    assertEquals(1, tight.exit, tight.out);
    Result none = execute(a, dir.resolve("nowhere"));
    assertEquals(2, none.exit);
    assertTrue(none.err.contains("no results.jsonl in the run directory"), none.err);
  }

  /**
   * A sweep.json whose machine reference is {@code ns} after each count's cells of rounds 1–6,
   * except {@code slowRound}, where it is {@code slowNs} (0: none).
   */
  private static com.fasterxml.jackson.databind.JsonNode machine(
      double ns, int slowRound, double slowNs) throws Exception {
    StringBuilder refs = new StringBuilder();
    for (int round = 1; round <= 6; round++) {
      for (int segments : List.of(100, 1)) {
        refs.append(refs.isEmpty() ? "" : ",")
            .append(
                String.format(
                    java.util.Locale.ROOT,
                    "{\"round\":%d,\"segments\":%d,\"ns_per_op\":%.0f}",
                    round,
                    segments,
                    round == slowRound ? slowNs : ns));
      }
    }
    return new ObjectMapper().readTree("{\"machine_reference\":[" + refs + "]}");
  }

  @Test
  void scaledByTheMachineReferenceASlowerMachineIsNoDifferenceButASlowerSweepIs() throws Exception {
    // The second run costs 1.25× everywhere: apart, unscaled.
    List<ResultRow> a = run(all(1), true);
    List<ResultRow> b = run(all(1.25), true);
    assertTrue(SweepRunComparison.compare(a, b, List.of()).stream().noneMatch(c -> c.agrees(0.15)));
    // Its machine reference was 1.25× too: the same sweep on a slower machine.
    List<SweepRunComparison.Cell> slower =
        SweepRunComparison.compareScaled(
            a, machine(200_000, 0, 0), b, machine(250_000, 0, 0), List.of());
    assertEquals(16, slower.size());
    for (SweepRunComparison.Cell c : slower) {
      assertEquals(1.0, c.ratio(), 1e-9, c.toString());
      assertTrue(c.agrees(0.05), c.toString());
      // scaled to the median of both runs' references, 225,000 ns
      double expected = 1000.0 / 900 * 225_000 / 200_000;
      if (c.type().equals("vector")) {
        assertEquals(expected, c.first().orElseThrow().median(), 1e-9, c.toString());
      }
    }
    // The same references in both runs: the 1.25× is the sweep's, and scaling does not hide it.
    assertTrue(
        SweepRunComparison.compareScaled(
                a, machine(200_000, 0, 0), b, machine(200_000, 0, 0), List.of())
            .stream()
            .allMatch(c -> !c.agrees(0.15) && Math.abs(c.ratio() - 1.25) < 1e-9));
    // Each round is scaled by its own reference: a round timed on a machine twice as slow as the
    // others moves that round only, and the median stays where the other rounds put it.
    List<SweepRunComparison.Cell> oneSlowRound =
        SweepRunComparison.compareScaled(
            a, machine(200_000, 0, 0), a, machine(200_000, 2, 400_000), List.of());
    for (SweepRunComparison.Cell c : oneSlowRound) {
      assertTrue(c.agrees(0.15), c.toString());
      assertTrue(c.second().orElseThrow().low() < c.first().orElseThrow().low(), c.toString());
    }
    // A round without a reference leaves the cell without a scaled cost; none at all, no cells.
    var partial = new ObjectMapper().createObjectNode();
    partial
        .putArray("machine_reference")
        .addObject()
        .put("round", 1)
        .put("segments", 100)
        .put("ns_per_op", 200_000);
    assertTrue(
        SweepRunComparison.compareScaled(a, machine(200_000, 0, 0), b, partial, List.of()).stream()
            .allMatch(c -> c.second().isEmpty() && !c.agrees(0.15)));
    assertTrue(SweepRunComparison.compareScaled(a, null, b, partial, List.of()).isEmpty());
  }

  @Test
  void theCommandScalesByTheMachineWhereAsked(@TempDir Path dir) throws Exception {
    Path a = write(dir.resolve("a"), run(all(1), true));
    Path b = write(dir.resolve("b"), run(all(1.25), true));
    Result noReference = execute(a, b, "--machine-scaled");
    assertEquals(2, noReference.exit, noReference.out);
    assertTrue(
        noReference.err.contains("--machine-scaled needs a machine reference in both runs"),
        noReference.err);
    Files.writeString(a.resolve("sweep.json"), machine(200_000, 0, 0).toString());
    Files.writeString(b.resolve("sweep.json"), machine(250_000, 0, 0).toString());
    Result plain = execute(a, b);
    assertEquals(1, plain.exit, plain.out);
    assertTrue(plain.out.contains("0 of 16 cells agree."), plain.out);
    assertTrue(
        plain.out.contains(
            "Scaled to one machine speed by each round's reference, 16 of 16 cells agree"),
        plain.out);
    Result scaled = execute(a, b, "--machine-scaled");
    assertEquals(0, scaled.exit, scaled.out);
    assertTrue(scaled.out.startsWith("Each round's cost scaled to one machine speed"), scaled.out);
    assertTrue(scaled.out.contains("16 of 16 cells agree."), scaled.out);
    assertFalse(scaled.out.contains("(--machine-scaled for that table)"), scaled.out);
  }

  private record Result(int exit, String out, String err) {}

  private static Result execute(Path a, Path b, String... options) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = SearchlabCli.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    List<String> args = new ArrayList<>(List.of("sweep-compare", a.toString(), b.toString()));
    args.addAll(List.of(options));
    int exit = cli.execute(args.toArray(String[]::new));
    return new Result(exit, out.toString(), err.toString());
  }

  private static Path write(Path dir, List<ResultRow> rows) throws Exception {
    Files.createDirectories(dir);
    ObjectMapper json = new ObjectMapper();
    StringBuilder lines = new StringBuilder();
    for (ResultRow r : rows) {
      lines.append(json.writeValueAsString(r)).append('\n');
    }
    Files.writeString(dir.resolve("results.jsonl"), lines);
    return dir;
  }
}
