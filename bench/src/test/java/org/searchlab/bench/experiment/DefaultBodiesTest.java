package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.vespa.feed.client.DocumentId;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.bench.load.CpuMeter;
import org.searchlab.core.Document;
import org.searchlab.core.VectorQuantization;

/**
 * Every request the default experiment (the product mapping) sends, pinned byte for byte against
 * {@code default-bodies.txt}: the search bodies of every dialect and setting (the faceted ones
 * last), the {@code _bulk} and Vespa feed bodies of a put and of the price update, the admin calls
 * with the index body each engine is given, and the server flags of each store. The requests go
 * through the runner's own code ({@link SearchDialect#ofStore}, {@link Feeder}, {@link
 * ServerAdmin}, {@link ServerOptions}) over an HTTP client that records instead of sending. A
 * change that moves any byte of the default run fails here; when a change is meant to, the new
 * transcript is written to {@code target/default-bodies.txt} to review and copy over.
 *
 * <p>The corpus is a fixed seed (not a test seed): the transcript depends on its bytes.
 */
class DefaultBodiesTest {
  private static final long SEED = 66;
  private static final URI BASE = URI.create("http://127.0.0.1:9200");

  /**
   * The vector types of the transcript: floats and int8. The segmented store's int4 and bbq (issue
   * 69) are not part of the default run, and adding them would move its bytes.
   */
  private static final List<VectorQuantization> DEFAULT_RUN_TYPES =
      List.of(VectorQuantization.NONE, VectorQuantization.INT8);

  @Test
  void theDefaultExperimentSendsTheSameBytes() throws Exception {
    Corpus corpus = Corpus.synthetic(SEED, 12, 4, 3);
    List<String> out = new ArrayList<>();
    searches(corpus, out);
    feeds(corpus, out);
    admin(corpus, out);
    flags(out);
    // Added with the faceted query type (issue 67), after every older request so that those stay
    // byte for byte where they were.
    faceted(corpus, out);
    String actual = String.join("\n----\n", out) + "\n";
    String expected;
    try (InputStream in = DefaultBodiesTest.class.getResourceAsStream("default-bodies.txt")) {
      expected = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!actual.equals(expected)) {
      Path written = Path.of("target", "default-bodies.txt");
      Files.createDirectories(written.getParent());
      Files.writeString(written, actual);
      System.out.println(
          "DefaultBodiesTest: the transcript sent is in " + written.toAbsolutePath());
    }
    assertEquals(expected, actual, "the default experiment's requests moved");
    assertTrue(out.size() > 200, "the transcript covers every dialect: " + out.size());
  }

  /** Every query's body per dialect, query type, filter and setting, and the grid's searches. */
  private static void searches(Corpus corpus, List<String> out) {
    List<SearchDialect> dialects =
        List.of(
            SearchDialect.ofStore("segmented", false),
            SearchDialect.ofStore("segmented", true),
            SearchDialect.ofStore("mutable", false),
            SearchDialect.ofStore("mutable", true),
            new OsDialect());
    List<Setting> settings = List.of(Setting.BENCHMARK, new Setting(10, 10), new Setting(10, 400));
    for (SearchDialect d : dialects) {
      for (BenchQuery q : corpus.queries()) {
        for (QueryType t : QueryType.values()) {
          for (boolean filtered : new boolean[] {false, true}) {
            for (Setting s : settings) {
              HttpRequest r = d.search(BASE, q, t, filtered, s);
              out.add(d.getClass().getSimpleName() + " " + t + " " + filtered + " " + s);
              out.add(RecordingHttp.describe(r));
            }
          }
        }
        out.add(RecordingHttp.describe(d.vectorSearch(BASE, q, 10, 100)));
        out.add(RecordingHttp.describe(d.vectorSearch(BASE, q, 100, 50)));
      }
    }
  }

