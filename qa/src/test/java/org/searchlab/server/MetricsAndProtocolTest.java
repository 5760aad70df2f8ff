package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.mutable.MutableConfig;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/** {@code /metrics} in the Prometheus text format, {@code /health}, and the HTTP/2 upgrade path. */
class MetricsAndProtocolTest {
  /** One sample line of the exposition format: name, labels, value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private static final Pattern LINE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})?\\s+(\\S+)(\\s+\\d+)?$");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** Parses the exposition text; fails on any line that is neither a comment nor a sample. */
  static List<Sample> parse(String text) {
    List<Sample> out = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Matcher m = LINE.matcher(line);
      assertTrue(m.matches(), "not an exposition line: " + line);
      Map<String, String> labels = new HashMap<>();
      if (m.group(3) != null) {
        Matcher l = LABEL.matcher(m.group(3));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      String v = m.group(4);
      double value =
          switch (v) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(v);
          };
      out.add(new Sample(m.group(1), labels, value));
    }
    return out;
  }

  private static Sample find(List<Sample> samples, String name, Map<String, String> labels) {
    return samples.stream()
        .filter(s -> s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no sample " + name + labels));
  }

  @ParameterizedTest
  @EnumSource(
      value = TestStore.class,
      names = {"SEGMENTED", "MUTABLE"})
  void metricsExposeTimersFeedIndexAndJvm(TestStore store) throws Exception {
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("MetricsTest." + store), ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.start(store)) {
      List<Document> docs = f.load(corpus, 300);
      Document d = docs.get(5);
      for (int i = 0; i < 3; i++) {
        String body =
            BenchmarkBodiesTest.esBody(
                BenchmarkBodiesTest.Kind.LEXICAL, true, d.title(), d.category(), d.embedding());
        assertEquals(200, f.send("POST", "/product/_search", body).status());
        String vespa =
            BenchmarkBodiesTest.vespaBody(
                BenchmarkBodiesTest.Kind.VECTOR, false, d.title(), d.category(), d.embedding());
        assertEquals(200, f.send("POST", "/search/", vespa).status());
      }
      ServerFixture.Response r = f.send("GET", "/metrics", (String) null);
      assertEquals(200, r.status());
      assertTrue(r.header("Content-Type").startsWith("text/plain"), r.header("Content-Type"));
      List<Sample> s = parse(r.body());

      Sample esCount =
          find(
              s,
              "searchlab_requests_seconds_count",
              Map.of(
                  "dialect",
                  "es",
                  "endpoint",
                  "_search",
                  "query_type",
                  "lexical",
                  "status",
                  "200"));
      assertEquals(3, esCount.value());
      Sample vespaCount =
          find(
              s,
              "searchlab_requests_seconds_count",
              Map.of("dialect", "vespa", "endpoint", "search", "query_type", "vector"));
      assertEquals(3, vespaCount.value());
      // A percentile histogram: cumulative buckets ending in +Inf.
      Sample inf =
          find(
              s,
              "searchlab_requests_seconds_bucket",
              Map.of("dialect", "es", "endpoint", "_search", "le", "+Inf"));
      assertEquals(3, inf.value());
      assertTrue(
          s.stream().filter(x -> x.name().equals("searchlab_requests_seconds_bucket")).count() > 20,
          "histogram buckets");
      assertEquals(
          300,
          find(s, "searchlab_feed_operations_total", Map.of("op", "put", "outcome", "created"))
              .value());
      assertEquals(300, find(s, "searchlab_index_documents", Map.of()).value());
      assertTrue(find(s, "searchlab_index_segments", Map.of()).value() >= 1);
      // Sum the heap pools: one pool alone (G1 Eden) is legitimately 0 right after a young GC.
      find(s, "jvm_memory_used_bytes", Map.of("area", "heap"));
      double heapUsed =
          s.stream()
              .filter(x -> x.name().equals("jvm_memory_used_bytes"))
              .filter(x -> "heap".equals(x.labels().get("area")))
              .mapToDouble(Sample::value)
              .sum();
      assertTrue(heapUsed > 0, "heap used " + heapUsed);
      find(s, "process_cpu_usage", Map.of());
      find(s, "process_cpu_time_ns_total", Map.of());
      find(s, "searchlab_executor_queued", Map.of("pool", "search"));
      // Memory per part: every part the store reports is a labelled gauge.
      for (String part : f.index.stats().memoryBytes().keySet()) {
        find(s, "searchlab_index_memory_bytes", Map.of("part", part));
      }
      // Bytes per vector (the fixture's stores keep float vectors; only the mutable store reports
      // its graph), in /metrics and /_admin/stats alike.
      ServerFixture.Response perVector = f.send("GET", "/_admin/stats", (String) null);
      List<String> parts =
          store == TestStore.MUTABLE ? List.of("float", "graph") : List.of("float");
      for (String part : parts) {
        double bytes =
            find(s, "searchlab_index_vector_bytes_per_vector", Map.of("part", part)).value();
        assertTrue(bytes > 0, part + " bytes per vector " + bytes);
        assertEquals(
            bytes, perVector.json().get("vector_bytes_per_vector").get(part).asDouble(), 1.0, part);
      }
      assertTrue(
          find(s, "searchlab_index_vector_bytes_per_vector", Map.of("part", "float")).value()
              >= 4.0 * ServerFixture.DIMS,
          "four bytes a float component");
      if (store == TestStore.MUTABLE) {
        assertFalse(f.index.stats().memoryBytes().isEmpty(), "the mutable store reports memory");
        // The build threads it feeds with: the cores by default.
        assertEquals(
            MutableConfig.DEFAULT_BUILD_THREADS,
            find(s, "searchlab_index_events_total", Map.of("name", "build_threads")).value());
      }

      ServerFixture.Response health = f.send("GET", "/health", (String) null);
      assertEquals(200, health.status());
      assertEquals("ok", health.json().get("status").asText());
      ServerFixture.Response stats = f.send("GET", "/_admin/stats", (String) null);
      assertEquals(300, stats.json().get("doc_count").asInt());
      ServerFixture.Response segs = f.send("GET", "/product/_segments", (String) null);
      assertEquals(
          stats.json().get("segment_count").asInt(),
          segs.json()
              .get("indices")
              .get("product")
              .get("shards")
              .get("0")
              .get(0)
              .get("num_search_segments")
              .asInt());
      assertEquals(
          200, f.send("POST", "/product/_forcemerge?max_num_segments=1", (String) null).status());
      assertEquals(
          1,
          f.send("GET", "/product/_segments", (String) null)
              .json()
              .get("indices")
              .get("product")
              .get("shards")
              .get("0")
              .get(0)
              .get("num_search_segments")
              .asInt());
    }
  }

  @Test
  void pipelinedHttp11RequestsAreAnsweredInOrder() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT);
        java.net.Socket socket = new java.net.Socket("127.0.0.1", f.port())) {
      socket.setSoTimeout(30_000);
      String search = "{\"query\":{\"match_all\":{}},\"size\":0}";
      String requests =
          "POST /product/_search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              + "Content-Length: "
              + search.length()
              + "\r\n\r\n"
              + search
              + "GET /nothing-here HTTP/1.1\r\nHost: localhost\r\n\r\n"
              + "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
      socket.getOutputStream().write(requests.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      String all =
          new String(
              socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      int first = all.indexOf("HTTP/1.1 200");
      int second = all.indexOf("HTTP/1.1 404", first + 1);
      int third = all.indexOf("HTTP/1.1 200", second + 1);
      assertTrue(first >= 0 && second > first && third > second, all);
      assertTrue(all.contains("\"status\":\"ok\""), all);
    }
  }

  @Test
  void http2UpgradeAndKeepAlive() throws Exception {
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT)) {
      HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
      // The first request asks for Upgrade: h2c; later ones reuse the HTTP/2 connection.
      for (int i = 0; i < 3; i++) {
        HttpResponse<String> r =
            h2.send(
                HttpRequest.newBuilder(f.uri("/")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("\"number\":\"8.15.2\""), r.body());
        if (i > 0) {
          assertEquals(HttpClient.Version.HTTP_2, r.version());
        }
      }
      HttpResponse<String> post =
          h2.send(
              HttpRequest.newBuilder(f.uri("/product/_search"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"query\":{\"match_all\":{}}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, post.statusCode(), post.body());
      assertEquals(HttpClient.Version.HTTP_2, post.version());
      assertFalse(post.headers().firstValue("connection").isPresent());

      // HTTP/1.1 keep-alive: no Connection: close on ordinary answers.
      ServerFixture.Response r1 = f.send("GET", "/health", (String) null);
      assertFalse("close".equals(r1.header("Connection")));
    }
  }
}
