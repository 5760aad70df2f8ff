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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.searchlab.testing.PythonEnv;
import org.searchlab.testing.PythonRun;

/**
 * Rally ({@code esrally} 2.13.0 from PyPI, unchanged, in its own pinned environment) races the
 * repository's custom track {@code qa/rally/articles-events} against a server: two indexes with
 * mappings of their own, bulk without ids, refresh, force-merge, and nine searches, each asserting
 * its hit count where that depends neither on analysis nor on a vector graph ({@code
 * --enable-assertions}). It runs against each store kind (the indexes take the server's default
 * store) and against one server holding one index of each kind ({@code index.store}). After the
 * race every document of the track's files must be in its index, the index on the expected store
 * and green. Rally's report is kept as {@code qa/target/rally/<race>/report.md}.
 *
 * <p>Races run one after another ({@code --kill-running-processes} ends any other Rally). Each race
 * costs about 70 s, most of it Rally's start and its workers' 5 s polls between steps, so the exact
 * store, which the other tests compare both stores with, does not race here.
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
   * Races the track.
   *
   * @param race a store kind, or {@code mixed}: articles on the segmented store and events on the
   *     mutable one, in one server
   */
  @ParameterizedTest
  @ValueSource(strings = {"segmented", "mutable", "mixed"})
  void theTrackCompletesAndEveryDocumentIsIndexed(String race) throws Exception {
    boolean mixed = race.equals("mixed");
    Map<String, String> stores =
        mixed
            ? Map.of("articles", "segmented", "events", "mutable")
            : Map.of("articles", race, "events", race);
    Path root = PythonEnv.projectRoot();
    Path dir = root.resolve("qa/target/rally/" + race);
    deleteTree(dir);
    Path home = Files.createDirectories(dir.resolve("home"));
    // Rally writes offset files beside the documents: race a copy, never the repository's files.
    Path track = Files.createDirectories(dir.resolve("track"));
    try (Stream<Path> files = Files.list(root.resolve(TRACK))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).toList()) {
        Files.copy(f, track.resolve(f.getFileName()));
      }
    }
    try (SearchServer server =
        SearchServer.start(
            ServerConfig.builder().port(0).build(),
            dir.resolve("data"),
            TestKinds.both(),
            mixed ? "segmented" : race,
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
              "--report-file=" + dir.resolve("report.md")));
      if (mixed) {
        command.add(
            "--track-params=articles_store:"
                + stores.get("articles")
                + ",events_store:"
                + stores.get("events"));
      }
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
    }
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
