package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Hit;
import org.searchlab.distribution.SearchlabCli;
import org.searchlab.testing.ExactCorpus;
import org.searchlab.testing.TestSeeds;

/**
 * {@code searchlab experiment --queries FILE} end to end on a 1,000-document synthetic corpus with
 * tiny cells: the file's queries replace the sampled ones, their exact ground truth is the oracle's
 * (written to ground-truth.jsonl), a query without a category gets its nearest document's, and the
 * report names the file and carries the calibration and the recall/QPS plots.
 */
class OwnQueriesIntegrationTest {
  @Test
  void ownQueriesRunEndToEnd(@TempDir Path dir) throws Exception {
    long seed = TestSeeds.seed("OwnQueriesIntegrationTest");
    int docs = 1_000;
    int dim = 32;
    // The command builds the same corpus from the same seed.
    Corpus corpus = Corpus.synthetic(seed, docs, dim, Profile.quick().queryCount());
    SplittableRandom random = new SplittableRandom(seed);
    ObjectMapper json = new ObjectMapper();
    List<String> lines = new ArrayList<>();
    List<Document> sources = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      Document d = corpus.docs().get(random.nextInt(docs));
      sources.add(d);
      ObjectNode q = json.createObjectNode();
      q.put("text", BenchQuery.queryText(d.title(), 3) + " " + (i % 3 == 0 ? "extra" : ""));
      var v = q.putArray("vector");
      for (float x : d.embedding()) {
        v.add(x * 3); // not unit length: the reader normalises
      }
      if (i % 2 == 0) {
        q.put("category", d.category());
      }
      lines.add(json.writeValueAsString(q));
    }
    Path file = dir.resolve("my-queries.ndjson");
    Files.write(file, lines);
    Path out = dir.resolve("run");

    int exit =
        SearchlabCli.commandLine()
            .execute(
                "experiment",
                "--profile=quick",
                // the servers' writes at nice 0, as in ExperimentIntegrationTest (which says why)
                "--feed-niceness=0",
                "--synthetic",
                "--seed=" + seed,
                "--docs=" + docs,
                "--dim=" + dim,
                "--queries=" + file,
                // the queries file is the same for every variant: two stores check it, and the
                // force-merged copy would add a merge, a server and a third of the cells
                // One store: the queries-file path does not depend on the variant, and the stores
                // are compared by the conformance suites (a second store cost about 25 s of the
                // suite's time).
                "--variants=mutable",
                "--clients=4",
                "--warmup=0.05",
                "--duration=0.15",
                "--rounds=2",
                "--recall-queries=12",
                "--calibration-queries=20",
                "--vector-beams=10,20,40,100,400",
                "--sweep-docs=0",
                "--out=" + out);
    assertEquals(0, exit);

    ExactCorpus oracle = new ExactCorpus();
    corpus.docs().forEach(oracle::put);
    List<String> truth = Files.readAllLines(out.resolve(PairedRounds.GROUND_TRUTH));
    assertEquals(lines.size(), truth.size());
    for (int i = 0; i < truth.size(); i++) {
      JsonNode t = json.readTree(truth.get(i));
      JsonNode q = json.readTree(lines.get(i));
      assertEquals(q.get("text").asText(), t.get("text").asText());
      Document source = sources.get(i);
      // With or without a category in the file, the filter is the source document's category: the
      // query vector is its vector, so it is its own nearest document.
      assertEquals(source.category(), t.get("category").asText(), "category of query " + i);
      List<String> vector = ids(t.path("exact_top_10").path("vector"));
      assertEquals(source.id(), vector.get(0), "nearest document of query " + i);
      List<String> lexical = ids(t.path("exact_top_10").path("lexical_filtered"));
      List<String> expected =
          oracle
              .lexicalScores(q.get("text").asText(), Filter.category(source.category()))
              .entrySet()
              .stream()
              .map(e -> new Hit(e.getKey(), e.getValue()))
              .sorted(ExactCorpus.BY_SCORE)
              .limit(10)
              .map(Hit::id)
              .toList();
      assertEquals(expected, lexical, "exact filtered lexical top-10 of query " + i);
    }

    String report = Files.readString(out.resolve("report.md"));
    assertTrue(report.contains("12 queries from my-queries.ndjson"), report);
    assertTrue(report.contains("## Calibration"), report);
    assertTrue(report.contains("](recall-qps-vector-filtered.png)"), report);
    int summaries = 0;
    List<Integer> vectorBeams = new ArrayList<>();
    for (String l : Files.readAllLines(out.resolve("results.jsonl"))) {
      JsonNode n = json.readTree(l);
      if (n.get("phase").asText().equals(Phases.CALIBRATION)
          && n.get("query_type").asText().equals("vector")
          && !n.get("filtered").asBoolean()
          && n.get("variant").asText().equals("mutable")) {
        vectorBeams.add(n.get("num_candidates").asInt());
      }
      if (n.get("phase").asText().startsWith("after_") && n.get("round").isNull()) {
        summaries++;
        assertTrue(n.get("recall_at_10").isNumber(), n.toString());
        if (n.get("query_type").asText().equals("lexical")
            || n.get("query_type").asText().equals(FacetedRounds.LABEL)) {
          assertEquals(1.0, n.get("recall_at_10").asDouble(), 1e-9, n.toString());
        }
      }
    }
    // 1 variant × 4 query types (lexical, vector, hybrid, faceted) × 2 filter settings × 1 client
    // count
    assertEquals(8, summaries);
    // the calibration curve ran on the grid given with --vector-beams
    assertEquals(List.of(10, 20, 40, 100, 400), vectorBeams);
  }

  private static List<String> ids(JsonNode a) {
    List<String> out = new ArrayList<>();
    a.forEach(n -> out.add(n.asText()));
    return out;
  }
}
