package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.QueryPlan;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.query.Knn;
import org.searchlab.core.query.Query;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.CatalogCorpus;

/** The mutable store of any mapping: what the conformance suite does not see. */
class MappedIndexTest {
  @TempDir Path tmp;

  private static MutableConfig config() {
    return MutableConfig.DEFAULT.toBuilder().snapshotInterval(java.time.Duration.ZERO).build();
  }

  @Test
  void theProductMappingOpensTheProductStore() throws IOException {
    MutableStoreKind kind = new MutableStoreKind(config());
    assertEquals("mutable", kind.name());
    try (SearchIndex product =
        kind.open(tmp.resolve("p"), IndexSettings.NO_REPLICAS, new Schema(8).mapping())) {
      assertInstanceOf(MutableIndex.class, product);
    }
    try (SearchIndex catalog =
        kind.open(tmp.resolve("c"), CatalogCorpus.settings(), CatalogCorpus.mapping())) {
      assertInstanceOf(MappedIndex.class, catalog);
      assertTrue(Files.exists(tmp.resolve("c").resolve("mapping.json")));
    }
  }

  /**
   * {@code serve} writes the product mapping with the graph settings it configured the store with
   * ({@code hnsw}, m, ef_construction): that must still open the product store, whose fast paths
   * the benchmark measures, and not the store of any mapping. Other graph settings than the store's
   * cannot be built by the product store, so they open the store of any mapping.
   */
  @Test
  void theProductMappingAsServeWritesItOpensTheProductStore() throws IOException {
    MutableConfig c = config();
    MutableStoreKind kind = new MutableStoreKind(c);
    org.searchlab.core.mapping.FieldType.IndexOptions asServe =
        new org.searchlab.core.mapping.FieldType.IndexOptions(
            c.hnsw().quantization().esIndexType(), c.hnsw().m(), c.hnsw().efConstruction());
    try (SearchIndex product =
        kind.open(
            tmp.resolve("serve"),
            IndexSettings.NO_REPLICAS,
            org.searchlab.core.mapping.Mapping.product(8, asServe))) {
      assertInstanceOf(MutableIndex.class, product);
    }
    org.searchlab.core.mapping.FieldType.IndexOptions other =
        new org.searchlab.core.mapping.FieldType.IndexOptions(
            "hnsw", c.hnsw().m() + 8, c.hnsw().efConstruction());
    try (SearchIndex mapped =
        kind.open(
            tmp.resolve("other"),
            IndexSettings.NO_REPLICAS,
            org.searchlab.core.mapping.Mapping.product(8, other))) {
      assertInstanceOf(MappedIndex.class, mapped);
    }
  }

