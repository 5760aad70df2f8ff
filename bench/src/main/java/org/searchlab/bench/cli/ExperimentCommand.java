// Over 500 lines: every option of the experiment (profile, variants, targets, and the mapping's
// fields) with its check, which picocli wants declared on one command class.
package org.searchlab.bench.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.searchlab.bench.data.Dataset;
import org.searchlab.bench.data.MappedDataset;
import org.searchlab.bench.data.StandardData;
import org.searchlab.bench.experiment.BenchMapping;
import org.searchlab.bench.experiment.BenchQuery;
import org.searchlab.bench.experiment.Corpus;
import org.searchlab.bench.experiment.ExperimentRunner;
import org.searchlab.bench.experiment.Feeder;
import org.searchlab.bench.experiment.MergePolicyComparison;
import org.searchlab.bench.experiment.MergePolicySpec;
import org.searchlab.bench.experiment.Profile;
import org.searchlab.bench.experiment.QueryFile;
import org.searchlab.bench.experiment.ScaleRun;
import org.searchlab.bench.experiment.Variant;
import org.searchlab.bench.report.CorpusRealism;
import org.searchlab.bench.report.ReportWriter;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.bench.report.RunRows;
import org.searchlab.server.embed.MiniLmEmbedder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code searchlab experiment}: the benchmark's procedure against each store variant, the
 * segment-count sweep and (with {@code --grid}) the HNSW grid; writes {@code results/<UTC
 * timestamp>/} with {@code results.jsonl}, {@code report.md} and PNG plots.
 */
@Command(
    name = "experiment",
    mixinStandardHelpOptions = true,
    description = {
      "Reproduces the Elasticsearch-vs-Vespa e-commerce benchmark on this machine: each variant's"
          + " server runs alone as a child process on loopback; feed, queries at 1-64 clients,"
          + " force-merge, refeed, price updates, refeed under queries, the segment-count sweep.",
      "Writes results/<UTC timestamp>/results.jsonl, report.md and PNG plots."
    })
