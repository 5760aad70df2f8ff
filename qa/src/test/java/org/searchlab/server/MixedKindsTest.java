package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.SourceJson;
import org.searchlab.core.mapping.MappingJson;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.CatalogCorpus;

/**
 * One server holding an index of each store kind with the same non-product mapping (the conformance
 * suite's second corpus: other field names, two vector fields, dates, an object, dynamically mapped
 * fields), fed concurrently through one {@code _bulk} endpoint while searches run on both, then
 * queried with the same Elasticsearch bodies: each store's answers must be the exact store's, an
 * index of the oracle's kind in the same server fed the same documents. Lexical, filtered and
 * {@code script_score} answers are compared hit by hit with their scores; approximate kNN by
 * tie-aware recall. Survival of SIGKILL with an index of each kind is the crash test's ({@code
 * crashtest --store mutable,segmented}).
 */
class MixedKindsTest {
  private static final int DOCS = 500;
  private static final int BATCH = 50;

  @TempDir Path tmp;

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private JsonNode send(SearchServer s, String method, String path, String body, String type)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
            .timeout(Duration.ofSeconds(60))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", type);
    }
    HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    String text = new String(r.body(), StandardCharsets.UTF_8);
    assertTrue(
        r.statusCode() == 200 || r.statusCode() == 201,
        method + " " + path + " answered " + r.statusCode() + ": " + text);
    return Json.MAPPER.readTree(text);
  }

  private static String indexBody(String store) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.putObject("settings")
        .putObject("index")
        .put("number_of_shards", 1)
        .put("number_of_replicas", 0)
        .put("store", store);
    body.set("mappings", MappingJson.render(CatalogCorpus.mapping()));
    return body.toString();
  }

  @Test
  void anIndexOfEachKindIsFedConcurrentlyAndAnswersAsTheOracle() throws Exception {
    long seed = TestSeeds.seed("MixedKindsTest");
    CatalogCorpus corpus = new CatalogCorpus(seed);
    List<Document> docs = corpus.documents(DOCS);
    List<String> stores = List.of("mutable", "segmented");
    try (SearchServer s =
        SearchServer.start(
            ServerConfig.builder().port(0).build(),
            tmp.resolve("data"),
            TestKinds.all(),
            "segmented",
            Optional.empty(),
            Optional.empty())) {
      for (String store : stores) {
        send(s, "PUT", "/cat-" + store, indexBody(store), "application/json");
      }
      send(s, "PUT", "/cat-exact", indexBody("exact"), "application/json");
      assertEquals(
          "mutable",
          send(s, "GET", "/cat-mutable/_settings?flat_settings=true", null, null)
              .at("/cat-mutable/settings/index.store")
              .asText());

      // one feeder thread per store, each bulk landing while the other store's searches run
      AtomicBoolean feeding = new AtomicBoolean(true);
      AtomicLong searches = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      try {
        List<Future<?>> feeds = new ArrayList<>();
        for (String store : stores) {
          feeds.add(pool.submit(() -> feed(s, "cat-" + store, docs)));
        }
        Future<?> reader =
            pool.submit(
                () -> {
                  while (feeding.get()) {
                    for (String store : stores) {
                      send(
                          s,
                          "POST",
                          "/cat-" + store + "/_search",
                          "{\"query\":{\"match\":{\"name\":\""
                              + corpus.text(new SplittableRandom(searches.get()), 2)
                              + "\"}}}",
                          "application/json");
                      searches.incrementAndGet();
                    }
                  }
                  return null;
                });
        for (Future<?> f : feeds) {
          f.get();
        }
        feeding.set(false);
        reader.get();
      } finally {
        pool.shutdownNow();
      }
      feed(s, "cat-exact", docs);
      send(s, "POST", "/cat-*/_refresh", null, null);
      System.out.println(
          "MixedKindsTest seed " + seed + ": " + searches.get() + " searches during the feeds");

      for (String store : stores) {
        JsonNode count = send(s, "GET", "/cat-" + store + "/_count", null, null);
        assertEquals(DOCS, count.get("count").asInt(), store);
      }
      SplittableRandom r = new SplittableRandom(seed);
      double recall = 0;
      int knnQueries = 0;
      for (int q = 0; q < 40; q++) {
        String body = body(corpus, r, q);
        boolean approximate = body.contains("\"knn\"");
        // the oracle's answer and, for ties at the cut, its next 50 hits
        List<JsonNode> deeper =
            hits(
                send(
                    s,
                    "POST",
                    "/cat-exact/_search",
                    body.replace("\"size\":10}", "\"size\":60}"),
                    "application/json"));
        List<JsonNode> expected = deeper.subList(0, Math.min(10, deeper.size()));
        for (String store : stores) {
          JsonNode answer = send(s, "POST", "/cat-" + store + "/_search", body, "application/json");
          List<JsonNode> actual = hits(answer);
          if (approximate) {
            recall += tieAwareRecall(expected, actual) / stores.size();
          } else {
            assertSameHits(expected, deeper, actual, store + " seed " + seed + " body " + body);
          }
        }
        if (approximate) {
          knnQueries++;
        }
      }
      assertTrue(knnQueries > 0);
      recall /= knnQueries;
      System.out.println("MixedKindsTest seed " + seed + ": kNN tie-aware recall@10 " + recall);
      assertTrue(recall >= 0.95, "kNN recall " + recall + " seed " + seed);
    }
  }

  /** Feeds the documents to one index in bulks of {@link #BATCH}; every item must succeed. */
  private Void feed(SearchServer s, String index, List<Document> docs) throws Exception {
    for (int from = 0; from < docs.size(); from += BATCH) {
      StringBuilder bulk = new StringBuilder();
      for (Document d : docs.subList(from, Math.min(docs.size(), from + BATCH))) {
        bulk.append("{\"index\":{\"_index\":\"")
            .append(index)
            .append("\",\"_id\":\"")
            .append(d.id())
            .append("\"}}\n")
            .append(SourceJson.json(d.source()))
            .append('\n');
      }
      JsonNode answer = send(s, "POST", "/_bulk", bulk.toString(), "application/x-ndjson");
      assertTrue(!answer.get("errors").asBoolean(), answer.toString());
    }
    return null;
  }

  /** A search body of one of the kinds the contract allows on this mapping. */
  private static String body(CatalogCorpus corpus, SplittableRandom r, int q) {
    String text = corpus.text(r, 1 + r.nextInt(3));
    String brand = CatalogCorpus.BRANDS[r.nextInt(CatalogCorpus.BRANDS.length)];
    long from = CatalogCorpus.EPOCH_2020 + r.nextLong(200L * 86_400_000L);
    String filter =
        "{\"bool\":{\"should\":[{\"term\":{\"brand\":\""
            + brand
            + "\"}},{\"range\":{\"released\":{\"gte\":"
            + from
            + "}}}]}}";
    return switch (q % 6) {
      case 0 -> "{\"query\":{\"match\":{\"name\":\"" + text + "\"}},\"size\":10}";
      case 1 ->
          "{\"query\":{\"multi_match\":{\"query\":\""
              + text
              + "\",\"fields\":[\"name^2\",\"body\",\"meta.notes\"]}},\"size\":10}";
      case 2 ->
          "{\"query\":{\"bool\":{\"must\":[{\"match\":{\"body\":\""
              + text
              + "\"}}],\"filter\":[{\"range\":{\"stock\":{\"gte\":"
              + r.nextInt(50)
              + "}}},{\"exists\":{\"field\":\"meta.origin\"}}]}},\"size\":10}";
      case 3 ->
          "{\"query\":{\"script_score\":{\"query\":{\"bool\":{\"filter\":[{\"exists\":"
              + "{\"field\":\"img\"}},"
              + filter
              + "]}},\"script\":{\"source\":\"cosineSimilarity(params.query_vector, 'img') + 1.0\","
              + "\"params\":{\"query_vector\":"
              + ServerFixture.vector(corpus.imgQuery(r))
              + "}}}},\"size\":10}";
      case 4 ->
          "{\"knn\":{\"field\":\"img\",\"k\":10,\"num_candidates\":100,\"query_vector\":"
              + ServerFixture.vector(corpus.imgQuery(r))
              + ",\"filter\":"
              + filter
              + "},\"size\":10}";
      default ->
          "{\"knn\":{\"field\":\"txt\",\"k\":10,\"num_candidates\":100,\"query_vector\":"
              + ServerFixture.vector(corpus.txtQuery(r))
              + "},\"size\":10}";
    };
  }

  private static List<JsonNode> hits(JsonNode answer) {
    List<JsonNode> out = new ArrayList<>();
    answer.path("hits").path("hits").forEach(out::add);
    return out;
  }

  /**
   * The same hits with the same scores (within float rounding), where documents of equal score may
   * come in either order.
   */
  private static void assertSameHits(
      List<JsonNode> expected, List<JsonNode> deeper, List<JsonNode> actual, String what) {
    assertEquals(expected.size(), actual.size(), what);
    for (int i = 0; i < expected.size(); i++) {
      double e = expected.get(i).get("_score").asDouble();
      double a = actual.get(i).get("_score").asDouble();
      assertEquals(e, a, 1e-4 * Math.max(1, Math.abs(e)), what + " score at " + i);
      String id = actual.get(i).get("_id").asText();
      boolean found = false;
      for (JsonNode h : deeper) {
        if (h.get("_id").asText().equals(id)
            && Math.abs(h.get("_score").asDouble() - a) <= 1e-4 * Math.max(1, Math.abs(a))) {
          found = true;
        }
      }
      assertTrue(
          found,
          what
              + ": "
              + id
              + " at "
              + i
              + " is not an expected hit of its score; expected "
              + expected
              + " actual "
              + actual);
    }
  }

  /** The share of the exact top 10 reached, ties at the exact 10th score counting as correct. */
  private static double tieAwareRecall(List<JsonNode> expected, List<JsonNode> actual) {
    if (expected.isEmpty()) {
      return actual.isEmpty() ? 1 : 0;
    }
    double kth = expected.get(expected.size() - 1).get("_score").asDouble();
    int good = 0;
    for (JsonNode h : actual) {
      double score = h.get("_score").asDouble();
      if (score >= kth - 1e-6) {
        good++;
      }
    }
    return Math.min(1.0, good / (double) expected.size());
  }
}
