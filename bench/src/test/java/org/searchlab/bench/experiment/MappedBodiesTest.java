package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.searchlab.bench.load.CpuMeter;
import org.searchlab.core.Document;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingJson;

/**
 * The runner's requests over another mapping (the example shop mapping): the roles of its fields by
 * default and by choice, usage errors naming the field, the search bodies on the chosen fields, the
 * bulk bodies of a put and of the update field's update, and the index bodies each engine is given,
 * which core reads back as the same mapping.
 */
class MappedBodiesTest {
  private static final URI BASE = URI.create("http://127.0.0.1:9200");

  @Test
  void rolesDefaultToTheOnlyFieldOfEachType() throws Exception {
    BenchMapping m = ShopData.mapping(8);
    assertEquals("shop", m.index());
    assertEquals(List.of("name", "body"), m.textFields(), "name.raw is a multi-field");
    assertEquals("image", m.vectorField());
    assertEquals("brand", m.filterField(), "sku is not indexed, name.raw is a multi-field");
    assertEquals("stock", m.updateField());
    assertFalse(m.product());
    String line = m.describe();
    assertTrue(line.contains("mapping shop-mapping.json"), line);
    assertTrue(line.contains("text fields [name, body]"), line);

    // A bare mappings object is read the same (without settings, it names no similarity of
    // theirs); the index is product by default.
    ObjectNode bare = (ObjectNode) ShopData.mappingFile(8).get("mappings");
    ((ObjectNode) bare.path("properties").path("name")).remove("similarity");
    BenchMapping fromBare = BenchMapping.read(bare, BenchMapping.Choice.DEFAULTS);
    assertEquals("product", fromBare.index());
    assertEquals(m.textFields(), fromBare.textFields());

    BenchMapping chosen =
        BenchMapping.read(
            ShopData.mappingFile(8),
            new BenchMapping.Choice("shop_2", List.of("body"), "image", "name.raw", "stock"));
    assertEquals(List.of("body"), chosen.textFields());
    assertEquals("name.raw", chosen.filterField());
  }

  @Test
  void fieldsThatDoNotFitAreUsageErrorsNamingThem() throws Exception {
    ObjectNode file = ShopData.mappingFile(8);
    assertMessage(
        file, new BenchMapping.Choice(null, List.of("brand"), null, null, null), "[brand]");
    assertMessage(file, new BenchMapping.Choice(null, List.of("nope"), null, null, null), "[nope]");
    assertMessage(file, new BenchMapping.Choice(null, null, "name", null, null), "[name]");
    assertMessage(file, new BenchMapping.Choice(null, null, null, "stock", null), "[stock]");
    assertMessage(file, new BenchMapping.Choice(null, null, null, null, "brand"), "[brand]");
    assertMessage(file, new BenchMapping.Choice("Shop", null, null, null, null), "[Shop]");
    assertMessage(file, new BenchMapping.Choice("a-b", null, null, null, null), "[a-b]");
    // Two keyword fields and no choice: the message lists them.
    ObjectNode two = file.deepCopy();
    ((ObjectNode) two.path("mappings").path("properties"))
        .putObject("colour")
        .put("type", "keyword");
    assertMessage(two, BenchMapping.Choice.DEFAULTS, "[brand, colour]");
    // What core refuses is refused with core's words.
    ObjectNode bad = file.deepCopy();
    ((ObjectNode) bad.path("mappings").path("properties").path("body")).put("type", "txt");
    assertMessage(bad, BenchMapping.Choice.DEFAULTS, "txt");
    assertMessage(Json.object().put("x", 1), BenchMapping.Choice.DEFAULTS, "[x]");
  }

