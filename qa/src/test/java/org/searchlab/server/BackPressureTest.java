package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * 256 concurrent clients against one search thread with a queue of 4 (and one write thread with a
 * queue of 2): the overflow is answered 429 with {@code Retry-After} in the dialect's error shape,
 * never a failure, and the server serves normally afterwards.
 */
class BackPressureTest {
  private static final int CLIENTS = 256;

  @Test
  void fullQueuesAnswer429() throws Exception {
    ServerConfig config =
        ServerConfig.builder()
            .port(0)
            .searchThreads(1)
            .searchQueue(4)
            .writeThreads(1)
            .writeQueue(2)
            .build();
    try (ServerFixture f = ServerFixture.start(TestStore.EXACT, config, Optional.empty())) {
      f.load(
          new SyntheticCorpus(TestSeeds.seed("BackPressureTest"), ServerFixture.DIMS), 2000, 100);
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(30))
              .build();
      // Heavy enough to keep the one search thread busy: 500 hits with their sources.
      String search = "{\"size\":500,\"query\":{\"match_all\":{}},\"track_total_hits\":true}";
      String bulk =
          "{\"index\":{\"_index\":\"product\",\"_id\":\"bp\"}}\n{\"title\":\"back pressure\"}\n";
      List<CompletableFuture<HttpResponse<String>>> searches = new ArrayList<>();
      List<CompletableFuture<HttpResponse<String>>> writes = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        searches.add(
            client.sendAsync(
                post(f, "/product/_search", search), HttpResponse.BodyHandlers.ofString()));
        writes.add(client.sendAsync(post(f, "/_bulk", bulk), HttpResponse.BodyHandlers.ofString()));
      }
      int[] search429 = count(searches, "search");
      int[] write429 = count(writes, "write");
      System.out.println(
          "search: "
              + search429[0]
              + " × 200, "
              + search429[1]
              + " × 429; bulk: "
              + write429[0]
              + " × 200, "
              + write429[1]
              + " × 429");
      assertTrue(search429[1] > 0, "some searches must be refused with 429");
      assertTrue(search429[0] > 0, "some searches must be served");
      assertTrue(write429[1] > 0, "some bulks must be refused with 429");

      String metrics = f.send("GET", "/metrics", (String) null).body();
      double rejected =
          MetricsAndProtocolTest.parse(metrics).stream()
              .filter(
                  s ->
                      s.name().equals("searchlab_executor_rejected_total")
                          && "search".equals(s.labels().get("pool")))
              .mapToDouble(MetricsAndProtocolTest.Sample::value)
              .sum();
      assertEquals(search429[1], rejected, 0.0);
      assertEquals(200, f.send("GET", "/health", (String) null).status());
      ServerFixture.Response after = f.send("POST", "/product/_search", search);
      assertEquals(200, after.status());
      assertEquals(2001, after.json().get("hits").get("total").get("value").asInt());
    }
  }

  private static HttpRequest post(ServerFixture f, String path, String body) {
    return HttpRequest.newBuilder(f.uri(path))
        .timeout(Duration.ofSeconds(120))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  /** Waits for all answers; returns {#200, #429}; anything else fails the test. */
  private static int[] count(List<CompletableFuture<HttpResponse<String>>> fs, String what) {
    int ok = 0;
    int busy = 0;
    for (CompletableFuture<HttpResponse<String>> f : fs) {
      HttpResponse<String> r = f.join();
      if (r.statusCode() == 200) {
        ok++;
      } else {
        assertEquals(429, r.statusCode(), what + ": " + r.body());
        assertEquals("1", r.headers().firstValue("Retry-After").orElse(null));
        assertTrue(r.body().contains("\"type\":\"es_rejected_execution_exception\""), r.body());
        assertTrue(r.body().contains("queue is full"), r.body());
        busy++;
      }
    }
    return new int[] {ok, busy};
  }
}
