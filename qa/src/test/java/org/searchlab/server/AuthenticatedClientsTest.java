package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.vespa.feed.client.FeedClient;
import ai.vespa.feed.client.FeedClientBuilder;
import ai.vespa.feed.client.FeedException;
import ai.vespa.feed.client.JsonFeeder;
import ai.vespa.feed.client.Result;
import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.http.Header;
import org.apache.http.HttpHost;
import org.apache.http.message.BasicHeader;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The official clients against a server that requires credentials: the Elasticsearch Java client
 * with {@code Authorization: ApiKey} and vespa-feed-client with HTTP Basic work unchanged; without
 * the credential both are refused with 401 and nothing is written. (Without a key configured they
 * are covered by {@link ElasticsearchClientTest} and {@link VespaFeedClientTest}.)
 */
class AuthenticatedClientsTest {
  private static final String KEY = "bench:kQ3x9-SearchlabTestSecret";
  private static final int DOCS = 40;

  @ParameterizedTest
  @EnumSource(
      value = TestStore.class,
      names = {"SEGMENTED", "MUTABLE"})
  void officialClientsWorkWithTheKeyAndAreRefusedWithout(TestStore store) throws Exception {
    SyntheticCorpus corpus =
        new SyntheticCorpus(
            TestSeeds.seed("AuthenticatedClientsTest." + store), ServerFixture.DIMS);
    List<Document> docs = corpus.documents(DOCS);
    ServerConfig config =
        ServerConfig.builder()
            .port(0)
            .security(ServerSecurity.builder().credentials(KEY).build())
            .build();
    String auth = "ApiKey " + SecurityTest.b64(KEY);
    try (ServerFixture f = ServerFixture.start(store, config, Optional.empty())) {
      // Elasticsearch client without a key: 401, nothing written.
      try (RestClient rest = RestClient.builder(new HttpHost("127.0.0.1", f.port())).build()) {
        ElasticsearchClient es =
            new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
        ElasticsearchException e =
            assertThrows(ElasticsearchException.class, () -> es.bulk(bulk(docs.subList(0, 5))));
        assertEquals(401, e.status());
      }
      assertEquals(
          0,
          f.send("GET", "/product/_count", (String) null, "Authorization", auth)
              .json()
              .get("count")
              .asInt());

      // With the key: bulk, refresh, search, get.
      try (RestClient rest =
          RestClient.builder(new HttpHost("127.0.0.1", f.port()))
              .setDefaultHeaders(new Header[] {new BasicHeader("Authorization", auth)})
              .build()) {
        ElasticsearchClient es =
            new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
        assertFalse(es.bulk(bulk(docs.subList(0, DOCS / 2))).errors());
        es.indices().refresh(r -> r.index("product"));
        assertEquals(DOCS / 2, es.count(c -> c.index("product")).count());
        Document probe = docs.get(3);
        assertTrue(es.get(g -> g.index("product").id(probe.id()), ObjectNode.class).found());
      }

      // vespa-feed-client (HTTP/2) without and with HTTP Basic.
      List<Document> rest = docs.subList(DOCS / 2, DOCS);
      List<String> refused = feed(f, rest, null);
      // The client's handshake is already refused, so it feeds nothing.
      assertFalse(refused.isEmpty());
      assertTrue(refused.get(0).contains("credentials"), refused.get(0));
      assertEquals(
          DOCS / 2,
          f.send("GET", "/product/_count", (String) null, "Authorization", auth)
              .json()
              .get("count")
              .asInt());
      assertEquals(List.of(), feed(f, rest, "Basic " + SecurityTest.b64(KEY)));
      assertEquals(
          200, f.send("POST", "/_admin/refresh", (String) null, "Authorization", auth).status());
      assertEquals(
          DOCS,
          f.send("GET", "/product/_count", (String) null, "Authorization", auth)
              .json()
              .get("count")
              .asInt());
    }
  }

  private static BulkRequest bulk(List<Document> docs) {
    BulkRequest.Builder br = new BulkRequest.Builder();
    for (Document d : docs) {
      ObjectNode src = ServerFixture.source(d);
      br.operations(op -> op.index(i -> i.index("product").id(d.id()).document(src)));
    }
    return br.build();
  }

  /** Feeds puts; returns the failure messages. */
  private static List<String> feed(ServerFixture f, List<Document> docs, String authorization)
      throws Exception {
    String puts = VespaFeedClientTest.putLines(docs);
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    FeedClientBuilder b =
        FeedClientBuilder.create(URI.create("http://127.0.0.1:" + f.port() + "/"))
            .setConnectionsPerEndpoint(1)
            .setMaxStreamPerConnection(8)
            .setRetryStrategy(
                new ai.vespa.feed.client.FeedClient.RetryStrategy() {
                  @Override
                  public boolean retry(FeedClient.OperationType type) {
                    return false;
                  }
                });
    if (authorization != null) {
      b.addRequestHeader("Authorization", authorization);
    }
    try (FeedClient client = b.build();
        JsonFeeder feeder = JsonFeeder.builder(client).build()) {
      feeder
          .feedMany(
              new ByteArrayInputStream(puts.getBytes(StandardCharsets.UTF_8)),
              new JsonFeeder.ResultCallback() {
                @Override
                public void onNextResult(Result result, FeedException error) {
                  if (error != null) {
                    failures.add(String.valueOf(error.getMessage()));
                  } else if (result.type() != Result.Type.success) {
                    failures.add(result.toString());
                  }
                }

                @Override
                public void onError(FeedException error) {
                  failures.add(String.valueOf(error.getMessage()));
                }
              })
          .get(120, TimeUnit.SECONDS);
    } catch (FeedException e) {
      failures.add(String.valueOf(e.getMessage()));
    } catch (java.util.concurrent.ExecutionException e) {
      failures.add(String.valueOf(e.getCause().getMessage()));
    }
    return List.copyOf(failures);
  }
}