  @Test
  void anUnfilteredKnnSearchWalksTheFieldsGraph() throws IOException {
    long seed = TestSeeds.seed("MappedIndexTest.graph");
    CatalogCorpus corpus = new CatalogCorpus(seed);
    MutableConfig c =
        config().toBuilder()
            .hnsw(config().hnsw().toBuilder().approximateThreshold(0).build())
            .build();
    try (SearchIndex index =
        MutableIndex.open(
            tmp.resolve("idx"), CatalogCorpus.settings(), CatalogCorpus.mapping(), c)) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : corpus.documents(300)) {
        ops.add(Operation.put(d));
      }
      index.bulk(ops);
      Knn knn =
          new Knn(
              "img",
              corpus.imgQuery(new java.util.SplittableRandom(seed)),
              10,
              50,
              Query.MatchAll.INSTANCE,
              null,
              1f,
              0);
      SearchResult r = index.search(SearchRequest.builder().addKnn(knn).hits(10).build());
      assertEquals(QueryPlan.HNSW, r.plan().vector(), "seed " + seed);
      assertEquals(10, r.hits().size());
      SearchResult exact =
          index.search(SearchRequest.builder().addKnn(knn).hits(10).approximate(false).build());
      assertEquals(QueryPlan.EXACT, exact.plan().vector());
      assertTrue(r.hits().get(0).score() <= exact.hits().get(0).score() + 1e-6f);
    }
  }

  @Test
  void theLogAloneReplaysAndAnOlderSnapshotIsRefused() throws IOException {
    long seed = TestSeeds.seed("MappedIndexTest.replay");
    CatalogCorpus corpus = new CatalogCorpus(seed);
    Path dir = tmp.resolve("idx");
    List<Document> docs = corpus.documents(50);
    MappedIndex crashed =
        (MappedIndex)
            MutableIndex.open(dir, CatalogCorpus.settings(), CatalogCorpus.mapping(), config());
    for (Document d : docs) {
      crashed.put(d);
    }
    crashed.delete(docs.get(0).id());
    crashed.closeWithoutSnapshot();
    assertTrue(Files.notExists(dir.resolve(MappedIndex.SNAPSHOT)));
    try (SearchIndex index =
        MutableIndex.open(dir, CatalogCorpus.settings(), CatalogCorpus.mapping(), config())) {
      assertEquals(docs.size() - 1, index.stats().docCount(), "seed " + seed);
      assertEquals(docs.get(7), index.get(docs.get(7).id()).orElseThrow());
      index.flush();
    }
    try (DataOutputStream out =
        new DataOutputStream(Files.newOutputStream(dir.resolve(MappedIndex.SNAPSHOT)))) {
      out.writeInt(1);
      out.writeLong(0);
    }
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                MutableIndex.open(
                    dir, CatalogCorpus.settings(), CatalogCorpus.mapping(), config()));
    assertTrue(e.getMessage().contains("feed the documents again"), e.getMessage());
  }

  @Test
  void aGrownMappingIsDurableBeforeItsDocument() throws IOException {
    Path dir = tmp.resolve("idx");
    try (SearchIndex index =
        MutableIndex.open(dir, CatalogCorpus.settings(), CatalogCorpus.mapping(), config())) {
      index.put(new Document("a", java.util.Map.of("colour", "red")));
      assertTrue(Files.readString(dir.resolve("mapping.json")).contains("colour"));
    }
    try (SearchIndex index =
        MutableIndex.open(
            dir, CatalogCorpus.settings(), Mapping.of(java.util.Map.of()), config())) {
      assertTrue(index.mapping().leaf("colour") != null);
      assertEquals(
          List.of("a"),
          index
              .search(
                  SearchRequest.builder()
                      .query(new Query.Match("colour", "red", Query.Operator.OR, null, 1f))
                      .build())
              .ids());
    }
  }

  @Test
  void aSnapshotKeepsEachFieldsGraph() throws IOException {
    long seed = TestSeeds.seed("MappedIndexTest.snapshot");
    CatalogCorpus corpus = new CatalogCorpus(seed);
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    MutableConfig c =
        config().toBuilder()
            .hnsw(config().hnsw().toBuilder().approximateThreshold(0).build())
            .build();
    Path dir = tmp.resolve("idx");
    List<Document> docs = corpus.documents(300);
    List<SearchRequest> requests = new ArrayList<>();
    for (String field : List.of("img", "txt")) {
      float[] v = field.equals("img") ? corpus.imgQuery(random) : corpus.txtQuery(random);
      requests.add(
          SearchRequest.builder()
              .addKnn(new Knn(field, v, 10, 40, Query.MatchAll.INSTANCE, null, 1f, 0))
              .hits(10)
              .build());
    }
    List<List<org.searchlab.core.Hit>> before = new ArrayList<>();
    try (SearchIndex index =
        MutableIndex.open(dir, CatalogCorpus.settings(), CatalogCorpus.mapping(), c)) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : docs) {
        ops.add(Operation.put(d));
      }
      index.bulk(ops);
      for (int i = 0; i < 300; i += 3) {
        index.delete(docs.get(i).id());
      }
      index.flush();
      index.put(docs.get(0)); // after the first snapshot: the close writes a second one
      for (SearchRequest r : requests) {
        before.add(index.search(r).hits());
      }
    }
    try (var files = Files.newDirectoryStream(dir, "mapped-graph-*.bin")) {
      int n = 0;
      for (Path f : files) {
        n++;
      }
      assertEquals(2, n, "one graph file per vector field, the older snapshot's deleted");
    }
    try (SearchIndex index =
        MutableIndex.open(dir, CatalogCorpus.settings(), CatalogCorpus.mapping(), c)) {
      assertEquals(201, index.stats().docCount(), "seed " + seed);
      assertTrue(index.get(docs.get(3).id()).isEmpty());
      assertEquals(docs.get(0), index.get(docs.get(0).id()).orElseThrow());
      for (int i = 0; i < requests.size(); i++) {
        SearchResult r = index.search(requests.get(i));
        assertEquals(QueryPlan.HNSW, r.plan().vector());
        assertEquals(before.get(i), r.hits(), "the same graph answers the same, seed " + seed);
      }
    }
  }

  @Test
  void anUpdateKeepingTheVectorsHandsTheirGraphNodesOver() throws IOException {
    long seed = TestSeeds.seed("MappedIndexTest.handOver");
    CatalogCorpus corpus = new CatalogCorpus(seed);
    MutableConfig c =
        config().toBuilder()
            .hnsw(config().hnsw().toBuilder().approximateThreshold(0).build())
            .build();
    try (SearchIndex index =
        MutableIndex.open(
            tmp.resolve("idx"), CatalogCorpus.settings(), CatalogCorpus.mapping(), c)) {
      List<Operation> ops = new ArrayList<>();
      for (Document d : corpus.documents(200)) {
        ops.add(Operation.put(d));
      }
      index.bulk(ops);
      var parser =
          org.searchlab.core.mapping.IndexMapping.inMemory(
              CatalogCorpus.settings(), index.mapping());
      Document d = null;
      float[] img = null;
      for (int i = 17; img == null; i++) {
        d = corpus.document(i);
        img = parser.parseKnown(d).vector("img");
      }
      long handed = index.stats().counters().get("unchanged_vector_puts");
      index.update(org.searchlab.core.PartialUpdate.of(d.id()).with("stock", 12_345L));
      assertTrue(index.stats().counters().get("unchanged_vector_puts") > handed, "seed " + seed);
      SearchResult r =
          index.search(
              SearchRequest.builder()
                  .addKnn(new Knn("img", img, 1, 20, Query.Term.of("stock", 12_345L), null, 1f, 0))
                  .build());
      assertEquals(List.of(d.id()), r.ids(), "the new version is in the graph, seed " + seed);
      SearchResult all =
          index.search(
              SearchRequest.builder()
                  .addKnn(new Knn("img", img, 5, 50, Query.MatchAll.INSTANCE, null, 1f, 0))
                  .build());
      assertEquals(d.id(), all.ids().get(0), "seed " + seed);
    }
  }

  @Test
  void aProductSnapshotIsRefusedWithNothingWritten() throws IOException {
    Path dir = tmp.resolve("idx");
    try (MutableIndex product = MutableIndex.open(dir, new Schema(8), config())) {
      product.put(
          new Document(
              "a",
              java.util.Map.of(
                  "title",
                  "a lamp",
                  "category",
                  "home",
                  "price",
                  10L,
                  "embedding",
                  new float[] {1, 0, 0, 0, 0, 0, 0, 0})));
    }
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                MutableIndex.open(
                    dir, CatalogCorpus.settings(), CatalogCorpus.mapping(), config()));
    assertTrue(e.getMessage().contains("feed the documents again"), e.getMessage());
    assertTrue(Files.notExists(dir.resolve("mapping.json")), "nothing written");
  }

  @Test
  void compactionRenumbersEveryStructure() throws IOException {
    long seed = TestSeeds.seed("MappedIndexTest.compaction");
    CatalogCorpus corpus = new CatalogCorpus(seed);
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    List<Document> docs = corpus.documents(200);
    try (SearchIndex index =
            MutableIndex.open(
                tmp.resolve("idx"), CatalogCorpus.settings(), CatalogCorpus.mapping(), config());
        org.searchlab.testing.ExactIndex oracle =
            org.searchlab.testing.ExactIndex.open(
                tmp.resolve("oracle"), CatalogCorpus.settings(), CatalogCorpus.mapping())) {
      // Eight versions of each document: 1,400 dead ordinals, past the compaction threshold.
      for (int round = 0; round < 8; round++) {
        for (Document d : docs) {
          Document v =
              round % 2 == 0
                  ? d
                  : new Document(
                      d.id(),
                      new java.util.LinkedHashMap<>(
                          Map.of("name", corpus.text(random, 3), "stock", (long) round)));
          index.put(v);
          oracle.put(v);
        }
      }
      assertEquals(oracle.stats().docCount(), index.stats().docCount());
      for (int q = 0; q < 20; q++) {
        SearchRequest r =
            SearchRequest.builder()
                .query(new Query.Match("name", corpus.text(random, 2), Query.Operator.OR, null, 1f))
                .addKnn(
                    new Knn(
                        "img",
                        corpus.imgQuery(random),
                        5,
                        50,
                        Query.MatchAll.INSTANCE,
                        null,
                        1f,
                        0))
                .hits(10)
                .approximate(false)
                .build();
        org.searchlab.testing.SearchAssertions.assertSameScores(
            oracle.search(r), index.search(r), "seed " + seed);
        assertEquals(oracle.search(r).total(), index.search(r).total());
      }
    }
  }
}
