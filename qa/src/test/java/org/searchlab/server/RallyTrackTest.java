package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.PythonEnv;
import org.searchlab.testing.PythonRun;
import org.searchlab.testing.TestSeeds;

/**
 * Rally ({@code esrally} 2.13.0 from PyPI, unchanged, in its own pinned environment) races the
 * repository's custom track {@code qa/rally/articles-events} against a server: two indexes with
 * mappings of their own, bulk without ids, refresh, force-merge, and thirteen searches in one
 * parallel step, among them two faceted searches (terms, range, date_histogram and metric
 * aggregations, sorted by a field) and two paginated ones (sorted, paged by {@code search_after}).
 * Each asserts its hit count where that depends neither on analysis nor on a vector graph, and a
 * paginated one its page count ({@code --enable-assertions}).
 *
 * <p>One race against one server holding one index of each store kind ({@code index.store}); the
 * session's seed decides which index is on which store (printed), so over runs each index's whole
 * track runs on each store, and every run races both stores, the faceted and paginated searches
 * included. After the race every document of the track's files must be in its index, the index on
 * the expected store and green, and the faceted searches, which Rally cannot assert on, must answer
 * the buckets, metrics and sort values {@code make_track.py} computed from the documents ({@code
 * expected-aggregations.json}). Rally's report is kept as {@code qa/target/rally/<race>/report.md}.
 *
 * <p>Races run one after another ({@code --kill-running-processes} ends any other Rally). Each race
 * costs 70–90 s, most of it Rally's start and its workers' 5 s polls between steps: hence one mixed
 * race rather than one per store kind or both assignments in every run (the suite must stay within
 * 15 minutes on 2 cores), and the exact store, which the other tests compare both stores with, does
 * not race here.
 */
class RallyTrackTest {
  private static final Duration RACE_TIMEOUT = Duration.ofMinutes(10);
  private static final String TRACK = "qa/rally/articles-events";

  private static PythonEnv rally;

  @BeforeAll
  static void environment() {
    rally = PythonEnv.forTool("esrally");
  }

  /**
   * Races the track against one server holding one index of each store kind, the articles index on
   * the store the seed picks and the events index on the other one.
   */
  @Test
  void theTrackCompletesAndEveryDocumentIsIndexed() throws Exception {
    long seed = TestSeeds.seed("RallyTrackTest");
    String articlesStore = (seed & 1) == 0 ? "segmented" : "mutable";
    System.out.println(
        "RallyTrackTest: seed "
            + seed
            + " puts the articles index on the "
            + articlesStore
            + " store");
    String eventsStore = articlesStore.equals("segmented") ? "mutable" : "segmented";
    Map<String, String> stores = Map.of("articles", articlesStore, "events", eventsStore);
    String race = "articles-" + articlesStore;
    Path root = PythonEnv.projectRoot();
    Path dir = root.resolve("qa/target/rally/" + race);
    deleteTree(dir);
    Path home = Files.createDirectories(dir.resolve("home"));
    // Rally writes offset files beside the documents: race a copy, never the repository's files.
    Path track = Files.createDirectories(dir.resolve("track"));
    try (Stream<Path> files = Files.list(root.resolve(TRACK))) {
      for (Path f :
          files
              .filter(p -> p.toString().endsWith(".json") && !p.endsWith(EXPECTED_AGGREGATIONS))
              .toList()) {
        Files.copy(f, track.resolve(f.getFileName()));
      }
    }
    try (SearchServer server =
        SearchServer.start(
            ServerConfig.builder().port(0).build(),
            dir.resolve("data"),
            TestKinds.both(),
            "segmented",
            Optional.empty(),
            Optional.empty())) {
      List<String> command = new ArrayList<>();
      command.addAll(
          List.of(
              rally.bin("esrally").toString(),
              "race",
              "--pipeline=benchmark-only",
              "--offline",
              "--on-error=abort",
              "--kill-running-processes",
              "--enable-assertions",
              "--track-path=" + track,
              "--target-hosts=127.0.0.1:" + server.port(),
              "--report-format=markdown",
              "--report-file=" + dir.resolve("report.md"),
              "--track-params=articles_store:" + articlesStore + ",events_store:" + eventsStore));
      PythonRun run = rally.exec(RACE_TIMEOUT, Map.of("HOME", home.toString()), dir, command);
      Files.writeString(dir.resolve("rally-output.txt"), run.stdout() + run.stderr());
      run.requireSuccess();
      assertTrue(run.stdout().contains("SUCCESS"), run.describe());
      assertTrue(Files.size(dir.resolve("report.md")) > 0, "Rally's report");

      String base = "http://127.0.0.1:" + server.port();
      for (String index : List.of("articles", "events")) {
        JsonNode settings = get(base, "/" + index + "/_settings");
        assertEquals(
            stores.get(index),
            settings.at("/" + index + "/settings/index/store").asText(),
            index + ": its store kind");
        JsonNode health = get(base, "/_cluster/health/" + index);
        assertEquals("green", health.get("status").asText(), index + ": " + health);
        assertEveryDocumentIndexed(base, index, track.resolve(index + "-documents.json"));
      }
      assertFacetsExact(base, track.resolve("track.json"), root.resolve(TRACK));
    }
  }

