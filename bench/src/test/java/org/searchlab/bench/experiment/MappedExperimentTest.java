package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.load.CpuMeter;
import org.searchlab.bench.load.LoadGenerator;
import org.searchlab.bench.report.ResultRow;
import org.searchlab.core.Document;
import org.searchlab.core.StoreKind;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.server.SearchServer;
import org.searchlab.server.ServerConfig;
import org.searchlab.testing.ExactIndex;
import org.searchlab.testing.TestSeeds;

/**
 * The experiment on another mapping (the example shop mapping), end to end at a tiny scale: an
 * in-process searchlab server whose indexes are the exact oracle's ({@link ExactIndex}) plays an
 * Elasticsearch-dialect target, the runner creates the {@code shop} index from the mapping, feeds
 * it, measures every phase and judges each query cell against the exact answers of the same
 * mapping, so that recall must be 1.0 (tie-aware). The update phase changes the update field, and
 * the report names the mapping and the fields of each role.
 */
class MappedExperimentTest {
  private static final int DIMS = 8;

  @Test
  void aTargetOnTheShopMappingRunsTheProcedureWithExactRecall(@TempDir Path dir) throws Exception {
    long seed = TestSeeds.seed("MappedExperimentTest");
    Profile p =
        Profile.quick().toBuilder()
            // the servers' writes at nice 0, as in ExperimentIntegrationTest (which says why)
            .serverFeedNiceness(0.0)
            .docs(500)
            .dimension(DIMS)
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
    BenchMapping mapping = ShopData.mapping(DIMS);
    List<Document> docs = ShopData.documents(seed, p.docs(), DIMS);
    Corpus corpus = Corpus.mapped(docs, mapping, 40, seed, "shop documents (seed " + seed + ")");
    try (SearchServer server = exactServer(dir.resolve("exact"))) {
      URI base = URI.create("http://127.0.0.1:" + server.port());
      Variant target = Variant.parseTarget("exact=" + base);
      Path out = dir.resolve("results");
      List<ResultRow> rows =
          new ExperimentRunner(
                  p,
                  List.of(target),
                  corpus,
                  out,
                  Path.of(".").toAbsolutePath(),
                  new PrintStream(System.out, true),
                  false)
              .run();

      int judged = 0;
      boolean updated = false;
      for (ResultRow r : rows) {
        assertEquals(0, r.errors(), r.toString());
        if (r.isQueryCell() && r.recallAt10() != null) {
          judged++;
          assertEquals(1.0, r.recallAt10(), 1e-9, "the exact store's answers: " + r);
        }
        if (r.phase().equals(Phases.UPDATE) && !r.isQueryCell()) {
          updated = true;
          assertTrue(r.docsPerSec() > 0, r.toString());
        }
      }
      assertTrue(judged >= 8, "every query type, filtered and not, is judged: " + judged);
      // The faceted cells facet on the mapping's filter and update fields, and the exact store's
      // buckets are the oracle's.
      assertTrue(
          rows.stream()
              .anyMatch(
                  r ->
                      r.isQueryCell()
                          && FacetedRounds.LABEL.equals(r.queryType())
                          && Boolean.TRUE.equals(r.filtered())
                          && r.round() == null
                          && r.qps() > 0),
          "a faceted filtered summary row");
      JsonNode facets = Json.MAPPER.readTree(out.resolve(FacetedRounds.FILE_JSON).toFile());
      assertTrue(facets.path("facets").asText().contains("`terms` on `brand`"), facets.toString());
      assertTrue(facets.path("facets").asText().contains("`range` on `stock`"), facets.toString());
      JsonNode exactTarget = facets.path("variants").get(0);
      assertEquals("measured", exactTarget.path("state").asText(), facets.toString());
      assertEquals(1.0, exactTarget.path("buckets_exact").asDouble(), facets.toString());
      assertEquals(1.0, exactTarget.path("buckets_exact_filtered").asDouble(), facets.toString());
      assertTrue(updated, "an update row");

      // The update operation adds 100 to the update field of the index the run created.
      try (LoadGenerator load = new LoadGenerator()) {
        Document d = docs.get(3);
        long before = stock(load, base, d.id());
        FeedStats fed =
            new Feeder(load.http(), base, true, 100, mapping)
                .feed(List.of(d), FeedOp.PRICE_UPDATE, CpuMeter.NONE, 1);
        assertEquals(1, fed.docs());
        assertEquals((Long) d.value("stock") + 100, stock(load, base, d.id()));
        assertTrue(
            before == (Long) d.value("stock") || before == (Long) d.value("stock") + 100,
            "the run left the original or the updated value: " + before);
      }

      String report = Files.readString(out.resolve("report.md"));
      assertTrue(report.contains("index shop (mapping shop-mapping.json)"), report);
      assertTrue(report.contains("text fields [name, body]"), report);
      assertTrue(report.contains("filter field brand"), report);
      JsonNode run = Json.MAPPER.readTree(out.resolve("run.json").toFile());
      assertTrue(run.path("index").asText().contains("update field stock"), run.toString());
    }
  }

