package org.searchlab.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.query_dsl.Query;
import co.elastic.clients.elasticsearch._types.query_dsl.TextQueryType;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.RankProfile;
import org.searchlab.core.SearchRequest;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The official {@code elasticsearch-java} client, unchanged, against the server: it creates the
 * index with the benchmark's mapping, bulk-loads, refreshes, runs lexical, knn and hybrid searches
 * with filters, and gets, updates and deletes a document.
 */
class ElasticsearchClientTest {
  private static final int DOCS = 800;

  @ParameterizedTest
  @EnumSource(TestStore.class)
  void officialClientWorksUnchanged(TestStore store) throws Exception {
    long seed = TestSeeds.seed("ElasticsearchClientTest." + store);
    SyntheticCorpus corpus = new SyntheticCorpus(seed, ServerFixture.DIMS);
    try (ServerFixture f = ServerFixture.owned(store);
        RestClient rest = RestClient.builder(new HttpHost("127.0.0.1", f.port(), "http")).build()) {
      ElasticsearchClient es =
          new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));

      assertEquals("8.15.2", es.info().version().number());
      var created =
          es.indices()
              .create(
                  c ->
                      c.index("product")
                          .settings(s -> s.numberOfShards("1").numberOfReplicas("0"))
                          .mappings(
                              m ->
                                  m.properties(
                                          "title",
                                          p -> p.text(t -> t.analyzer("lowercase_normalize_stem")))
                                      .properties(
                                          "description",
                                          p -> p.text(t -> t.analyzer("lowercase_normalize_stem")))
                                      .properties("category", p -> p.keyword(k -> k))
                                      .properties("price", p -> p.integer(i -> i.index(false)))
                                      .properties(
                                          "average_rating", p -> p.float_(x -> x.index(false)))
                                      .properties(
                                          "embedding",
                                          p ->
                                              p.denseVector(
                                                  d ->
                                                      d.dims(ServerFixture.DIMS)
                                                          .similarity(
                                                              co.elastic.clients.elasticsearch
                                                                  ._types.mapping
                                                                  .DenseVectorSimilarity.DotProduct)
                                                          .index(true)
                                                          .indexOptions(
                                                              o ->
                                                                  o.type(
                                                                          co.elastic.clients
                                                                              .elasticsearch._types
                                                                              .mapping
                                                                              .DenseVectorIndexOptionsType
                                                                              .Hnsw)
                                                                      .m(16)
                                                                      .efConstruction(200))))));
      assertTrue(created.acknowledged());
      assertEquals("product", created.index());

      // Creating it again is refused, as Elasticsearch refuses an index that exists.
      ElasticsearchException again =
          assertThrows(
              ElasticsearchException.class,
              () ->
                  es.indices()
                      .create(
                          c ->
                              c.index("product")
                                  .mappings(
                                      m ->
                                          m.properties(
                                              "embedding", p -> p.denseVector(d -> d.dims(7))))));
      assertEquals(400, again.status());
      assertTrue(
          again.getMessage().contains("resource_already_exists_exception"), again.getMessage());

      List<Document> docs = corpus.documents(DOCS);
      for (int from = 0; from < DOCS; from += 200) {
        BulkRequest.Builder br = new BulkRequest.Builder();
        for (Document d : docs.subList(from, from + 200)) {
          ObjectNode src = ServerFixture.source(d);
          br.operations(op -> op.index(i -> i.index("product").id(d.id()).document(src)));
        }
        BulkResponse bulk = es.bulk(br.build());
        assertFalse(bulk.errors());
        assertEquals(200, bulk.items().size());
        assertEquals(201, bulk.items().get(0).status());
      }
      es.indices().refresh(r -> r.index("product"));
      assertEquals(DOCS, es.count(c -> c.index("product")).count());

      Document probe = docs.get(123);
      String text =
          String.join(
              " ",
              List.of(probe.title().split(" "))
                  .subList(0, Math.min(8, probe.title().split(" ").length)));
      List<Float> vector = new ArrayList<>();
      for (float x : probe.embedding()) {
        vector.add(x);
      }
      Query term = Query.of(q -> q.term(t -> t.field("category").value(probe.category())));
      Query lexical =
          Query.of(
              q ->
                  q.bool(
                      b ->
                          b.must(
                                  m ->
                                      m.multiMatch(
                                          mm ->
                                              mm.query(text)
                                                  .fields("title", "description")
                                                  .type(TextQueryType.BestFields)))
                              .filter(term)));

