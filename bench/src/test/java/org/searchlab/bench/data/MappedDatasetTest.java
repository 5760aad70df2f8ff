package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.embed.Embedder;

/**
 * {@code dataset build --source ndjson --mapping}: documents of any fields the mapping takes, with
 * vectors computed over the embed fields' template where missing (by a stand-in model that records
 * the texts it was given), kept with the mapping file; documents the mapping refuses stop the build
 * before anything is written.
 */
class MappedDatasetTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int DIMS = 4;

  /** A stand-in model: the texts it saw, and a vector from each text's length and hash. */
  private static final class RecordingEmbedder implements Embedder {
    final List<String> texts = new ArrayList<>();

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public int dimension() {
      return DIMS;
    }

    @Override
    public float[] embed(String text) {
      texts.add(text);
      float[] v = {text.length(), text.hashCode() % 7, 1, 2};
      org.apache.lucene.util.VectorUtil.l2normalize(v);
      return v;
    }

    @Override
    public List<float[]> embedAll(List<String> in) {
      return in.stream().map(this::embed).toList();
    }

    @Override
    public void close() {}
  }

  private static DatasetBuilds.Common common(Path out, Embedder embedder) {
    return new DatasetBuilds.Common(
        out,
        out.resolveSibling("cache"),
        10,
        1,
        1,
        () -> embedder,
        "stand-in",
        DIMS,
        DatasetFormatTest.quiet());
  }

  private static Path mapping(Path dir) throws Exception {
    ObjectNode file = (ObjectNode) JSON.readTree(Path.of("examples", "shop-mapping.json").toFile());
    ((ObjectNode) file.path("mappings").path("properties").path("image")).put("dims", DIMS);
    Path p = dir.resolve("shop-mapping.json");
    Files.writeString(p, file.toString());
    return p;
  }

  @Test
  void documentsOfAnyFieldsAreKeptWithTheirMappingAndMissingVectorsComputed(@TempDir Path dir)
      throws Exception {
    Path in = dir.resolve("in.ndjson");
    Files.writeString(
        in,
        String.join(
            "\n",
            "{\"_id\":\"a\",\"_source\":{\"name\":\"Oak table\",\"body\":\"Solid oak\","
                + "\"brand\":\"acme\",\"stock\":3,\"image\":[1,0,0,0]}}",
            "{\"id\":\"b\",\"name\":\"Pine chair\",\"body\":\"Light\",\"brand\":\"zeta\",\"stock\":1}",
            "",
            "{\"name\":\"Lamp\",\"brand\":\"acme\"}"),
        StandardCharsets.UTF_8);
    RecordingEmbedder model = new RecordingEmbedder();
    Path out = dir.resolve("ds");
    int n = MappedDataset.build(common(out, model), in, mapping(dir), null, null, null);
    assertEquals(3, n);
    assertEquals(
        List.of("Item: Name: Pine chair Body: Light", "Item: Name: Lamp Body: "), model.texts);

    assertTrue(MappedDataset.isMapped(out));
    assertEquals(
        JSON.readTree(mapping(dir).toFile()), MappedDataset.mappingFile(out), "kept as given");
    List<Document> docs = MappedDataset.documents(out, 10);
    assertEquals(List.of("a", "b", "4"), docs.stream().map(Document::id).toList());
    assertFalse(docs.get(1).source().containsKey("id"), "the mapping has no id field");
    assertEquals(4, ((double[]) docs.get(1).value("image")).length, "computed vector stored");
    assertArrayEquals(
        new long[] {1, 0, 0, 0}, (long[]) docs.get(0).value("image"), "provided kept");
    assertEquals(2, MappedDataset.documents(out, 2).size());

    JsonNode info = MappedDataset.info(out);
    assertEquals("image", info.path("vector_field").asText());
    assertEquals("brand", info.path("filter_field").asText());
    assertEquals("[\"name\",\"body\"]", info.path("embed_fields").toString());
    assertEquals("stand-in+provided", info.path("model").asText());
    assertEquals("Item: Name: {name} Body: {body}", info.path("template").asText());
  }

  @Test
  void theTemplateOfTitleAndDescriptionIsTheProductDatasets() {
    assertEquals(
        DocumentEmbedder.TEMPLATE, MappedDataset.template(List.of("title", "description")));
    Document d = new Document("1", Map.of("title", "T", "description", "D"));
    assertEquals(
        DocumentEmbedder.TEMPLATE.replace("{title}", "T").replace("{description}", "D"),
        MappedDataset.embedText(d, List.of("title", "description")));
  }

  @Test
  void aDocumentTheMappingRefusesStopsTheBuildBeforeAnythingIsWritten(@TempDir Path dir)
      throws Exception {
    Path in = dir.resolve("in.ndjson");
    Files.writeString(
        in,
        "{\"id\":\"ok\",\"name\":\"x\",\"image\":[1,0,0,0]}\n"
            + "{\"id\":\"bad\",\"name\":\"y\",\"colour\":\"red\",\"image\":[0,1,0,0]}\n");
    Path out = dir.resolve("ds");
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class,
            () ->
                MappedDataset.build(
                    common(out, new RecordingEmbedder()), in, mapping(dir), null, null, null));
    assertTrue(e.getMessage().contains("bad") && e.getMessage().contains("colour"), e.getMessage());
    assertFalse(Files.exists(out.resolve(MappedDataset.DOCS_FILE)));

    InvalidRequestException field =
        assertThrows(
            InvalidRequestException.class,
            () ->
                MappedDataset.build(
                    common(out, new RecordingEmbedder()),
                    in,
                    mapping(dir),
                    List.of("brand"),
                    null,
                    null));
    assertTrue(field.getMessage().contains("--embed-fields: [brand]"), field.getMessage());
  }

  @Test
  void aVectorOfTheWrongDimensionIsNamed(@TempDir Path dir) throws Exception {
    Path in = dir.resolve("in.ndjson");
    Files.writeString(in, "{\"id\":\"short\",\"name\":\"x\",\"image\":[1,0]}\n");
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class,
            () ->
                MappedDataset.build(
                    common(dir.resolve("ds"), new RecordingEmbedder()),
                    in,
                    mapping(dir),
                    null,
                    null,
                    null));
    assertTrue(e.getMessage().contains("short") && e.getMessage().contains("2"), e.getMessage());
  }
}
