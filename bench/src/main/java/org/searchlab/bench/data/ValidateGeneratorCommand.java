package org.searchlab.bench.data;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.searchlab.server.embed.MiniLmEmbedder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code searchlab dataset validate-generator}: one validation per instance; not thread-safe. */
@Command(
    name = "validate-generator",
    mixinStandardHelpOptions = true,
    description = {
      "The held-out scale-up test of debian-mixes: grows random parts of a real dataset (--bases)"
          + " back to its full size with each generator setting (neighbourhood mixes, tangent"
          + " steps) and with the controls (pair mixes, σ-variants), compares neighbour"
          + " distances, intrinsic dimension, near-copies and postings with the real dataset on"
          + " the same query documents, and picks the setting whose worst KS distance over the"
          + " bases is the smallest. Writes validation.md and validation.json to --out."
    })
final class ValidateGeneratorCommand implements Callable<Integer> {
  @Option(names = "--dataset", required = true, description = "The real dataset (Debian).")
  Path dataset;

  @Option(
      names = "--bases",
      split = ",",
      defaultValue = "4000,16000,40000",
      description =
          "Base sizes drawn from it (default ${DEFAULT-VALUE}: growths of ×16, ×4 and ×1.6 back"
              + " to Debian's 63,696, as the scale job grows it ×15.7, ×4.7 and ×1.6).")
  int[] bases;

  @Option(
      names = "--queries",
      defaultValue = "1000",
      description = "Query documents per base (default ${DEFAULT-VALUE}).")
  int queries;

  @Option(names = "--seed", defaultValue = "42", description = "Seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--grid-parents",
      split = ",",
      defaultValue = "5",
      description =
          "The values of m tried for mixes (default ${DEFAULT-VALUE}: the best mix setting of"
              + " the wider grid in docs/scale.md).")
  int[] gridParents;

  @Option(
      names = "--grid-neighbours",
      split = ",",
      defaultValue = "100",
      description = "The values of K tried for mixes (default ${DEFAULT-VALUE}).")
  int[] gridNeighbours;

  @Option(
      names = "--grid-alpha",
      split = ",",
      defaultValue = "2",
      description = "The values of α tried for mixes (default ${DEFAULT-VALUE}).")
  double[] gridAlpha;

  @Option(
      names = "--steps-neighbours",
      split = ",",
      defaultValue = "50",
      description = "The values of K tried for tangent steps (default ${DEFAULT-VALUE}).")
  int[] stepsNeighbours;

  @Option(
      names = "--steps-scale",
      split = ",",
      defaultValue = "1.5,1.7",
      description = "The values of c tried for tangent steps (default ${DEFAULT-VALUE}).")
  double[] stepsScale;

  @Option(
      names = "--steps-growth",
      split = ",",
      defaultValue = "0,0.2",
      description = "The values of γ tried for tangent steps (default ${DEFAULT-VALUE}).")
  double[] stepsGrowth;

  @Option(
      names = "--steps-jitter",
      split = ",",
      defaultValue = "0.7",
      description = "The values of j tried for tangent steps (default ${DEFAULT-VALUE}).")
  double[] stepsJitter;

  @Option(names = "--out", required = true, description = "The directory the tables go to.")
  Path out;

  @Option(
      names = "--fidelity",
      defaultValue = "0",
      description =
          "Also embed this many documents the chosen setting generates from the smallest base"
              + " with all-MiniLM-L6-v2 and compare with their interpolated vectors (default"
              + " ${DEFAULT-VALUE}: none; 2000 take about a minute on 2 quiet cores).")
  int fidelity;

