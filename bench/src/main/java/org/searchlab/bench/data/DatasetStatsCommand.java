package org.searchlab.bench.data;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code searchlab dataset stats}: one report per instance; not thread-safe. */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    description = {
      "Writes realism.json and realism.md: per dataset, side by side, the L2 distance of each"
          + " sampled query document to its 1st, 10th and 100th other document, the local"
          + " intrinsic dimension, the share with a near-copy, and the document frequencies of"
          + " the title and description terms and of each query's terms."
    })
final class DatasetStatsCommand implements Callable<Integer> {
  @Option(
      names = "--dataset",
      required = true,
      split = ",",
      description = "Built dataset directories, compared side by side in the order given.")
  List<Path> datasets;

  @Option(
      names = "--queries",
      defaultValue = "1000",
      description =
          "The dataset's first N benchmark queries whose neighbours are measured (default"
              + " ${DEFAULT-VALUE}).")
  int queries;

  @Option(
      names = "--out",
      description = "Where the report goes (default: the first dataset's directory).")
  Path out;

  @Option(names = "--threads", description = "Cores for the brute force (default: all).")
  Integer threads;

  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    return DatasetCommand.usageErrors(spec, this::report);
  }

  private Integer report() throws Exception {
    PrintStream log = System.err;
    int cores = DatasetCommand.cores(threads, queries);
    List<RealismReport.Corpus> corpora = new ArrayList<>();
    for (Path dir : datasets) {
      try (Dataset ds = Dataset.open(dir)) {
        String name = ds.info().source() + " " + dir.getFileName();
        corpora.add(RealismReport.of(ds, name, queries, cores, log));
      }
    }
    Path to = out != null ? out : datasets.get(0);
    RealismReport.write(to, corpora, "Datasets: " + datasets + ".");
    log.printf("stats: wrote %s and %s in %s%n", RealismReport.JSON, RealismReport.MARKDOWN, to);
    return 0;
  }
}