  /** The file of the faceted searches' exact answers, written by {@code make_track.py}. */
  private static final String EXPECTED_AGGREGATIONS = "expected-aggregations.json";

  /**
   * Sends each faceted search of the track again and compares its answer with what {@code
   * make_track.py} computed from the documents: the total, every bucket's key and count of each
   * bucket aggregation (in order), the count, minimum, maximum and sum of each {@code stats}, and
   * the top hits' sort values.
   */
  private static void assertFacetsExact(String base, Path trackFile, Path trackDir)
      throws Exception {
    JsonNode expected = Json.MAPPER.readTree(trackDir.resolve(EXPECTED_AGGREGATIONS).toFile());
    JsonNode track = Json.MAPPER.readTree(trackFile.toFile());
    int checked = 0;
    for (JsonNode task :
        track.at("/schedule").get(track.at("/schedule").size() - 1).at("/parallel/tasks")) {
      JsonNode op = task.get("operation");
      String name = op.get("name").asText();
      JsonNode want = expected.get(name);
      if (want == null) {
        continue;
      }
      JsonNode got = post(base, "/" + op.get("index").asText() + "/_search", op.get("body"));
      assertEquals(want.get("hits").asInt(), got.at("/hits/total/value").asInt(), name + ": total");
      com.fasterxml.jackson.databind.node.ArrayNode sorts = Json.MAPPER.createArrayNode();
      got.at("/hits/hits").forEach(h -> sorts.add(h.get("sort")));
      assertEquals(want.get("sort").toString(), sorts.toString(), name + ": sort values");
      for (var e : want.get("buckets").properties()) {
        List<String> buckets = new ArrayList<>();
        for (JsonNode b : got.at("/aggregations/" + e.getKey() + "/buckets")) {
          buckets.add(b.get("key").asText() + "=" + b.get("doc_count").asLong());
        }
        List<String> wanted = new ArrayList<>();
        e.getValue().forEach(b -> wanted.add(b.get("key").asText() + "=" + b.get("doc_count")));
        assertEquals(wanted, buckets, name + ": " + e.getKey());
      }
      for (var e : want.get("stats").properties()) {
        JsonNode s = got.at("/aggregations/" + e.getKey());
        for (String m : List.of("count", "min", "max", "sum")) {
          assertEquals(
              e.getValue().get(m).asDouble(),
              s.get(m).asDouble(),
              name + ": " + e.getKey() + "." + m);
        }
      }
      checked++;
    }
    assertEquals(expected.size(), checked, "every faceted search of " + EXPECTED_AGGREGATIONS);
  }

  /** Every line of the document file is one document of the index, and nothing else is. */
  private static void assertEveryDocumentIndexed(String base, String index, Path file)
      throws Exception {
    List<String> expected = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        expected.add(Json.MAPPER.readTree(line).toString());
      }
    }
    JsonNode answer =
        get(
            base,
            "/" + index + "/_search?size=" + (expected.size() + 1) + "&track_total_hits=true");
    assertEquals(expected.size(), answer.at("/hits/total/value").asInt(), index + ": total");
    List<String> actual = new ArrayList<>();
    for (JsonNode h : answer.at("/hits/hits")) {
      actual.add(h.get("_source").toString());
    }
    expected.sort(Comparator.naturalOrder());
    actual.sort(Comparator.naturalOrder());
    assertEquals(expected, actual, index + ": the documents' sources");
  }

  private static JsonNode get(String base, String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    return Json.MAPPER.readTree(r.body());
  }

  private static JsonNode post(String base, String path, JsonNode body) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + path))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    return Json.MAPPER.readTree(r.body());
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
