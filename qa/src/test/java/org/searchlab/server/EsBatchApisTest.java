package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.aggregations.StringTermsBucket;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.DeleteByQueryResponse;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.MsearchResponse;
import co.elastic.clients.elasticsearch.core.UpdateByQueryResponse;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import co.elastic.clients.elasticsearch.core.msearch.MultiSearchResponseItem;
import co.elastic.clients.json.JsonData;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.testing.TestSeeds;

/**
 * The batch and by-query APIs ({@code _mget}, {@code _msearch}, {@code _count}, {@code
 * _update_by_query}, {@code _delete_by_query}) through the official Java client, on an index of
 * each store kind in one server. Every expectation is computed from the documents the test wrote
 * (seeded groups), never read back from the server; the client parsing every answer is the check of
 * the response shapes. Raw HTTP covers what the client cannot send: a literal-value script, a
 * refused one, and Elasticsearch's errors.
 */
class EsBatchApisTest {
  static final int DOCS = 150;

  @TempDir Path tmp;

  /** One test document: its group (keyword) and its number. */
  record Doc(String id, int n, String group, String tag) {
    ObjectNode source() {
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("n", n).put("group", group).put("title", "document number " + n);
      o.putObject("meta").put("n", n).put("tag", tag);
      return o;
    }
  }

  static List<Doc> docs(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<Doc> out = new ArrayList<>();
    for (int i = 0; i < DOCS; i++) {
      out.add(new Doc("d" + i, i, "g" + rnd.nextInt(4), "t" + rnd.nextInt(3)));
    }
    return out;
  }

  static String indexBody(String kind) {
    return "{\"settings\":{\"index\":{\"number_of_replicas\":0,\"store\":\""
        + kind
        + "\"}},\"mappings\":{\"properties\":{\"n\":{\"type\":\"integer\"},"
        + "\"group\":{\"type\":\"keyword\"},\"title\":{\"type\":\"text\"},"
        + "\"flag\":{\"type\":\"keyword\"},\"meta\":{\"properties\":{\"n\":{\"type\":\"integer\"},"
        + "\"tag\":{\"type\":\"keyword\"}}}}}}";
  }

  @Test
  void officialJavaClientOnBothStores() throws Exception {
    long seed = TestSeeds.seed("EsBatchApisTest");
    List<Doc> docs = docs(seed);
    try (SearchServer s = bothKinds(tmp.resolve("data"));
        RestClient rest = RestClient.builder(new HttpHost("127.0.0.1", s.port(), "http")).build()) {
      ElasticsearchClient es =
          new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
      for (String kind : List.of("segmented", "mutable")) {
        String where = kind + " seed " + seed;
        String index = "batch-" + kind;
        assertEquals(200, raw(s, "PUT", "/" + index, indexBody(kind)).statusCode());
        BulkRequest.Builder br =
            new BulkRequest.Builder().refresh(co.elastic.clients.elasticsearch._types.Refresh.True);
        for (Doc d : docs) {
          br.operations(op -> op.index(i -> i.index(index).id(d.id()).document(d.source())));
        }
        assertFalse(es.bulk(br.build()).errors(), where);
        check(es, s, index, docs, where);
      }
    }
  }