      SearchResponse<Void> lex =
          es.search(
              s -> s.index("product").size(10).source(src -> src.fetch(false)).query(lexical),
              Void.class);
      SearchResponse<Void> knn =
          es.search(
              s ->
                  s.index("product")
                      .size(10)
                      .source(src -> src.fetch(false))
                      .knn(
                          k ->
                              k.field("embedding")
                                  .queryVector(vector)
                                  .k(100)
                                  .numCandidates(100)
                                  .filter(term)),
              Void.class);
      SearchResponse<Void> hybrid =
          es.search(
              s ->
                  s.index("product")
                      .size(10)
                      .source(src -> src.fetch(false))
                      .query(lexical)
                      .knn(
                          k ->
                              k.field("embedding")
                                  .queryVector(vector)
                                  .k(100)
                                  .numCandidates(100)
                                  .filter(term)),
              Void.class);
      SearchRequest.Builder direct =
          SearchRequest.builder()
              .text(text)
              .vector(probe.embedding())
              .filter(Filter.category(probe.category()))
              .hits(10)
              .targetHits(100);
      assertEquals(f.index().search(direct.rankProfile(RankProfile.BM25).build()).ids(), ids(lex));
      assertEquals(
          f.index().search(direct.rankProfile(RankProfile.CLOSENESS).build()).ids(), ids(knn));
      assertEquals(
          f.index().search(direct.rankProfile(RankProfile.HYBRID).build()).ids(), ids(hybrid));
      assertTrue(ids(knn).contains(probe.id()), "a document is its own nearest neighbour");
      assertTrue(ids(hybrid).contains(probe.id()));

      // Sources come back when asked for.
      SearchResponse<ObjectNode> withSource =
          es.search(s -> s.index("product").size(3).query(lexical), ObjectNode.class);
      assertEquals(
          probe.category(), withSource.hits().hits().get(0).source().get("category").asText());
      // Source filtering: a list of fields, includes with a wildcard and excludes, or none.
      SearchResponse<ObjectNode> fields =
          es.search(
              s ->
                  s.index("product")
                      .size(3)
                      .query(lexical)
                      .source(src -> src.filter(x -> x.includes("title", "price"))),
              ObjectNode.class);
      for (Hit<ObjectNode> h : fields.hits().hits()) {
        assertEquals(List.of("title", "price"), fieldNames(h.source()));
      }
      SearchResponse<ObjectNode> wildcard =
          es.search(
              s ->
                  s.index("product")
                      .size(3)
                      .query(lexical)
                      .source(
                          src -> src.filter(x -> x.includes("*").excludes("embedding", "desc*"))),
              ObjectNode.class);
      assertEquals(
          List.of("id", "title", "category", "price", "average_rating"),
          fieldNames(wildcard.hits().hits().get(0).source()));
      SearchResponse<ObjectNode> none =
          es.search(
              s -> s.index("product").size(3).query(lexical).source(src -> src.fetch(false)),
              ObjectNode.class);
      assertEquals(null, none.hits().hits().get(0).source());
      GetResponse<ObjectNode> partial =
          es.get(g -> g.index("product").id(probe.id()).sourceIncludes("cat*"), ObjectNode.class);
      assertEquals(List.of("category"), fieldNames(partial.source()));

      // Get, update, delete.
      GetResponse<ObjectNode> got =
          es.get(g -> g.index("product").id(probe.id()), ObjectNode.class);
      assertTrue(got.found());
      assertEquals(probe.title(), got.source().get("title").asText());
      var upd =
          es.update(
              u -> u.index("product").id(probe.id()).doc(Map.of("price", 4242)), ObjectNode.class);
      assertEquals("updated", upd.result().jsonValue());
      assertEquals(
          4242,
          es.get(g -> g.index("product").id(probe.id()), ObjectNode.class)
              .source()
              .get("price")
              .asInt());
      var del = es.delete(d -> d.index("product").id(probe.id()));
      assertEquals("deleted", del.result().jsonValue());
      assertFalse(es.get(g -> g.index("product").id(probe.id()), ObjectNode.class).found());
      ElasticsearchException missing =
          assertThrows(
              ElasticsearchException.class,
              () ->
                  es.update(
                      u -> u.index("product").id(probe.id()).doc(Map.of("price", 1)),
                      ObjectNode.class));
      assertEquals(404, missing.status());
      es.indices().refresh(r -> r.index("product"));
      assertEquals(DOCS - 1, es.count(c -> c.index("product")).count());
    }
  }

  private static <T> List<String> ids(SearchResponse<T> r) {
    return r.hits().hits().stream().map(Hit::id).toList();
  }

  private static List<String> fieldNames(ObjectNode source) {
    List<String> names = new ArrayList<>();
    source.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