  private static void assertMessage(JsonNode file, BenchMapping.Choice c, String part) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BenchMapping.read(file, c));
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }

  @Test
  void searchBodiesUseTheChosenFieldsAndIndex() throws Exception {
    BenchMapping m = ShopData.mapping(2);
    BenchQuery q = new BenchQuery("oak table", new float[] {0.5f, -1f}, "acme", "s1");
    SearchDialect es = SearchDialect.ofStore("mutable", false, m);
    assertEquals(
        "POST http://127.0.0.1:9200/shop/_search/ [application/json]\n"
            + "{\"size\":10,\"_source\":false,\"query\":{\"bool\":{\"must\":{\"multi_match\":"
            + "{\"query\":\"oak table\",\"fields\":[\"name\",\"body\"],\"type\":\"best_fields\"}},"
            + "\"filter\":[{\"term\":{\"brand\":\"acme\"}}]}},"
            + "\"knn\":{\"field\":\"image\",\"query_vector\":[0.5,-1.0],\"num_candidates\":100,"
            + "\"k\":100,\"filter\":[{\"term\":{\"brand\":\"acme\"}}]}}",
        RecordingHttp.describe(es.search(BASE, q, QueryType.HYBRID, true)));
    assertEquals(
        "POST http://127.0.0.1:9200/shop/_search/ [application/json]\n"
            + "{\"size\":10,\"_source\":false,\"knn\":{\"field\":\"image\",\"query_vector\":"
            + "[0.5,-1.0],\"num_candidates\":40,\"k\":10,\"rescore_vector\":{\"oversample\":4.0}}}",
        RecordingHttp.describe(
            SearchDialect.ofStore("segmented", true, m)
                .search(BASE, q, QueryType.VECTOR, false, new Setting(10, 40))));
  }

  @Test
  void feedBodiesCarryTheSourceAsGivenAndUpdateTheUpdateField() throws Exception {
    BenchMapping m = ShopData.mapping(2);
    List<Document> docs = ShopData.documents(7, 3, 2);
    RecordingHttp http = new RecordingHttp(r -> "{\"errors\":false,\"items\":[]}");
    new Feeder(http, BASE, true, 2, m).feed(docs, FeedOp.PUT, CpuMeter.NONE, 1);
    new Feeder(http, BASE, true, 5, m).feed(docs, FeedOp.PRICE_UPDATE, CpuMeter.NONE, 1);
    List<String> sent = http.transcript();
    assertEquals(3, sent.size(), "two put batches and one update batch");
    String first = sent.get(0);
    assertTrue(first.startsWith("POST http://127.0.0.1:9200/shop/_bulk [application/x-ndjson]\n"));
    String[] lines = first.split("\n");
    assertEquals("{\"index\":{\"_index\":\"shop\",\"_id\":\"s0\"}}", lines[1]);
    JsonNode source = Json.MAPPER.readTree(lines[2]);
    assertEquals(docs.get(0).value("name"), source.get("name").asText());
    assertEquals(2, source.get("image").size());
    assertFalse(source.has("title"), "no product field: " + source);
    String update = sent.get(2);
    long stock = (Long) docs.get(1).value("stock");
    assertTrue(
        update.contains(
            "{\"update\":{\"_index\":\"shop\",\"_id\":\"s1\"}}\n{\"doc\":{\"stock\":"
                + (stock + 100)
                + "}}"),
        update);
    String vespa = new String(Feeder.vespaBody(List.of(docs.get(1)), FeedOp.PRICE_UPDATE, m), UTF8);
    assertEquals("{\"fields\":{\"stock\":{\"assign\":" + (stock + 100) + "}}}", vespa);
  }

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  @Test
  void theIndexBodyIsTheMappingAsCoreReadsIt() throws Exception {
    BenchMapping m = ShopData.mapping(8);
    ObjectNode body = m.indexBody(8, VectorQuantization.INT8, "mutable");
    JsonNode index = body.path("settings").path("index");
    assertEquals("mutable", index.path("store").asText());
    assertEquals(
        "custom", index.path("analysis").path("analyzer").path("default").path("type").asText());
    assertEquals(1.0, index.path("similarity").path("short_text").path("k1").asDouble());
    JsonNode image = body.path("mappings").path("properties").path("image");
    assertEquals("int8_hnsw", image.path("index_options").path("type").asText());
    assertEquals(16, image.path("index_options").path("m").asInt());
    assertEquals(100, image.path("index_options").path("ef_construction").asInt());

    // Core reads the body back as the file's mapping, with the run's vector type.
    IndexSettings settings = IndexSettings.parse(body.get("settings"));
    assertEquals("mutable", settings.store());
    Mapping read = MappingJson.parse(body.get("mappings"), settings);
    FieldType.DenseVector v = read.vector("image");
    assertEquals(new FieldType.IndexOptions("int8_hnsw", 16, 100), v.indexOptions());
    assertEquals(m.mapping().leaf("name"), read.leaf("name"));
    assertEquals(m.mapping().leaf("body"), read.leaf("body"));
    assertEquals(m.mapping().leaf("name.raw"), read.leaf("name.raw"));
    assertEquals(m.mapping().leaves().keySet(), read.leaves().keySet());

    // The segmented store's 4-bit and 1-bit types reach its body and read back the same (at 64
    // dimensions, the least Elasticsearch allows bbq_hnsw).
    for (VectorQuantization q : List.of(VectorQuantization.INT4, VectorQuantization.BBQ)) {
      ObjectNode seg = ShopData.mapping(64).indexBody(64, q, "segmented");
      assertEquals(
          q.esIndexType(),
          seg.at("/mappings/properties/image/index_options/type").asText(),
          q.flag());
      assertEquals(
          new FieldType.IndexOptions(q.esIndexType(), 16, 100),
          MappingJson.parse(seg.get("mappings"), IndexSettings.parse(seg.get("settings")))
              .vector("image")
              .indexOptions());
    }

    // Elasticsearch gets no store; OpenSearch a Lucene knn_vector with the similarity's space.
    ObjectNode elastic = m.indexBody(8, VectorQuantization.NONE, null);
    assertFalse(elastic.path("settings").path("index").has("store"));
    ObjectNode os = m.openSearchBody(8);
    JsonNode osImage = os.path("mappings").path("properties").path("image");
    assertEquals("knn_vector", osImage.path("type").asText());
    assertEquals(8, osImage.path("dimension").asInt());
    assertEquals("lucene", osImage.path("method").path("engine").asText());
    assertEquals("cosinesimil", osImage.path("method").path("space_type").asText());
    assertTrue(os.path("settings").path("index").path("knn").asBoolean());
  }

  @Test
  void aSimilarityNamedDefaultIsKeptForSearchlabOnly() throws Exception {
    ObjectNode file = ShopData.mappingFile(8);
    ((ObjectNode) file.path("settings").path("index").path("similarity"))
        .putObject("default")
        .put("type", "BM25")
        .put("k1", 0.9)
        .put("b", 0.4);
    BenchMapping m = BenchMapping.read(file, BenchMapping.Choice.DEFAULTS);
    assertTrue(
        m.indexBody(8, VectorQuantization.NONE, "segmented")
            .path("settings")
            .path("index")
            .path("similarity")
            .has("default"));
    assertFalse(
        m.indexBody(8, VectorQuantization.NONE, null)
            .path("settings")
            .path("index")
            .path("similarity")
            .has("default"));
  }

  @Test
  void ownQueriesTakeAFilterValueOrTheNearestDocumentsByTheFieldsSimilarity(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    BenchMapping m = ShopData.mapping(4);
    List<Document> docs = ShopData.documents(11, 50, 4);
    float[] near = ((float[]) docs.get(7).value("image")).clone();
    for (int i = 0; i < near.length; i++) {
      near[i] *= 3; // cosine: the same direction is the nearest, whatever the length
    }
    java.nio.file.Path file = dir.resolve("q.ndjson");
    java.nio.file.Files.writeString(
        file,
        "{\"text\":\"oak\",\"vector\":[1,0,0,0],\"filter\":\"zeta\"}\n"
            + "{\"text\":\"lamp\",\"vector\":"
            + Json.vector(near)
            + "}\n");
    List<BenchQuery> qs =
        QueryFile.read(
            file,
            docs,
            () -> {
              throw new AssertionError("every query has a vector");
            },
            m);
    assertEquals("zeta", qs.get(0).category());
    assertEquals(docs.get(7).value("brand"), qs.get(1).category());
    assertEquals(1.0, Math.sqrt(dot(qs.get(1).vector(), qs.get(1).vector())), 1e-5);

    java.nio.file.Files.writeString(file, "{\"text\":\"oak\",\"filter\":5}\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> QueryFile.read(file, docs, () -> null, m));
    assertTrue(e.getMessage().contains("\"filter\" must be"), e.getMessage());
  }

  private static double dot(float[] a, float[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * (double) b[i];
    }
    return s;
  }

  @Test
  void adminCallsGoToTheMappedIndexAndServersStartWithoutTheProductIndex() throws Exception {
    BenchMapping m = ShopData.mapping(8);
    RecordingHttp http = new RecordingHttp(r -> "{}");
    ServerAdmin admin =
        new ServerAdmin(http, BASE, ServerAdmin.Kind.ELASTICSEARCH, 0, m, "segmented");
    admin.createIndex(8, 16, 200, VectorQuantization.NONE);
    admin.refresh();
    List<String> sent = http.transcript();
    assertTrue(sent.get(0).startsWith("PUT http://127.0.0.1:9200/shop [application/json]\n"));
    assertEquals(
        m.indexBody(8, VectorQuantization.NONE, "segmented").toString(),
        sent.get(0).substring(sent.get(0).indexOf('\n') + 1));
    assertEquals("POST http://127.0.0.1:9200/shop/_refresh [-]\n", sent.get(1));
    assertTrue(
        ServerOptions.defaults("mutable", 8).toBuilder()
            .defaultIndex(false)
            .build()
            .flags()
            .contains("--no-default-index"));
  }
}