  @Option(names = "--threads", description = "Cores for the brute force (default: all).")
  Integer threads;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    return DatasetCommand.usageErrors(spec, this::validate);
  }

  private Integer validate() throws Exception {
    PrintStream log = System.err;
    int cores = DatasetCommand.cores(threads, queries);
    long start = System.nanoTime();
    List<org.searchlab.core.Document> real = DatasetBuilds.Base.read(dataset).docs();
    List<TangentSteps.Params> steps = steps();
    int maxK =
        Math.max(
            java.util.Arrays.stream(gridNeighbours).max().orElse(0),
            java.util.Arrays.stream(stepsNeighbours).max().orElse(0));
    if (maxK >= java.util.Arrays.stream(bases).min().orElse(0)) {
      throw new org.searchlab.core.InvalidRequestException(
          "--grid-neighbours " + maxK + " must be below the smallest of --bases");
    }
    for (int b : bases) {
      if (b < 2 || b >= real.size()) {
        throw new org.searchlab.core.InvalidRequestException(
            "--bases " + b + " is outside [2, " + (real.size() - 1) + "] for " + dataset);
      }
    }
    List<GeneratorValidation.Row> rows =
        GeneratorValidation.run(
            real,
            bases,
            grid(gridParents, gridNeighbours, gridAlpha, steps),
            queries,
            seed,
            cores,
            log);
    GeneratorValidation.Row chosen = GeneratorValidation.chosen(rows);
    String table = GeneratorValidation.markdown(rows);
    if (fidelity > 0) {
      int smallest = java.util.Arrays.stream(bases).min().orElseThrow();
      List<org.searchlab.core.Document> base = new ArrayList<>();
      for (int o : GeneratorValidation.baseOrdinals(real.size(), smallest, seed)) {
        base.add(real.get(o));
      }
      Grower p = ((GeneratorValidation.Grown) chosen.candidate()).params();
      int[][] near =
          BaseNeighbours.compute(
              base.stream().map(org.searchlab.core.Document::embedding).toArray(float[][]::new),
              p.neighbours(),
              cores);
      try (org.searchlab.core.embed.Embedder model = MiniLmEmbedder.create(cores)) {
        GeneratorFidelity f =
            GeneratorFidelity.measure(base, near, p, real.size(), fidelity, seed, model, log);
        table +=
            "\nFidelity of "
                + chosen.candidate().name()
                + " from the base of "
                + smallest
                + ": "
                + f.line()
                + ".\n";
      }
    }
    java.nio.file.Files.createDirectories(out);
    java.nio.file.Files.writeString(
        out.resolve("validation.md"),
        "Real dataset: "
            + dataset
            + ", "
            + real.size()
            + " documents; seed "
            + seed
            + "; "
            + queries
            + " query documents per base.\n\n"
            + table
            + "\nChosen: "
            + chosen.candidate().name()
            + "\n");
    DocumentJson.MAPPER
        .writerWithDefaultPrettyPrinter()
        .writeValue(out.resolve("validation.json").toFile(), GeneratorValidation.json(rows));
    log.print(table);
    log.printf(
        java.util.Locale.ROOT,
        "validate: chosen %s (worst KS %.3f); %.1f s%n",
        chosen.candidate().name(),
        chosen.worst(),
        (System.nanoTime() - start) / 1e9);
    return 0;
  }

  /** The grid's candidates; a usage error naming the value when one is out of range. */
  static List<GeneratorValidation.Candidate> grid(
      int[] parents, int[] neighbours, double[] alpha, List<TangentSteps.Params> steps) {
    try {
      return GeneratorValidation.grid(parents, neighbours, alpha, steps);
    } catch (IllegalArgumentException e) {
      throw new org.searchlab.core.InvalidRequestException("--grid: " + e.getMessage());
    }
  }

  /** The tangent-step settings: every K × c × γ × j of the {@code --steps-*} options. */
  private List<TangentSteps.Params> steps() {
    List<TangentSteps.Params> out = new ArrayList<>();
    for (int k : stepsNeighbours) {
      for (double c : stepsScale) {
        for (double g : stepsGrowth) {
          for (double j : stepsJitter) {
            try {
              out.add(
                  new TangentSteps.Params(
                      k, c, g, j, Math.min(k, TangentSteps.Params.DEFAULT.textParents())));
            } catch (IllegalArgumentException e) {
              throw new org.searchlab.core.InvalidRequestException("--steps: " + e.getMessage());
            }
          }
        }
      }
    }
    return out;
  }
}
