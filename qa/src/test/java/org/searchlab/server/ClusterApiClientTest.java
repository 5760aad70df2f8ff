package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.HealthStatus;
import co.elastic.clients.elasticsearch._types.Level;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import java.util.Map;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.Test;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The official {@code elasticsearch-java} client, which checks the fields it requires, reads the
 * cluster routes' answers it can parse without fields this server does not have: health, settings,
 * and a background force-merge through the task API.
 */
class ClusterApiClientTest {
  @Test
  void theOfficialClientParsesTheClusterRoutes() throws Exception {
    SyntheticCorpus corpus =
        new SyntheticCorpus(TestSeeds.seed("ClusterApiClientTest"), ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.start(TestStore.SEGMENTED);
        RestClient rest = RestClient.builder(new HttpHost("127.0.0.1", f.port(), "http")).build()) {
      ElasticsearchClient es =
          new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
      f.load(corpus, 50);
      assertEquals(50, es.count(c -> c.index("product")).count());

      var health =
          es.cluster().health(h -> h.waitForStatus(HealthStatus.Green).level(Level.Shards));
      assertEquals(HealthStatus.Green, health.status());
      assertEquals(1, health.numberOfNodes());
      assertEquals(1, health.activePrimaryShards());
      assertEquals(100.0, health.activeShardsPercentAsNumber());
      assertTrue(health.indices().get("product").shards().get("0").primaryActive());

      var put =
          es.cluster()
              .putSettings(
                  p ->
                      p.transient_(Map.of("action.destructive_requires_name", JsonData.of(false))));
      assertTrue(put.acknowledged());
      var got = es.cluster().getSettings(g -> g.flatSettings(true));
      assertEquals(
          "false", got.transient_().get("action.destructive_requires_name").to(String.class));

      // Not nodes.info(), nodes.stats() or indices.stats(): this client requires fields only
      // Elasticsearch has or measures (cluster.election settings, component_versions, every
      // *_time_in_millis, docs.total_size_in_bytes), which this server does not invent. Rally and
      // the Python clients read them as dictionaries (NodesApiTest, IndexStatsApiTest).

      var merge = es.indices().forcemerge(m -> m.index("product").waitForCompletion(false));
      String task = merge.task();
      var done = es.tasks().get(t -> t.taskId(task).waitForCompletion(true));
      assertTrue(done.completed());
      assertEquals("indices:admin/forcemerge", done.task().action());
    }
  }
}
