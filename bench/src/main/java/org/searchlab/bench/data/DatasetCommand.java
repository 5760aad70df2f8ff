package org.searchlab.bench.data;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.searchlab.server.embed.MiniLmEmbedder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code searchlab dataset}: builds datasets ({@code build}), measures them ({@code stats}) and
 * tests the 1M generator ({@code validate-generator}). Picocli creates one instance per invocation;
 * not thread-safe.
 */
@Command(
    name = "dataset",
    mixinStandardHelpOptions = true,
    description =
        "Builds benchmark datasets (documents, embeddings, queries, ground truth) and measures"
            + " how realistic they are.",
    subcommands = {
      DatasetCommand.Build.class,
      DatasetStatsCommand.class,
      ValidateGeneratorCommand.class,
    })
public final class DatasetCommand implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** Which documents to build from, by the name {@code --source} takes. */
  /** The generators of {@code --source debian-mixes} ({@link Grower}), by their option names. */
  enum Generator {
    steps,
    mixes
  }

  enum Source {
    DEBIAN("debian"),
    NDJSON("ndjson"),
    SYNTHETIC("synthetic"),
    DEBIAN_MIXES("debian-mixes");

    final String name;

    Source(String name) {
      this.name = name;
    }

    @Override
    public String toString() {
      return name;
    }

    /** The source called {@code name}; a usage error naming the choices otherwise. */
    static Source of(String name) {
      for (Source s : values()) {
        if (s.name.equals(name)) {
          return s;
        }
      }
      throw new picocli.CommandLine.TypeConversionException(
          "--source " + name + " is none of " + java.util.Arrays.toString(values()));
    }
  }

  /** {@code searchlab dataset build}: one build per instance; not thread-safe. */
  @Command(
      name = "build",
      mixinStandardHelpOptions = true,
      description = {
        "Builds a dataset directory: docs.ndjson, vectors.fvecs, queries.ndjson, exact top-100"
            + " ground truth with and without the category filter, dataset.json.",
        "debian: Debian's package index as a product catalogue (apt lists; fetched once with"
            + " apt-get -o Acquire::Languages=en update if missing), embedded with"
            + " all-MiniLM-L6-v2 from 'Item: Title: {title} Description: {description}'.",
        "ndjson: your documents (id, title, description, category, price, average_rating,"
            + " optional embedding); missing embeddings are computed. With --mapping, documents"
            + " of any fields that mapping takes: the dataset keeps mapping.json, and"
            + " 'experiment --dataset' runs on that index.",
        "synthetic: --docs N variants of a --base dataset (recombined text, vectors"
            + " normalize(v + noise)), or core's seeded generator without --base.",
        "debian-mixes: --docs N grown from a --base dataset (normally debian): the base, then"
            + " documents that each mix a base document with --parents − 1 of its --neighbours"
            + " nearest, weights from Dirichlet(--alpha), in the vector and in the text"
            + " (docs/scale.md).",
        "Embeddings (by text hash) and ground truth are cached in --cache, so a rebuild is fast."
      })
  static final class Build implements Callable<Integer> {
    @Option(
        names = "--source",
        required = true,
        converter = SourceName.class,
        description = "debian, ndjson, synthetic or debian-mixes.")
    Source source;

    @Option(names = "--out", required = true, description = "The dataset directory to write.")
    Path out;

    @Option(
        names = "--packages",
        split = ",",
        description =
            "debian: apt Packages lists (plain, .gz or .lz4). Default: the copies in the cache, else"
                + " apt's lists in /var/lib/apt/lists.")
    List<Path> packages = new ArrayList<>();

    @Option(
        names = "--translations",
        split = ",",
        description = "debian: Translation-en lists matching --packages.")
    List<Path> translations = new ArrayList<>();

    @Option(
        names = "--limit",
        defaultValue = "0",
        description = "debian: keep an evenly spread sample of this many packages (0 = all).")
    int limit;

    @Option(names = "--in", description = "ndjson: the input file (plain or .gz).")
    Path in;

    @Option(
        names = "--mapping",
        description =
            "ndjson: a mapping file (a PUT /{index} body, or a bare mappings object); the"
                + " documents may then hold any fields it takes, one JSON object a line"
                + " ({\"_id\":…,\"_source\":{…}} or the source with its id in \"id\").")
    Path mapping;

    @Option(
        names = "--embed-fields",
        split = ",",
        description =
            "ndjson with --mapping: the text fields embedded for documents without a vector, as"
                + " 'Item: Name: {name} Body: {body}'. Default: the mapping's text fields in order.")
    List<String> embedFields;

    @Option(
        names = "--vector-field",
        description =
            "ndjson with --mapping: the vector field. Default: the mapping's only indexed"
                + " dense_vector.")
    String vectorField;

    @Option(
        names = "--filter-field",
        description =
            "ndjson with --mapping: the keyword field of the filtered queries. Default: the"
                + " mapping's only keyword field that is no multi-field of a text field.")
    String filterField;

    @Option(names = "--docs", description = "synthetic: the number of documents.")
    Integer docs;

    @Option(
        names = "--base",
        description = "synthetic, debian-mixes: a built dataset to derive documents from.")
    Path base;

    @Option(
        names = "--generator",
        description =
            "debian-mixes: how documents are grown from the base: steps (tangent steps from a base"
                + " document into its neighbourhood) or mixes (weighted means of a base document"
                + " and some of its neighbours) (default: ${DEFAULT-VALUE}, chosen by 'dataset"
                + " validate-generator').")
    Generator generator = Generator.steps;

    @Option(
        names = "--parents",
        description =
            "debian-mixes, mixes: documents mixed into one, 2 to --neighbours + 1 (default:"
                + " ${DEFAULT-VALUE}).")
    int parents = NeighbourMixes.Params.DEFAULT.parents();

    @Option(
        names = "--neighbours",
        description =
            "debian-mixes: the nearest base documents a generated one is made from (default: 50"
                + " for steps, 100 for mixes).")
    Integer neighbours;

    @Option(
        names = "--alpha",
        description =
            "debian-mixes, mixes: Dirichlet concentration of the weights, > 0; small keeps a child"
                + " near one parent (default: ${DEFAULT-VALUE}).")
    double alpha = NeighbourMixes.Params.DEFAULT.alpha();

    @Option(
        names = "--scale",
        description =
            "debian-mixes, steps: the first round's median step in units of the base document's"
                + " nearest-neighbour distance (default: ${DEFAULT-VALUE}).")
    double scale = TangentSteps.Params.DEFAULT.scale();

    @Option(
        names = "--growth",
        description =
            "debian-mixes, steps: the exponent of the round in the step's length (default:"
                + " ${DEFAULT-VALUE}).")
    double growth = TangentSteps.Params.DEFAULT.growth();

    @Option(
        names = "--jitter",
        description =
            "debian-mixes, steps: the standard deviation of the step's log-length (default:"
                + " ${DEFAULT-VALUE}).")
    double jitter = TangentSteps.Params.DEFAULT.jitter();

    @Option(
        names = "--query-pool",
        description =
            "debian-mixes: sample the queries from the first N documents (default: all), so corpora"
                + " of several sizes share their queries.")
    int queryPool = Integer.MAX_VALUE;

    @Option(
        names = "--noise",
        defaultValue = "" + SyntheticVariants.DEFAULT_NOISE,
        description =
            "synthetic with --base: σ of the Gaussian noise per vector component, 0–1"
                + " (default ${DEFAULT-VALUE}: cosine ≈ 0.93 to the base at 384-d; larger spreads"
                + " variants out).")
    double noise;

    @Option(
        names = "--dimension",
        defaultValue = "384",
        description = "synthetic without --base: the vector dimension (default ${DEFAULT-VALUE}).")
    int dimension;

    @Option(
        names = "--queries",
        defaultValue = "10000",
        description = "Queries to sample (default ${DEFAULT-VALUE}).")
    int queries;

    @Option(
        names = "--seed",
        defaultValue = "42",
        description = "Seed of query sampling and synthetic data (default ${DEFAULT-VALUE}).")
    long seed;

    @Option(
        names = "--threads",
        description = "Cores for embedding and ground truth (default: all).")
    Integer threads;

    @Option(
        names = "--cache",
        description =
            "Cache directory: embeddings, ground truth, copies of apt's lists (default: 'cache'"
                + " beside --out).")
    Path cache;

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      return usageErrors(spec, this::build);
    }

    private Integer build() throws Exception {
      PrintStream log = System.err;
      int cores = cores(threads, queries);
      Path outDir = out.toAbsolutePath();
      Path cacheDir = cache != null ? cache : outDir.getParent().resolve("cache");
      DatasetBuilds.Common common =
          new DatasetBuilds.Common(
              outDir,
              cacheDir,
              queries,
              seed,
              cores,
              () -> MiniLmEmbedder.create(cores),
              MiniLmEmbedder.MODEL,
              MiniLmEmbedder.DIMENSION,
              log);
      if (mapping == null && (embedFields != null || vectorField != null || filterField != null)) {
        throw new org.searchlab.core.InvalidRequestException(
            "--embed-fields, --vector-field and --filter-field go with --mapping");
      }
      if (mapping != null && source != Source.NDJSON) {
        throw new org.searchlab.core.InvalidRequestException("--mapping goes with --source ndjson");
      }
      long start = System.nanoTime();
      DatasetInfo info =
          switch (source) {
            case DEBIAN -> DatasetBuilds.debian(common, packages, translations, limit);
            case NDJSON -> {
              if (in == null) {
                throw new org.searchlab.core.InvalidRequestException(
                    "--source ndjson needs --in FILE");
              }
              if (mapping != null) {
                int n =
                    MappedDataset.build(common, in, mapping, embedFields, vectorField, filterField);
                log.printf(
                    "dataset: %d documents of mapping %s written to %s in %.1f s%n",
                    n, mapping, outDir, (System.nanoTime() - start) / 1e9);
                yield null;
              }
              yield DatasetBuilds.ndjson(common, in);
            }
            case SYNTHETIC -> {
              if (docs == null) {
                throw new org.searchlab.core.InvalidRequestException(
                    "--source synthetic needs --docs N");
              }
              yield DatasetBuilds.synthetic(common, docs, base, noise, dimension);
            }
            case DEBIAN_MIXES -> {
              if (docs == null) {
                throw new org.searchlab.core.InvalidRequestException(
                    "--source debian-mixes needs --docs N");
              }
              Grower p;
              try {
                p =
                    switch (generator) {
                      case steps ->
                          new TangentSteps.Params(
                              neighbours == null
                                  ? TangentSteps.Params.DEFAULT.neighbours()
                                  : neighbours,
                              scale,
                              growth,
                              jitter,
                              TangentSteps.Params.DEFAULT.textParents());
                      case mixes ->
                          new NeighbourMixes.Params(
                              parents,
                              neighbours == null
                                  ? NeighbourMixes.Params.DEFAULT.neighbours()
                                  : neighbours,
                              alpha);
                    };
              } catch (IllegalArgumentException e) {
                throw new org.searchlab.core.InvalidRequestException("--" + e.getMessage());
              }
              yield DatasetBuilds.mixes(common, docs, base, p, queryPool);
            }
          };
      if (info == null) {
        return 0;
      }
      log.printf(
          "dataset: %d documents, %d categories, %d queries, %d-d (%s) written to %s in %.1f s%n",
          info.documents(),
          info.categories(),
          info.queries(),
          info.dimension(),
          info.model(),
          outDir,
          (System.nanoTime() - start) / 1e9);
      return 0;
    }
  }

  /**
   * {@code --threads}, or every core when it is not given; a usage error when it or {@code
   * --queries} is below 1 (the check the dataset commands share).
   */
  static int cores(Integer threads, int queries) {
    int cores = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    if (cores < 1) {
      throw new org.searchlab.core.InvalidRequestException("--threads " + cores + " must be ≥ 1");
    }
    if (queries < 1) {
      throw new org.searchlab.core.InvalidRequestException("--queries " + queries + " must be ≥ 1");
    }
    return cores;
  }

  /**
   * Runs a dataset command's body with its refusals of input ({@link
   * org.searchlab.core.InvalidRequestException}) turned into picocli's usage errors: the message
   * and exit status 2, as a bad option gets, rather than a stack trace.
   */
  static Integer usageErrors(picocli.CommandLine.Model.CommandSpec spec, Callable<Integer> body)
      throws Exception {
    try {
      return body.call();
    } catch (org.searchlab.core.InvalidRequestException e) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  /** Reads {@code --source}'s names, which are not Java's enum names. */
  static final class SourceName implements picocli.CommandLine.ITypeConverter<Source> {
    @Override
    public Source convert(String value) {
      return Source.of(value);
    }
  }
}