  /**
   * The commands end to end: {@code dataset build --source ndjson --mapping} from the shop
   * documents (vectors given, so no model runs), then {@code experiment --dataset} on an exact
   * target, which takes the dataset's mapping; fields that do not fit are usage errors naming them.
   */
  @Test
  void theCommandsBuildAMappedDatasetAndRunOnIt(@TempDir Path dir) throws Exception {
    long seed = TestSeeds.seed("MappedExperimentTest.commands");
    StringBuilder lines = new StringBuilder();
    for (Document d : ShopData.documents(seed, 300, DIMS)) {
      com.fasterxml.jackson.databind.node.ObjectNode line = Json.object();
      line.put("_id", d.id());
      line.set("_source", org.searchlab.core.SourceJson.json(d.source()));
      lines.append(line).append('\n');
    }
    Path in = dir.resolve("shop.ndjson");
    Files.writeString(in, lines);
    Path mappingFile = dir.resolve("shop-mapping.json");
    Files.writeString(mappingFile, ShopData.mappingFile(DIMS).toString());
    Path ds = dir.resolve("ds");
    assertEquals(
        0,
        cli(
            "dataset",
            "build",
            "--source",
            "ndjson",
            "--in",
            in.toString(),
            "--mapping",
            mappingFile.toString(),
            "--out",
            ds.toString()));

    for (String[] bad :
        new String[][] {
          {"--text-fields=brand", "--text-fields: [brand]"},
          {"--index-name=Shop", "--index-name [Shop]"},
          {"--variants=opensearch", "product mapping only"}
        }) {
      java.io.StringWriter err = new java.io.StringWriter();
      picocli.CommandLine c = org.searchlab.distribution.SearchlabCli.commandLine();
      c.setErr(new java.io.PrintWriter(err));
      int exit =
          c.execute(
              "experiment",
              "--profile=quick",
              "--dataset=" + ds,
              bad[0],
              "--out=" + dir.resolve("x"));
      assertEquals(2, exit, bad[0] + ": " + err);
      assertTrue(err.toString().contains(bad[1]), bad[0] + ": " + err);
    }
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine c = org.searchlab.distribution.SearchlabCli.commandLine();
    c.setErr(new java.io.PrintWriter(err));
    assertEquals(
        2, c.execute("experiment", "--profile=quick", "--synthetic", "--vector-field=image"));
    assertTrue(err.toString().contains("go with --mapping"), err.toString());

    try (SearchServer server = exactServer(dir.resolve("exact"))) {
      Path out = dir.resolve("results");
      assertEquals(
          0,
          cli(
              "experiment",
              "--profile=quick",
              "--dataset=" + ds,
              "--index-name=shop",
              "--target=exact=http://127.0.0.1:" + server.port(),
              "--docs=300",
              "--clients=2",
              "--duration=0.15",
              "--warmup=0.05",
              "--rounds=1",
              "--calibration-queries=10",
              "--recall-queries=10",
              "--vector-beams=10,40,400",
              "--sweep-docs=0",
              "--out=" + out));
      String report = Files.readString(out.resolve("report.md"));
      assertTrue(report.contains("index shop (mapping " + ds.resolve("mapping.json")), report);
      assertTrue(report.contains("vector field image, filter field brand"), report);
    }
  }

