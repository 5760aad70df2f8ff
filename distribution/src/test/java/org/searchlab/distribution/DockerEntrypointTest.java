package org.searchlab.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.searchlab.server.Json;
import org.searchlab.testing.ForkedJvm;

/**
 * No Docker engine runs here, so this runs what the image runs, outside a container: the {@code
 * ENTRYPOINT} of {@code docker/Dockerfile} must be the launcher's {@code serve}, and each {@code
 * compose.yaml} service's {@code command} (with {@code /data} pointed at a temporary directory and
 * port 8080 at a free one) must start the server, answer {@code /health}, take a document and find
 * it, and stop cleanly on SIGTERM. The launcher itself ({@code bin/searchlab} → {@code
 * SearchlabCli} → {@code serve}) only adds JVM flags and the jar classpath; here {@link
 * SearchlabCli#main} runs in a child JVM with the same flags and this module's class path, which
 * holds no benchmark library: what the image holds.
 */
class DockerEntrypointTest {
  private static final Path DOCKER = Path.of("..", "docker");

  @Test
  void dockerfileRunsSearchlabServe() throws Exception {
    List<String> entrypoint = instruction("ENTRYPOINT");
    assertEquals(List.of("/opt/searchlab/bin/searchlab", "serve"), entrypoint);
    List<String> cmd = instruction("CMD");
    assertTrue(
        cmd.containsAll(List.of("--host", "0.0.0.0", "--data-dir", "/data")), cmd.toString());
    String user = null;
    for (String line : Files.readAllLines(DOCKER.resolve("Dockerfile"))) {
      if (line.startsWith("USER ")) {
        user = line.substring(5).trim().split(":")[0];
      }
    }
    assertNotNull(user, "the image names its user");
    assertTrue(!user.equals("0") && !user.equals("root"), "the image runs as " + user);
    runServe(cmd);
  }

  @Test
  void everyComposeServiceStarts() throws Exception {
    JsonNode compose =
        new ObjectMapper(new YAMLFactory()).readTree(DOCKER.resolve("compose.yaml").toFile());
    JsonNode services = compose.get("services");
    List<String> names = new ArrayList<>();
    services.fieldNames().forEachRemaining(names::add);
    assertEquals(List.of("mutable", "segmented", "segmented-forcemerged"), names);
    for (Iterator<Map.Entry<String, JsonNode>> it = services.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> s = it.next();
      JsonNode limits = s.getValue().get("deploy").get("resources").get("limits");
      assertNotNull(limits.get("cpus"), s.getKey() + " has a CPU limit");
      assertNotNull(limits.get("memory"), s.getKey() + " has a memory limit");
      for (JsonNode port : s.getValue().get("ports")) {
        assertTrue(
            port.asText().startsWith("${SEARCHLAB_PUBLISH_ADDRESS:-127.0.0.1}:"),
            s.getKey() + " publishes on loopback unless told otherwise: " + port.asText());
      }
      List<String> command = new ArrayList<>();
      s.getValue().get("command").forEach(c -> command.add(c.asText()));
      runServe(command);
    }
  }

  /** The exec-form JSON array of the last {@code ENTRYPOINT} or {@code CMD}. */
  private static List<String> instruction(String name) throws Exception {
    String json = null;
    for (String line : Files.readAllLines(DOCKER.resolve("Dockerfile"))) {
      if (line.startsWith(name + " ")) {
        json = line.substring(name.length()).trim();
      }
    }
    assertNotNull(json, "Dockerfile has no " + name);
    List<String> out = new ArrayList<>();
    Json.MAPPER.readTree(json).forEach(n -> out.add(n.asText()));
    return out;
  }

  private static void runServe(List<String> command) throws Exception {
    Path data = Files.createTempDirectory("searchlab-entrypoint");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> args = new ArrayList<>();
    for (String a : command) {
      args.add(a.equals("/data") ? data.toString() : a.equals("8080") ? Integer.toString(port) : a);
    }
    args.addAll(
        List.of("--dims", "4")); // the image's default is 384; a tiny document suffices here
    System.out.println("serve " + String.join(" ", args));
    List<String> cli = new ArrayList<>(List.of("serve"));
    cli.addAll(args);
    ForkedJvm jvm = ForkedJvm.start(SearchlabCli.class, cli.toArray(String[]::new));
    try {
      String started =
          assertTimeoutPreemptively(
              Duration.ofSeconds(60),
              () -> {
                String line;
                while ((line = jvm.readLine()) != null) {
                  if (line.contains("started on http://0.0.0.0:" + port)) {
                    return line;
                  }
                }
                return null;
              });
      assertNotNull(started, "the server did not report its start");
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + port;
      assertEquals(
          200, http.send(get(base + "/health"), HttpResponse.BodyHandlers.ofString()).statusCode());
      HttpResponse<String> put =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/document/v1/product/product/docid/e1"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"fields\":{\"title\":\"entrypoint check\",\"embedding\":[0.5,0.5,0.5,0.5]}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, put.statusCode(), put.body());
      http.send(
          HttpRequest.newBuilder(URI.create(base + "/_refresh"))
              .POST(HttpRequest.BodyPublishers.noBody())
              .build(),
          HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> search =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/product/_search"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"query\":{\"multi_match\":{\"query\":\"entrypoint\","
                              + "\"fields\":[\"title\",\"description\"]}}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, search.statusCode(), search.body());
      assertEquals(
          "e1",
          Json.MAPPER.readTree(search.body()).get("hits").get("hits").get(0).get("_id").asText());
      // SIGTERM, as docker stop sends: the shutdown hook stops the server and closes the store.
      // (Process.destroy() would also close our end of its stdout before we read the last line.)
      new ProcessBuilder("kill", "-TERM", Long.toString(jvm.process().pid())).start().waitFor();
      boolean stopped =
          assertTimeoutPreemptively(
              Duration.ofSeconds(30),
              () -> {
                boolean seen = false;
                String line;
                while ((line = jvm.readLine()) != null) {
                  seen |= line.contains("searchlab-server stopped");
                }
                return seen;
              });
      assertTrue(jvm.process().waitFor(30, TimeUnit.SECONDS), "the server stops on SIGTERM");
      assertTrue(stopped, "one log line for the stop");
    } finally {
      jvm.kill();
    }
  }

  private static HttpRequest get(String uri) {
    return HttpRequest.newBuilder(URI.create(uri)).GET().build();
  }
}