  private void check(ElasticsearchClient es, SearchServer s, String index, List<Doc> docs, String w)
      throws Exception {
    // _mget: found, missing, a missing index, and a dotted _source include.
    Doc d7 = docs.get(7);
    MgetResponse<ObjectNode> mget =
        es.mget(
            m ->
                m.sourceIncludes("meta.n")
                    .docs(d -> d.index(index).id(d7.id()))
                    .docs(d -> d.index(index).id("absent"))
                    .docs(d -> d.index("no-such-index").id(d7.id()))
                    .docs(d -> d.index(index).id("d9").source(src -> src.fetch(false))),
            ObjectNode.class);
    List<MultiGetResponseItem<ObjectNode>> items = mget.docs();
    assertEquals(4, items.size(), w);
    assertTrue(items.get(0).result().found(), w);
    assertEquals(
        Json.MAPPER.readTree("{\"meta\":{\"n\":" + d7.n() + "}}"),
        items.get(0).result().source(),
        w);
    assertFalse(items.get(1).result().found(), w);
    assertTrue(items.get(2).isFailure(), w);
    assertEquals("index_not_found_exception", items.get(2).failure().error().type(), w);
    assertTrue(items.get(3).result().found(), w);
    assertEquals(null, items.get(3).result().source(), w);
    MgetResponse<ObjectNode> byIds =
        es.mget(m -> m.index(index).ids("d3", "d4", "nope"), ObjectNode.class);
    assertEquals(docs.get(3).source(), byIds.docs().get(0).result().source(), w);
    assertEquals(docs.get(4).source(), byIds.docs().get(1).result().source(), w);
    assertFalse(byIds.docs().get(2).result().found(), w);

    // _count and _msearch: a term search, an aggregation, and a failing item.
    Map<String, Long> perGroup = new TreeMap<>();
    docs.forEach(d -> perGroup.merge(d.group(), 1L, Long::sum));
    Query g1 = Query.of(q -> q.term(t -> t.field("group").value("g1")));
    assertEquals(perGroup.getOrDefault("g1", 0L), es.count(c -> c.index(index).query(g1)).count());
    MsearchResponse<ObjectNode> ms =
        es.msearch(
            m ->
                m.searches(
                        x ->
                            x.header(h -> h.index(index))
                                .body(b -> b.query(g1).size(DOCS).source(src -> src.fetch(false))))
                    .searches(x -> x.header(h -> h.index("no-such-index")).body(b -> b.size(1)))
                    .searches(
                        x ->
                            x.header(h -> h.index(index))
                                .body(
                                    b ->
                                        b.size(0)
                                            .aggregations(
                                                "groups", a -> a.terms(t -> t.field("group"))))),
            ObjectNode.class);
    List<MultiSearchResponseItem<ObjectNode>> rs = ms.responses();
    assertEquals(3, rs.size(), w);
    Set<String> g1Ids = new HashSet<>();
    rs.get(0).result().hits().hits().forEach(h -> g1Ids.add(h.id()));
    Set<String> wantG1 = new HashSet<>();
    docs.stream().filter(d -> d.group().equals("g1")).forEach(d -> wantG1.add(d.id()));
    assertEquals(wantG1, g1Ids, w);
    assertTrue(rs.get(1).isFailure(), w);
    assertEquals(404, rs.get(1).failure().status(), w);
    assertEquals("index_not_found_exception", rs.get(1).failure().error().type(), w);
    Map<String, Long> buckets = new TreeMap<>();
    for (StringTermsBucket b :
        rs.get(2).result().aggregations().get("groups").sterms().buckets().array()) {
      buckets.put(b.key().stringValue(), b.docCount());
    }
    assertEquals(perGroup, buckets, w);

    // _update_by_query: a params script on g2, then a literal one over raw HTTP.
    Query g2 = Query.of(q -> q.term(t -> t.field("group").value("g2")));
    UpdateByQueryResponse ubq =
        es.updateByQuery(
            u ->
                u.index(index)
                    .query(g2)
                    .refresh(true)
                    .script(
                        sc ->
                            sc.source("ctx._source.flag = params.v")
                                .params("v", JsonData.of("done"))));
    long g2Count = perGroup.getOrDefault("g2", 0L);
    assertEquals(g2Count, (long) ubq.updated(), w);
    assertEquals(g2Count, (long) ubq.total(), w);
    assertEquals(0, (long) ubq.versionConflicts(), w);
    Query flagged = Query.of(q -> q.term(t -> t.field("flag").value("done")));
    assertEquals(g2Count, es.count(c -> c.index(index).query(flagged)).count(), w);
    String g2Id = docs.stream().filter(d -> d.group().equals("g2")).findFirst().orElseThrow().id();
    ObjectNode g2Doc = es.get(g -> g.index(index).id(g2Id), ObjectNode.class).source();
    assertEquals("done", g2Doc.get("flag").asText(), w);
    assertEquals(docs.get(Integer.parseInt(g2Id.substring(1))).n(), g2Doc.get("n").asInt(), w);
    JsonNode literal =
        ok(
            s,
            "POST",
            "/" + index + "/_update_by_query?refresh=true",
            "{\"query\":{\"term\":{\"group\":\"g3\"}},"
                + "\"script\":\"ctx._source.meta.tag = 'moved'; ctx._source.n2 = 5\"}");
    long g3Count = perGroup.getOrDefault("g3", 0L);
    assertEquals(g3Count, literal.get("updated").asLong(), w + " " + literal);
    assertEquals(
        g3Count,
        es.count(c -> c.index(index).query(q -> q.term(t -> t.field("meta.tag").value("moved"))))
            .count(),
        w);
    ElasticsearchException refused =
        assertThrows(
            ElasticsearchException.class,
            () ->
                es.updateByQuery(
                    u -> u.index(index).script(sc -> sc.source("ctx._source.n += 1"))));
    assertEquals(400, refused.status(), w);
    assertEquals("script_exception", refused.error().type(), w);
    assertEquals(
        DOCS, es.count(c -> c.index(index)).count(), w + ": a refused script wrote nothing");

    // _delete_by_query: the documents with n < 40 in batches of 7, then what is left.
    Query low = Query.of(q -> q.range(r -> r.number(n -> n.field("n").lt(40.0))));
    DeleteByQueryResponse dbq =
        es.deleteByQuery(dq -> dq.index(index).query(low).scrollSize(7L).refresh(true));
    assertEquals(40, (long) dbq.deleted(), w);
    assertEquals(40, (long) dbq.total(), w);
    assertEquals(6, (long) dbq.batches(), w + ": 40 in batches of 7");
    assertTrue(dbq.failures().isEmpty(), w);
    assertEquals(DOCS - 40, es.count(c -> c.index(index)).count(), w);
    MgetResponse<ObjectNode> after =
        es.mget(m -> m.index(index).ids("d0", "d39", "d40"), ObjectNode.class);
    assertFalse(after.docs().get(0).result().found(), w);
    assertFalse(after.docs().get(1).result().found(), w);
    assertTrue(after.docs().get(2).result().found(), w);
    // max_docs bounds it; a second run finds nothing to delete.
    JsonNode capped =
        ok(
            s,
            "POST",
            "/" + index + "/_delete_by_query?max_docs=5&refresh=true",
            "{\"query\":{\"term\":{\"group\":\"g0\"}}}");
    long g0Left = docs.stream().filter(d -> d.group().equals("g0") && d.n() >= 40).count();
    long cappedWant = Math.min(5, g0Left);
    assertEquals(cappedWant, capped.get("deleted").asLong(), w + " " + capped);
    JsonNode none =
        ok(
            s,
            "POST",
            "/" + index + "/_delete_by_query",
            "{\"query\":{\"range\":{\"n\":{\"lt\":40}}}}");
    assertEquals(0, none.get("deleted").asLong(), w + " " + none);
    assertEquals(DOCS - 40 - cappedWant, es.count(c -> c.index(index)).count(), w);

    // Errors as Elasticsearch gives them.
    HttpResponse<String> missing =
        raw(s, "POST", "/no-such-index/_delete_by_query", "{\"query\":{\"match_all\":{}}}");
    assertEquals(404, missing.statusCode(), missing.body());
    assertTrue(missing.body().contains("index_not_found_exception"), missing.body());
    HttpResponse<String> async =
        raw(s, "POST", "/" + index + "/_delete_by_query?wait_for_completion=false", "{}");
    assertEquals(400, async.statusCode(), async.body());
    assertTrue(async.body().contains("wait_for_completion"), async.body());
    HttpResponse<String> unknown =
        raw(s, "POST", "/" + index + "/_mget?bogus=1", "{\"ids\":[\"d1\"]}");
    assertEquals(400, unknown.statusCode(), unknown.body());
    assertTrue(unknown.body().contains("unrecognized parameter: [bogus]"), unknown.body());
    HttpResponse<String> noDocs = raw(s, "POST", "/" + index + "/_mget", "{}");
    assertEquals(400, noDocs.statusCode(), noDocs.body());
    assertTrue(noDocs.body().contains("action_request_validation_exception"), noDocs.body());
    assertEquals(
        DOCS - 40 - cappedWant,
        es.count(c -> c.index(index)).count(),
        w + ": refusals wrote nothing");
  }