  /**
   * The faceted bodies: the lexical body plus the facets' {@code aggs}, in the Elasticsearch
   * dialect (which searchlab's mutable server is sent too) and OpenSearch's.
   */
  private static void faceted(Corpus corpus, List<String> out) {
    Facets facets = Facets.of(BenchMapping.PRODUCT, corpus.docs());
    out.add("facets " + facets.describe());
    for (SearchDialect d : List.of(SearchDialect.ofStore("segmented", false), new OsDialect())) {
      for (BenchQuery q : corpus.queries()) {
        for (boolean filtered : new boolean[] {false, true}) {
          out.add(d.getClass().getSimpleName() + " faceted " + filtered);
          out.add(RecordingHttp.describe(d.faceted(BASE, q, filtered, facets)));
        }
      }
    }
  }

  /** The {@code _bulk} requests of a put and an update, and each Vespa operation with its id. */
  private static void feeds(Corpus corpus, List<String> out) throws InterruptedException {
    for (FeedOp op : FeedOp.values()) {
      RecordingHttp http = new RecordingHttp(r -> "{\"errors\":false,\"items\":[]}");
      FeedStats stats = new Feeder(http, BASE, true, 5).feed(corpus.docs(), op, CpuMeter.NONE, 1);
      assertEquals(corpus.docs().size(), stats.docs());
      out.addAll(http.transcript());
      for (Document d : corpus.docs()) {
        out.add(
            op
                + " "
                + DocumentId.of(VespaDialect.DOCTYPE, VespaDialect.DOCTYPE, d.id())
                + "\n"
                + new String(Feeder.vespaBody(List.of(d), op), StandardCharsets.UTF_8));
      }
    }
  }

  /** The admin calls of a searchlab server (either vector type) and of OpenSearch. */
  private static void admin(Corpus corpus, List<String> out)
      throws IOException, InterruptedException {
    for (ServerAdmin.Kind kind : ServerAdmin.Kind.values()) {
      for (VectorQuantization quantization : DEFAULT_RUN_TYPES) {
        RecordingHttp http = new RecordingHttp(DefaultBodiesTest::answer);
        ServerAdmin admin = new ServerAdmin(http, BASE, kind, 1);
        admin.createIndex(corpus.dimension(), 16, 200, quantization);
        admin.createIndex(corpus.dimension(), 32, 100);
        admin.refresh();
        admin.flush();
        if (admin.canForceMerge()) {
          admin.forceMerge(1);
        }
        admin.awaitMerges(java.time.Duration.ofSeconds(5));
        admin.segments();
        admin.storeCounter("build_threads");
        admin.vectorBytesPerVector();
        out.add(kind + " " + quantization);
        out.addAll(http.transcript());
      }
    }
  }

  private static String answer(HttpRequest r) {
    String path = r.uri().getPath();
    if (path.startsWith("/_cluster/health")) {
      return "{\"status\":\"green\"}";
    }
    if (path.equals("/_admin/stats")) {
      return "{\"counters\":{\"merges_running\":0,\"merges_pending\":0,\"merges_held\":0}}";
    }
    return "{}";
  }

  /** The flags of each store's server as the runner starts it, per vector type. */
  private static void flags(List<String> out) {
    for (String store : List.of(Variant.SEGMENTED_STORE, Variant.MUTABLE_STORE)) {
      for (VectorQuantization quantization : DEFAULT_RUN_TYPES) {
        out.add(
            String.join(
                " ",
                ServerOptions.defaults(store, 4).toBuilder()
                    .quantization(quantization)
                    .build()
                    .flags()));
      }
      out.add(
          String.join(
              " ",
              ServerOptions.defaults(store, 4).toBuilder()
                  .segmentPerBatch(true)
                  .mergePolicyNone(true)
                  .searchThreads(0)
                  .hnswM(32)
                  .hnswEfConstruction(100)
                  .refreshIntervalMs(-1)
                  .build()
                  .flags()));
    }
  }
}
