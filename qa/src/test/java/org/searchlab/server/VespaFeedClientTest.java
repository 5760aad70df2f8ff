package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.vespa.feed.client.FeedClient;
import ai.vespa.feed.client.FeedClientBuilder;
import ai.vespa.feed.client.FeedException;
import ai.vespa.feed.client.JsonFeeder;
import ai.vespa.feed.client.Result;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The official {@code vespa-feed-client} (HTTP/2 with prior knowledge only, gzip bodies) feeds puts
 * and then price updates in the benchmark's feed-line format; Vespa-dialect searches and gets then
 * find them.
 */
class VespaFeedClientTest {
  private static final int DOCS = 300;

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void feedClientFeedsPutsAndUpdatesOverH2c(TestStore store) throws Exception {
    long seed = TestSeeds.seed("VespaFeedClientTest." + store);
    SyntheticCorpus corpus = new SyntheticCorpus(seed, ServerFixture.DIMS);
    List<Document> docs = corpus.documents(DOCS);
    try (ServerFixture f = ServerFixture.start(store)) {
      String puts = putLines(docs);
      StringBuilder updates = new StringBuilder();
      for (Document d : docs) {
        updates
            .append("{\"update\":\"id:product:product::")
            .append(d.id())
            .append("\",\"fields\":{\"price\":{\"assign\":")
            .append(d.price() + 100)
            .append("}}}\n");
      }
      feed(f, puts, FeedClientBuilder.Compression.gzip);
      feed(f, updates.toString(), FeedClientBuilder.Compression.none);
      assertEquals(200, f.send("POST", "/_admin/refresh", (String) null).status());

      Document probe = docs.get(17);
      ServerFixture.Response get =
          f.send("GET", "/document/v1/product/product/docid/" + probe.id(), (String) null);
      assertEquals(200, get.status(), get.body());
      assertEquals(probe.price() + 100, get.json().get("fields").get("price").asInt());
      assertEquals("id:product:product::" + probe.id(), get.json().get("id").asText());

      // A Vespa search finds the fed documents, and sees the updated price.
      String yql =
          "select * from product where category contains \""
              + probe.category()
              + "\" and price = "
              + (probe.price() + 100)
              + " and ({targetHits:10}nearestNeighbor(embedding,q_embedding))";
      String body =
          "{\"yql\":"
              + Json.MAPPER.writeValueAsString(yql)
              + ",\"ranking.profile\":\"closeness\",\"hits\":5,\"input.query(q_embedding)\":"
              + ServerFixture.vector(probe.embedding())
              + "}";
      ServerFixture.Response search = f.send("POST", "/search/", body);
      assertEquals(200, search.status(), search.body());
      JsonNode first = search.json().get("root").get("children").get(0);
      assertEquals("id:product:product::" + probe.id(), first.get("id").asText(), search.body());
      assertEquals(probe.title(), first.get("fields").get("title").asText());
      long total =
          f.send(
                  "GET",
                  "/search/?yql="
                      + java.net.URLEncoder.encode(
                          "select * from sources * where true", StandardCharsets.UTF_8),
                  (String) null)
              .json()
              .get("root")
              .get("fields")
              .get("totalCount")
              .asLong();
      assertEquals(DOCS, total);
    }
  }

  /** The documents as the feed client's JSONL put operations. */
  static String putLines(List<Document> docs) throws Exception {
    StringBuilder puts = new StringBuilder();
    for (Document d : docs) {
      ObjectNode fields = ServerFixture.source(d);
      fields.remove("id");
      puts.append("{\"put\":\"id:product:product::")
          .append(d.id())
          .append("\",\"fields\":")
          .append(Json.MAPPER.writeValueAsString(fields))
          .append("}\n");
    }
    return puts.toString();
  }

  private static void feed(ServerFixture f, String jsonl, FeedClientBuilder.Compression compression)
      throws Exception {
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Result> ok = new ConcurrentLinkedQueue<>();
    try (FeedClient client =
            FeedClientBuilder.create(URI.create("http://127.0.0.1:" + f.port() + "/"))
                .setConnectionsPerEndpoint(1)
                .setMaxStreamPerConnection(32)
                .setCompression(compression)
                .build();
        JsonFeeder feeder = JsonFeeder.builder(client).build()) {
      feeder
          .feedMany(
              new ByteArrayInputStream(jsonl.getBytes(StandardCharsets.UTF_8)),
              new JsonFeeder.ResultCallback() {
                @Override
                public void onNextResult(Result result, FeedException error) {
                  if (error != null) {
                    failures.add(error.getMessage());
                  } else {
                    ok.add(result);
                  }
                }

                @Override
                public void onError(FeedException error) {
                  failures.add(error.getMessage());
                }
              })
          .get(120, TimeUnit.SECONDS);
    }
    assertTrue(failures.isEmpty(), "feed failures: " + failures);
    assertEquals(DOCS, ok.size());
    for (Result r : ok) {
      assertEquals(Result.Type.success, r.type());
    }
  }
}
