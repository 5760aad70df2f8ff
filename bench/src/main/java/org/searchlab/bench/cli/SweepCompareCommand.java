package org.searchlab.bench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunRows;
import org.searchlab.bench.report.SweepRunComparison;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code searchlab sweep-compare FIRST SECOND}: whether two runs of the segment sweep reproduce
 * each other, cell by cell ({@link SweepRunComparison}). Prints a Markdown table; exit code 0 when
 * every cell agrees, 1 when one does not. Stateless.
 */
@Command(
    name = "sweep-compare",
    mixinStandardHelpOptions = true,
    description = {
      "Compares two run directories of the segment sweep (experiment --profile sweep, or any run"
          + " with a sweep) cell by cell: each cell's CPU ms per query, median over its rounds with"
          + " its interval, at the goal recall for vector and hybrid cells. A cell agrees when the"
          + " larger median is within --tolerance of the smaller and the intervals overlap. Prints"
          + " a Markdown table; exit code 0 when every cell agrees, 1 otherwise. Where both runs"
          + " timed the machine reference, also says how many cells agree with every round's cost"
          + " scaled to one machine speed (--machine-scaled: that table, and the exit code on it)."
    })
final class SweepCompareCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", description = "The first run's directory (with results.jsonl).")
  Path first;

  @Parameters(index = "1", description = "The second run's directory.")
  Path second;

  @Option(
      names = "--tolerance",
      description = "How far apart two medians may be, as a fraction. Default: ${DEFAULT-VALUE}.")
  double tolerance = 0.15;

  @Option(
      names = "--clients",
      split = ",",
      description = "Only these client counts (default: every count either run measured).")
  List<Integer> clients = List.of();

  @Option(
      names = "--machine-scaled",
      description =
          "Compare the costs scaled to one machine speed by each round's machine reference (both"
              + " runs need one): the table and the exit code are on the scaled costs.")
  boolean machineScaled;

  @Override
  public Integer call() throws Exception {
    if (!(tolerance >= 0 && tolerance <= 10)) {
      throw new ParameterException(
          spec.commandLine(), "--tolerance " + tolerance + " must be between 0 and 10");
    }
    for (Path dir : List.of(first, second)) {
      if (!Files.isRegularFile(RunRows.file(dir))) {
        throw new ParameterException(
            spec.commandLine(), "no results.jsonl in the run directory " + dir);
      }
    }
    List<ResultRow> a = RunRows.read(first);
    List<ResultRow> b = RunRows.read(second);
    JsonNode jsonA = sweepJson(first);
    JsonNode jsonB = sweepJson(second);
    List<SweepRunComparison.Cell> raw = SweepRunComparison.compare(a, b, clients);
    List<SweepRunComparison.Cell> scaled =
        SweepRunComparison.compareScaled(a, jsonA, b, jsonB, clients);
    PrintWriter out = spec.commandLine().getOut();
    if (raw.isEmpty()) {
      spec.commandLine().getErr().println("sweep-compare: neither run has sweep cells in rounds");
      return 1;
    }
    if (machineScaled && scaled.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "--machine-scaled needs a machine reference in both runs' sweep.json; "
              + (SweepRunComparison.machineByRound(jsonA).isEmpty() ? first : second)
              + " has none");
    }
    List<SweepRunComparison.Cell> cells = machineScaled ? scaled : raw;
    if (machineScaled) {
      out.printf(
          "Each round's cost scaled to one machine speed: × the median machine reference of both"
              + " runs ÷ the reference its run timed after that count's cells of that round.%n%n");
    }
    out.print(SweepRunComparison.markdown(cells, tolerance, name(first), name(second)));
    double machineA = SweepRunComparison.machineMedian(jsonA);
    double machineB = SweepRunComparison.machineMedian(jsonB);
    if (!Double.isNaN(machineA) && !Double.isNaN(machineB)) {
      out.printf(
          Locale.ROOT,
          "%nMachine reference (a fixed CPU workload timed in every round): %.0f µs per operation"
              + " on median in %s, %.0f in %s, second ÷ first %.3f. Where that ratio is far from"
              + " 1, the machine itself ran at another speed.%n",
          machineA / 1e3,
          name(first),
          machineB / 1e3,
          name(second),
          machineB / machineA);
    }
    if (!machineScaled && !scaled.isEmpty()) {
      out.printf(
          Locale.ROOT,
          "Scaled to one machine speed by each round's reference, %d of %d cells agree"
              + " (--machine-scaled for that table).%n",
          scaled.stream().filter(c -> c.agrees(tolerance)).count(),
          scaled.size());
    }
    out.flush();
    return cells.stream().allMatch(c -> c.agrees(tolerance)) ? 0 : 1;
  }

  /** A run's {@code sweep.json}, or null where it has none or it cannot be read. */
  private static JsonNode sweepJson(Path dir) {
    Path f = dir.resolve("sweep.json");
    try {
      return Files.isRegularFile(f) ? new ObjectMapper().readTree(f.toFile()) : null;
    } catch (java.io.IOException e) {
      return null;
    }
  }

  /** A run's column heading: its directory's name, or the path where it has none ("/"). */
  private static String name(Path dir) {
    Path n = dir.getFileName();
    return n == null ? dir.toString() : n.toString();
  }
}