final class ExperimentCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--profile",
      defaultValue = "standard",
      description =
          "quick (<= 5 min on 2 cores, synthetic), standard (default, about an hour, 100k docs of"
              + " the Debian corpus), full (1M docs), scale (each store grown through 100k, 300k"
              + " and 1M docs, its cost per size and fitted slopes), grid (HNSW grid only), sweep"
              + " (the"
              + " segment-count sweep only, 30k docs of the Debian corpus)."
              + " full keeps the benchmark's procedure but clients 2, 8 and 32, the 20 s cells,"
              + " the 0.99 target, faceting, the sweep and two of the three segmented feeds, and"
              + " rewrites the first 200,000 documents (see bench/README.md)."
              + " Default: ${DEFAULT-VALUE}.")
  String profile;

  @Option(names = "--grid", description = "Also run the HNSW parameter grid (M x efC x ef).")
  boolean grid;

  @Option(names = "--docs", description = "Documents per variant (overrides the profile).")
  Integer docs;

  @Option(
      names = "--dim",
      description = "Embedding dimension of the synthetic corpus (default 384).")
  Integer dim;

  @Option(
      names = "--dataset",
      description =
          "A dataset directory built by 'searchlab dataset build'. Default: for the standard and"
              + " full profiles, Debian's catalogue (built once into data/debian, ~20 min, then"
              + " reused; extended with synthetic variants to the profile's size); else synthetic.")
  Path dataset;

  @Option(
      names = "--synthetic",
      description = "Use the seeded synthetic corpus even where the Debian corpus is the default.")
  boolean synthetic;

  @Option(
      names = "--variants",
      split = ",",
      description =
          "Variants to run: mutable, segmented, segmented-forcemerged, opensearch (a real"
              + " OpenSearch 3.5 with k-NN as child JVMs), opensearch-forcemerged, and"
              + " mutable-int8, segmented-int8, segmented-forcemerged-int8 (searchlab's stores"
              + " with int8 vectors beside the float ones, whatever --quantization says; the"
              + " report then compares each with its float variant), and the segmented store's"
              + " segmented-int4, segmented-forcemerged-int4 (Elasticsearch int4_hnsw) and"
              + " segmented-bbq, segmented-forcemerged-bbq (bbq_hnsw), and mutable-bbq (the"
              + " mutable store's 1-bit codes, bbq_hnsw) (default:"
              + " mutable,segmented,segmented-forcemerged). With --target only, none.")
  List<String> variants;

  @Option(
      names = "--quantization",
      description =
          "Vectors of searchlab's stores in the main phases: none (floats, the benchmark's"
              + " setting) or int8 (serve --quantization int8: int8 graph search, float"
              + " rescoring; Elasticsearch int8_hnsw). The report header gives each store's bytes"
              + " per vector. Default: none.")
  String quantization;

  @Option(
      names = "--opensearch-nodes",
      defaultValue = "1",
      description =
          "Nodes of each local OpenSearch cluster, one JVM each with the servers' heap: 1 (the"
              + " benchmark's single node, no replica) or up to 9 (one replica). Default:"
              + " ${DEFAULT-VALUE}.")
  int openSearchNodes;

  @Option(
      names = "--target",
      description =
          "NAME=URL[,dialect=es|opensearch|vespa]: also run the procedure against an external"
              + " endpoint (an Elasticsearch or OpenSearch cluster, a Vespa application), as"
              + " variant NAME. Repeatable. es detects OpenSearch from GET /.")
  List<String> targets;

  @Option(
      names = "--clients",
      split = ",",
      description = "Client counts, e.g. 1,4,16 (overrides the profile).")
  List<Integer> clients;

  @Option(
      names = "--duration",
      description =
          "Measured seconds per query cell, those of the refeed under queries included"
              + " (overrides the profile).")
  Double duration;

  @Option(
      names = "--warmup",
      description = "Warm-up seconds per query cell (overrides the profile).")
  Double warmup;

  @Option(
      names = "--sweep-docs",
      description = "Documents of the segment-count sweep (0 skips it).")
  Integer sweepDocs;

  @Option(
      names = "--sweep-segments",
      split = ",",
      description =
          "Segment counts of the sweep, descending, e.g. 100,10,1 (overrides the profile).")
  List<Integer> sweepSegments;

  @Option(
      names = "--sweep-clients",
      split = ",",
      description = "Client counts of the sweep, e.g. 1,4,16 (overrides the profile).")
  List<Integer> sweepClients;

  @Option(
      names = "--sweep-rounds",
      description =
          "Rounds of the sweep, each starting every segment count's servers afresh; 6 or more give"
              + " each median a 95% interval (overrides the profile).")
  Integer sweepRounds;

  @Option(
      names = "--sweep-slicing",
      split = ",",
      description =
          "Slicings of the sweep's concurrent settings (serve --slicing), each a server of its own"
              + " beside the sequential one: lucene-default, segment-per-slice, partitions"
              + " (default: lucene-default).")
  List<String> sweepSlicings;

  @Option(
      names = "--grid-docs",
      description = "Documents of the HNSW grid (with --grid; default 20000).")
  Integer gridDocs;

  @Option(names = "--recall-queries", description = "Queries checked against exact search.")
  Integer recallQueries;

  @Option(
      names = "--queries",
      paramLabel = "FILE",
      description =
          "Your own queries instead of the sampled ones: NDJSON, one object a line with \"text\","
              + " optional \"vector\" (else \"embed\" or the text is embedded with MiniLM) and"
              + " optional \"category\" (else the nearest document's). Exact ground truth is"
              + " computed for them; see bench/README.md.")
  Path queries;

  @Option(
      names = "--mapping",
      paramLabel = "FILE",
      description =
          "Run on your own index: a mapping file (a PUT /{index} body or a bare mappings object)."
              + " Lexical queries search its text fields, vector queries its vector field, filters"
              + " a keyword field; documents come from --dataset (built with 'dataset build"
              + " --source ndjson --mapping'). Default: the dataset's mapping.json, else the"
              + " product mapping.")
  Path mapping;

  @Option(
      names = "--index-name",
      description =
          "With a mapping: the index (and Vespa document type) name; lower-case letters, digits"
              + " and _. Default: product.")
  String indexName;

  @Option(
      names = "--text-fields",
      split = ",",
      description =
          "With a mapping: the text fields of the lexical queries. Default: its text fields that"
              + " are no multi-field.")
  List<String> textFields;

  @Option(
      names = "--vector-field",
      description =
          "With a mapping: the vector field. Default: the dataset's, else the only indexed"
              + " dense_vector.")
  String vectorField;

  @Option(
      names = "--filter-field",
      description =
          "With a mapping: the keyword field of the filtered queries. Default: the dataset's,"
              + " else the only keyword field that is no multi-field.")
  String filterField;

  @Option(
      names = "--update-field",
      description =
          "With a mapping: the numeric field the update phase adds 100 to. Default: the only"
              + " numeric field.")
  String updateField;

  @Option(
      names = "--recall-target",
      split = ",",
      description =
          "recall@10 target(s) the vector and hybrid beams are calibrated to, e.g. 0.95 or"
              + " 0.95,0.99 (default: the profile's; standard 0.95, full 0.95 and 0.99).")
  List<Double> recallTargets;

  @Option(
      names = "--fixed-candidates",
      description =
          "Send the benchmark's literal k = num_candidates = targetHits = 100 instead of the"
              + " calibrated beams (the calibration grid still runs for the recall/QPS curves).")
  boolean fixedCandidates;

  @Option(
      names = "--rounds",
      description = "Paired rounds of the query cells (overrides the profile).")
  Integer rounds;

  @Option(
      names = "--feeds",
      description =
          "Independent feeds of the default segmented index, each on its own server, which the"
              + " rounds take in turn, so that ratios against it include the variation of the"
              + " segment structure a feed leaves (overrides the profile: standard and full 3,"
              + " quick 1).")
  Integer feeds;

  @Option(
      names = "--refeed-client-nice",
      description =
          "How much this JVM's feed client yields the cores during the refeed under queries, 0.0"
              + " (as the query clients and the server) to 1.0 (Linux nice 19, the default): on a"
              + " machine shared with the server, a client at 0.0 slows the queries it is"
              + " measuring beside.")
  Double refeedClientNice;

  @Option(
      names = "--feed-niceness",
      description =
          "The searchlab servers' feed niceness (serve --feed-niceness), 0.0-1.0. Default: each"
              + " store's own, 1.0 for the mutable store (Linux nice 19, as Vespa's"
              + " feeding.niceness) and 0.0 for the segmented one. A nice writer only takes the"
              + " cores nothing else wants, so where something else runs beside the experiment its"
              + " feeds wait; 0.0 puts both stores' writes level with every other thread.")
  Double feedNiceness;

  @Option(
      names = "--refeed-rounds",
      description =
          "Rounds of the refeed under queries, each measuring every filtered cell before the"
              + " refeed and during it; a cell's row pools its latencies over the rounds"
              + " (overrides the profile: standard 3, quick and full 1).")
  Integer refeedRounds;

  @Option(
      names = "--calibration-queries",
      description = "Calibration queries, disjoint from the measured ones (overrides the profile).")
  Integer calibrationQueries;

  @Option(
      names = "--vector-beams",
      split = ",",
      description =
          "The calibration grid's vector beams (num_candidates), strictly ascending, e.g."
              + " 10,20,40,100,400; each costs a recall check and a curve cell per variant"
              + " (overrides the profile's 10,15,20,25,30,40,60,80,100,150,200,400).")
  List<Integer> vectorBeams;

  @Option(
      names = "--hybrid-beams",
      split = ",",
      description =
          "The calibration grid's hybrid beams (num_candidates, k = 100), strictly ascending, 100"
              + " to 10000, e.g. 100,200,400,800 (overrides the profile's 100,200,400).")
  List<Integer> hybridBeams;

  @Option(
      names = "--no-facets",
      description =
          "Skip the faceted cells and their bucket checks (each check scans every match of the"
              + " query: about 10 min at 100k documents). The full profile skips them anyway.")
  boolean noFacets;

  @Option(
      names = "--write-docs",
      description =
          "Documents the write phases refeed, update and refeed under queries: the first N of"
              + " the corpus, 0 for all (overrides the profile: full 200000, else all).")
  Integer writeDocs;

  @Option(
      names = "--scale",
      split = ",",
      paramLabel = "N,N,...",
      description =
          "Document counts of a cost-growth run, strictly ascending, at least two, each 1000 or"
              + " more, e.g. 100000,300000,1000000: mutable and segmented grown through them on"
              + " the same servers, a force-merged copy, calibration and paired rounds at each"
              + " size (see docs/scale.md). The scale profile sets 100000,300000,1000000.")
  List<Integer> scale;

  @Option(
      names = "--seed",
      defaultValue = "20241122",
      description = "Corpus and query seed. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--out", description = "Output directory (default: results/<UTC timestamp>).")
  Path out;

  @Option(
      names = "--keep-data",
      description = "Keep the servers' index directories under the output.")
  boolean keepData;

  @Option(
      names = "--no-main",
      description =
          "Skip the benchmark procedure (feed, query phases, writes); run only the sweep and/or"
              + " the grid.")
  boolean noMain;

  @Option(
      names = "--merge-policies",
      paramLabel = "POLICY[:key=value,...],...",
      description =
          "Compare the segmented store's merge policies instead of running the procedure, each on"
              + " its own server, mutable as the reference: tiered, log-byte-size, none, each with"
              + " settings as name:key=value,key=value (tiered: segments_per_tier,"
              + " max_merge_at_once, floor_segment, max_merged_segment, deletes_pct_allowed;"
              + " log-byte-size: merge_factor, floor_segment, max_merged_segment), e.g."
              + " tiered,tiered:segments_per_tier=4,log-byte-size,none. none is force-merged to"
              + " one segment after each feed. See bench/README.md.")
  String mergePolicies;

  @Option(
      names = "--bulk-size",
      description =
          "With --merge-policies: documents per _bulk request of every variant's feeds (default"
              + " 6000, the benchmark's; a small corpus needs smaller bulks to make segments).")
  Integer bulkSize;

  @Option(
      names = "--refresh-interval-ms",
      description =
          "With --merge-policies: the segmented servers' refresh interval in ms (default 1000,"
              + " Elasticsearch's).")
  Integer refreshIntervalMs;

  @Option(
      names = "--report-only",
      description =
          "Only (re)write report.md and the plots of an earlier run directory from its"
              + " results.jsonl (or results.partial.jsonl of an interrupted run).")
  Path reportOnly;

  @Override
  public Integer call() throws Exception {
    if (reportOnly != null) {
      return rewriteReport(reportOnly);
    }
    Profile base = Profile.named(profile);
    Profile.Builder b = base.toBuilder();
    if (docs != null) {
      // The sweep never indexes more documents than the run.
      b.docs(docs).sweepDocs(Math.min(base.sweepDocs(), docs));
    }
    if (dim != null) {
      b.dimension(dim);
    }
    if (clients != null) {
      b.clients(clients);
    }
    if (duration != null) {
      Duration d = Duration.ofMillis((long) (duration * 1000));
      b.duration(d).refeedDuration(d);
    }
    if (warmup != null) {
      b.warmup(Duration.ofMillis((long) (warmup * 1000)));
    }
    if (sweepDocs != null) {
      b.sweepDocs(sweepDocs);
    }
    if (sweepSegments != null) {
      b.sweepSegments(sweepSegments);
    }
    if (sweepClients != null) {
      b.sweepClients(sweepClients);
    }
    if (sweepRounds != null) {
      b.sweepRounds(sweepRounds);
    }
    if (grid || base.name().equals("grid")) {
      b.gridDocs(gridDocs != null ? gridDocs : Math.max(base.gridDocs(), 20_000));
    }
    if (recallQueries != null) {
      b.recallQueries(recallQueries);
    }
    if (noMain) {
      b.mainPhases(false);
    }
    if (recallTargets != null) {
      b.recallTargets(recallTargets);
    }
    if (fixedCandidates) {
      b.fixedCandidates(true);
    }
    if (quantization != null) {
      b.quantization(org.searchlab.core.VectorQuantization.parse(quantization));
    }
    if (rounds != null) {
      b.rounds(rounds);
    }
    if (calibrationQueries != null) {
      b.calibrationQueries(calibrationQueries);
    }
    if (feeds != null) {
      b.feeds(feeds);
    }
    if (vectorBeams != null) {
      b.vectorBeams(vectorBeams);
    }
    if (refeedClientNice != null) {
      b.refeedClientNiceness(refeedClientNice);
    }
    if (feedNiceness != null) {
      b.serverFeedNiceness(feedNiceness);
    }
    if (refeedRounds != null) {
      b.refeedRounds(refeedRounds);
    }
    if (hybridBeams != null) {
      b.hybridBeams(hybridBeams);
    }
    if (noFacets) {
      b.facets(false);
    }
    if (writeDocs != null) {
      b.writeDocs(writeDocs);
    }
    if (scale != null) {
      b.scaleSizes(scale);
      if (docs == null) {
        // The corpus the run loads is its largest size.
        b.docs(scale.getLast());
      }
    }
    Profile p;
    List<Variant> vs;
    BenchMapping bench;
    List<MergePolicySpec> policies = null;
    try {
      if (sweepSlicings != null) {
        b.sweepSlicings(
            sweepSlicings.stream().map(org.searchlab.segmented.Slicing::parse).toList());
      }
      p = b.build();
      if (!p.scaleSizes().isEmpty()) {
        checkScale(p);
      }
      if (mergePolicies != null) {
        policies = mergePoliciesToRun();
      } else if (bulkSize != null || refreshIntervalMs != null) {
        throw new IllegalArgumentException(
            "--bulk-size and --refresh-interval-ms go with --merge-policies");
      }
      vs = policies == null ? variantsToRun() : List.of();
      if (!p.scaleSizes().isEmpty()) {
        ScaleRun.checkVariants(vs);
      }
      checkPaths();
      bench = benchMapping();
    } catch (IllegalArgumentException e) {
      // a usage error (exit 2 with the message), not a stack trace
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    Path home = Path.of(System.getProperty("searchlab.home", ".")).toAbsolutePath().normalize();
    Path outDir =
        out != null
            ? out
            : home.resolve("results")
                .resolve(
                    DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                        .format(ZonedDateTime.now(ZoneOffset.UTC)));
    int needed = Math.max(p.mainPhases() ? p.docs() : 0, Math.max(p.sweepDocs(), p.gridDocs()));
    int queryCount = p.queryCount();
    Path data = dataset;
    String fallback = null;
    if (data == null && !synthetic && usesDebianByDefault(p)) {
      // full and scale grow Debian by the generator of issue 68; standard keeps Debian padded with
      // σ-variants to 100k, the corpus every published standard figure was measured on.
      StandardData.Choice choice =
          p.name().equals("full") || p.name().equals("scale")
              ? StandardData.forSize(home, needed, System.err)
              : StandardData.debian(home, System.err);
      System.err.println("experiment: data: " + choice.reason());
      data = choice.dataset();
      fallback = data == null ? choice.reason() : null;
    }
    if (data != null && Files.exists(data.resolve(CorpusRealism.FILE))) {
      // The corpus's realism table (a grown corpus has one from its build) goes into the report.
      Files.createDirectories(outDir);
      Files.copy(
          data.resolve(CorpusRealism.FILE),
          outDir.resolve(CorpusRealism.FILE),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    System.err.printf("experiment: loading %d documents...%n", needed);
    Corpus corpus;
    if (!bench.product()) {
      List<org.searchlab.core.Document> docs = MappedDataset.documents(data, needed);
      corpus =
          Corpus.mapped(
              docs,
              bench,
              queryCount,
              seed,
              String.format(
                  java.util.Locale.ROOT, "ndjson dataset %s: %,d documents", data, docs.size()));
    } else if (data != null) {
      corpus = Corpus.fromDataset(data, needed, queryCount, seed);
    } else {
      corpus = Corpus.synthetic(seed, needed, p.dimension(), queryCount);
      if (fallback != null) {
        corpus = new Corpus(corpus.docs(), corpus.queries(), fallback + "; " + corpus.source());
      }
    }
    System.err.println("experiment: corpus: " + corpus.source());
    Corpus main =
        p.docs() >= corpus.docs().size() || p.docs() == 0
            ? corpus
            : new Corpus(
                corpus.docs().subList(0, p.docs()),
                corpus.queriesFrom(corpus.docs().subList(0, p.docs()), queryCount, seed + 1),
                corpus.source(),
                corpus.mapping());
    if (queries != null) {
      List<BenchQuery> own =
          QueryFile.read(queries, main.docs(), MiniLmEmbedder::create, main.mapping());
      main =
          new Corpus(
              main.docs(),
              own,
              main.source() + "; " + own.size() + " queries from " + queries.getFileName(),
              main.mapping());
      System.err.printf("experiment: %d queries from %s%n", own.size(), queries);
    }
    if (policies != null) {
      new MergePolicyComparison(p, policies, main, outDir, home, System.err, keepData)
          .feedWith(bulkSize == null ? Feeder.ES_BATCH : bulkSize, refreshIntervalMs)
          .run();
      System.out.println(outDir.resolve("report.md"));
      return 0;
    }
    if (!p.scaleSizes().isEmpty()) {
      ScaleRun run;
      try {
        run = new ScaleRun(p, vs, main, outDir, home, System.err, keepData);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage(), e);
      }
      run.run();
      System.out.println(outDir.resolve("report.md"));
      return 0;
    }
    ExperimentRunner runner;
    try {
      runner =
          new ExperimentRunner(
              p,
              vs,
              p.mainPhases() ? main : corpus,
              outDir,
              home,
              System.err,
              keepData,
              openSearchNodes);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    runner.run();
    System.out.println(outDir.resolve("report.md"));
    return 0;
  }

  /**
   * The standard, full and sweep profiles default to the Debian corpus (real text, real
   * embeddings), at the model's dimension; quick (tests) and grid stay on the seeded synthetic
   * corpus.
   */
  private static boolean usesDebianByDefault(Profile p) {
    return (p.name().equals("standard")
            || p.name().equals("full")
            || p.name().equals("scale")
            || p.name().equals("sweep"))
        && p.dimension() == MiniLmEmbedder.DIMENSION;
  }

  private static int rewriteReport(Path dir) throws java.io.IOException {
    Path jsonl = RunRows.file(dir);
    List<ResultRow> rows = RunRows.read(dir);
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    if (rows.isEmpty()) {
      System.err.println("experiment: no rows in " + jsonl);
      return 1;
    }
    List<String> variants = rows.stream().map(ResultRow::variant).distinct().toList();
    String source = "rows from " + jsonl.getFileName();
    double minutes = 0;
    java.util.Map<String, org.searchlab.bench.report.VectorSetup> setups = java.util.Map.of();
    Path runFile = dir.resolve("run.json");
    if (java.nio.file.Files.exists(runFile)) {
      com.fasterxml.jackson.databind.JsonNode run = json.readTree(runFile.toFile());
      source = run.path("source").asText(source);
      minutes = run.path("minutes").asDouble(0);
      if (run.path("variant_descriptions").isArray()) {
        List<String> described = new ArrayList<>();
        run.path("variant_descriptions").forEach(d -> described.add(d.asText()));
        variants = described;
      }
      // What each store kept for its vectors (runs since 2026-12-07): the quantization table.
      setups = org.searchlab.bench.report.VectorSetup.fromRun(run);
    }
    new ReportWriter(dir).write(rows, rows.get(0).profile(), source, variants, minutes, setups);
    System.out.println(dir.resolve("report.md"));
    return 0;
  }

  /**
   * The policies of --merge-policies, checked; the options of the procedure's variants do not go
   * with them.
   */
  private List<MergePolicySpec> mergePoliciesToRun() {
    List<String> conflicting = new ArrayList<>();
    if (variants != null) {
      conflicting.add("--variants");
    }
    if (targets != null) {
      conflicting.add("--target");
    }
    if (grid) {
      conflicting.add("--grid");
    }
    if (noMain) {
      conflicting.add("--no-main");
    }
    if (bulkSize != null && bulkSize < 1) {
      throw new IllegalArgumentException("--bulk-size " + bulkSize + " is below 1");
    }
    if (refreshIntervalMs != null && (refreshIntervalMs < 1 || refreshIntervalMs > 3_600_000)) {
      throw new IllegalArgumentException(
          "--refresh-interval-ms " + refreshIntervalMs + " is outside [1, 3600000]");
    }
    if (!conflicting.isEmpty()) {
      throw new IllegalArgumentException(
          "--merge-policies runs a job of its own (mutable and one segmented server per policy);"
              + " "
              + String.join(", ", conflicting)
              + " do not apply to it");
    }
    return MergePolicySpec.parseList(mergePolicies);
  }

  /**
   * The checks of a scale run (--scale or the scale profile) that need the profile; its sizes were
   * checked when it was built, its variants are checked by {@link ScaleRun}.
   */
  private void checkScale(Profile p) {
    List<String> conflicting = new ArrayList<>();
    if (mergePolicies != null) {
      conflicting.add("--merge-policies");
    }
    if (grid) {
      conflicting.add("--grid");
    }
    if (targets != null) {
      conflicting.add("--target");
    }
    if (noMain) {
      conflicting.add("--no-main");
    }
    if (!conflicting.isEmpty()) {
      throw new IllegalArgumentException(
          "--scale runs a job of its own (each store grown through the sizes); "
              + String.join(", ", conflicting)
              + " do not apply to it");
    }
    if (docs != null && p.scaleSizes().getLast() > docs) {
      throw new IllegalArgumentException(
          "--scale size "
              + p.scaleSizes().getLast()
              + " is above --docs "
              + docs
              + ": the largest size is the corpus the run loads");
    }
  }

  /** The variants of --variants (or the default three) and of --target, checked. */
  private List<Variant> variantsToRun() {
    List<Variant> vs = new ArrayList<>();
    List<String> builtIn =
        variants != null
            ? variants
            : targets != null
                ? List.of()
                : List.of("mutable", "segmented", "segmented-forcemerged");
    for (String v : builtIn) {
      vs.add(Variant.parse(v));
    }
    for (String t : targets == null ? List.<String>of() : targets) {
      Variant target = Variant.parseTarget(t);
      if (vs.stream().anyMatch(v -> v.label().equals(target.label()))) {
        throw new IllegalArgumentException("target name '" + target.label() + "' is given twice");
      }
      vs.add(target);
    }
    if (vs.isEmpty()) {
      throw new IllegalArgumentException("no variant to run: give --variants or --target");
    }
    return vs;
  }

  /**
   * The index the run measures: the mapping of --mapping, else of the dataset, with the fields the
   * options name (the dataset's vector and filter fields by default); the product mapping when
   * there is none.
   *
   * @throws IllegalArgumentException naming the option, for fields that do not fit, field options
   *     without a mapping, or a mapping without a dataset of its documents
   */
  private BenchMapping benchMapping() {
    boolean mappedDataset = dataset != null && MappedDataset.isMapped(dataset);
    boolean fieldOptions =
        indexName != null
            || textFields != null
            || vectorField != null
            || filterField != null
            || updateField != null;
    if (mapping == null && !mappedDataset) {
      if (fieldOptions) {
        throw new IllegalArgumentException(
            "--index-name, --text-fields, --vector-field, --filter-field and --update-field go"
                + " with --mapping or a dataset built with one");
      }
      return BenchMapping.PRODUCT;
    }
    if (!mappedDataset) {
      throw new IllegalArgumentException(
          "--mapping "
              + mapping
              + " needs --dataset: a directory built with 'searchlab dataset build --source ndjson"
              + " --mapping' from your documents");
    }
    try {
      com.fasterxml.jackson.databind.JsonNode info = MappedDataset.info(dataset);
      com.fasterxml.jackson.databind.JsonNode file =
          mapping != null
              ? new com.fasterxml.jackson.databind.ObjectMapper().readTree(mapping.toFile())
              : MappedDataset.mappingFile(dataset);
      String vector = vectorField;
      String filter = filterField;
      if (vector == null && info.hasNonNull("vector_field")) {
        vector = info.get("vector_field").asText();
      }
      if (filter == null && info.hasNonNull("filter_field")) {
        filter = info.get("filter_field").asText();
      }
      return BenchMapping.read(
          file,
          new BenchMapping.Choice(indexName, textFields, vector, filter, updateField),
          mapping != null
              ? mapping.toString()
              : dataset.resolve(MappedDataset.MAPPING_FILE).toString());
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException(
          (mapping != null ? "--mapping " + mapping : "--dataset " + dataset)
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** A mistyped --dataset or --queries path is refused before any work starts. */
  private void checkPaths() {
    if (dataset != null) {
      try {
        Dataset.requireDirectory(dataset);
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException("--dataset " + e.getMessage(), e);
      }
    }
    if (queries != null && !(Files.isRegularFile(queries) && Files.isReadable(queries))) {
      throw new IllegalArgumentException("--queries " + queries + " is not a readable file");
    }
  }
}