  private static int cli(String... args) {
    return org.searchlab.distribution.SearchlabCli.commandLine().execute(args);
  }

  /**
   * A searchlab store variant on the shop mapping: its server starts without the product index, the
   * run creates {@code shop} with {@code index.store} = the store, and lexical recall (exact BM25
   * scores) must be 1.0. The session's seed picks the store (printed; {@code -Dtests.seed=N}
   * repeats it), so runs cover both: the runner's mapped path does not depend on the store, and
   * each store's handling of any mapping has its own conformance suite. Both stores every run cost
   * about 21 s of the suite's 15-minute budget.
   */
  @Test
  void aStoreVariantRunsOnTheShopMapping(@TempDir Path dir) throws Exception {
    long seed = TestSeeds.seed("MappedExperimentTest.store");
    String store = (seed & 1) == 0 ? "segmented" : "mutable";
    System.out.println("MappedExperimentTest: seed " + seed + " runs the " + store + " store");
    BenchMapping mapping = ShopData.mapping(DIMS);
    Profile p =
        Profile.quick().toBuilder()
            // the servers' writes at nice 0, as in ExperimentIntegrationTest (which says why)
            .serverFeedNiceness(0.0)
            .docs(400)
            .dimension(DIMS)
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
    Corpus corpus =
        Corpus.mapped(ShopData.documents(seed, p.docs(), DIMS), mapping, 40, seed, "shop");
    List<ResultRow> rows =
        new ExperimentRunner(
                p,
                List.of(Variant.parse(store)),
                corpus,
                dir.resolve("results"),
                Path.of(".").toAbsolutePath(),
                new PrintStream(System.out, true),
                false)
            .run();
    int lexical = 0;
    for (ResultRow r : rows) {
      assertEquals(0, r.errors(), r.toString());
      if (r.isQueryCell()
          && r.phase().equals(Phases.AFTER_FLUSH)
          && r.round() == null
          && r.queryType().equals("lexical")) {
        lexical++;
        assertEquals(1.0, r.recallAt10(), 1e-9, r.toString());
      }
    }
    assertTrue(lexical >= 2, "lexical rows, filtered and not: " + lexical);
  }

  @Test
  void theProductOnlyPartsRefuseAnotherMapping(@TempDir Path dir) throws Exception {
    Corpus corpus =
        Corpus.mapped(ShopData.documents(1, 20, DIMS), ShopData.mapping(DIMS), 5, 1, "shop");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new ExperimentRunner(
                    Profile.quick(),
                    List.of(Variant.OPENSEARCH),
                    corpus,
                    dir,
                    dir,
                    new PrintStream(System.out, true),
                    false));
    assertTrue(e.getMessage().contains("opensearch"), e.getMessage());
  }

  private static long stock(LoadGenerator load, URI base, String id)
      throws IOException, InterruptedException {
    HttpResponse<byte[]> r =
        load.http()
            .send(
                HttpRequest.newBuilder(base.resolve("/shop/_doc/" + id)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(
        200, r.statusCode(), new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
    JsonNode stock = Json.MAPPER.readTree(r.body()).path("_source").path("stock");
    assertNotNull(stock);
    return stock.asLong();
  }

  /** A server whose every index is an {@link ExactIndex}, with no default index. */
  private static SearchServer exactServer(Path dataDir) throws Exception {
    StoreKind exact =
        new StoreKind() {
          @Override
          public String name() {
            return "exact";
          }

          @Override
          public org.searchlab.core.SearchIndex open(
              Path d, IndexSettings settings, Mapping mapping) throws IOException {
            return ExactIndex.open(d, settings, mapping);
          }
        };
    Files.createDirectories(dataDir);
    return SearchServer.start(
        ServerConfig.builder().host("127.0.0.1").port(0).build(),
        dataDir,
        Map.of("exact", exact),
        "exact",
        Optional.empty(),
        Optional.empty());
  }
}