  /**
   * An update by query over several indexes, one of which matches more than one search returns, is
   * refused before any index is written: nothing half-applied.
   */
  @Test
  void updateByQueryOverSeveralIndexesChecksEveryIndexBeforeWritingAny() throws Exception {
    try (SearchServer s = bothKinds(tmp.resolve("data"))) {
      assertEquals(200, raw(s, "PUT", "/a-small", indexBody("mutable")).statusCode());
      assertEquals(200, raw(s, "PUT", "/b-large", indexBody("segmented")).statusCode());
      StringBuilder small = new StringBuilder();
      for (int i = 0; i < 3; i++) {
        small.append("{\"index\":{\"_id\":\"s").append(i).append("\"}}\n");
        small.append("{\"n\":").append(i).append(",\"group\":\"g\"}\n");
      }
      bulk(s, "/a-small/_bulk?refresh=true", small);
      StringBuilder large = new StringBuilder();
      for (int i = 0; i <= org.searchlab.core.SearchRequest.MAX_WINDOW; i++) {
        large.append("{\"index\":{}}\n{\"n\":").append(i).append(",\"group\":\"g\"}\n");
      }
      bulk(s, "/b-large/_bulk?refresh=true", large);
      HttpResponse<String> r =
          raw(
              s,
              "POST",
              "/a-small,b-large/_update_by_query?refresh=true",
              "{\"query\":{\"term\":{\"group\":\"g\"}},"
                  + "\"script\":{\"source\":\"ctx._source.flag = 'x'\"}}");
      assertEquals(400, r.statusCode(), r.body());
      assertTrue(r.body().contains("b-large"), r.body());
      JsonNode flagged =
          ok(s, "POST", "/a-small,b-large/_count", "{\"query\":{\"term\":{\"flag\":\"x\"}}}");
      assertEquals(0, flagged.path("count").asLong(), "no index was updated: " + flagged);
    }
  }

  private static void bulk(SearchServer s, String path, StringBuilder ndjson) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
            .POST(HttpRequest.BodyPublishers.ofString(ndjson.toString()))
            .header("Content-Type", "application/x-ndjson")
            .build();
    HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    assertFalse(Json.MAPPER.readTree(r.body()).path("errors").asBoolean(), path);
  }

  /** A server on a free port holding indexes of both store kinds in {@code dir}. */
  static SearchServer bothKinds(Path dir) throws Exception {
    return SearchServer.start(
        ServerConfig.builder().port(0).build(),
        dir,
        TestKinds.both(),
        "segmented",
        Optional.empty(),
        Optional.empty());
  }

  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  static HttpResponse<String> raw(SearchServer s, String method, String path, String body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
            .method(method, HttpRequest.BodyPublishers.ofString(body == null ? "" : body))
            .header("Content-Type", "application/json");
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode ok(SearchServer s, String method, String path, String body) throws Exception {
    HttpResponse<String> r = raw(s, method, path, body);
    assertEquals(200, r.statusCode(), path + ": " + r.body());
    return Json.MAPPER.readTree(r.body());
  }
}
