package org.searchlab.core.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.analysis.TextAnalysis;

class MappingJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String s) throws Exception {
    return JSON.readTree(s.replace('\'', '"'));
  }

  @Test
  void readsEveryTypeAndWritesItBack() throws Exception {
    JsonNode mappings =
        json(
            "{'dynamic':'strict','properties':{"
                + "'name':{'type':'text','analyzer':'standard','fields':{'raw':{'type':'keyword','ignore_above':64}}},"
                + "'tag':{'type':'keyword'},'n':{'type':'integer','index':false},'x':{'type':'double'},"
                + "'ok':{'type':'boolean'},'at':{'type':'date','format':'yyyy/MM/dd||epoch_millis'},"
                + "'meta':{'properties':{'source':{'type':'keyword'},'deep.er':{'type':'long'}}},"
                + "'v':{'type':'dense_vector','dims':3,'similarity':'l2_norm','index_options':{'type':'hnsw','m':8,'ef_construction':50}}}}");
    Mapping m = MappingJson.parse(mappings, IndexSettings.DEFAULT);
    assertEquals(Dynamic.STRICT, m.dynamic());
    FieldType.Text name = assertInstanceOf(FieldType.Text.class, m.leaf("name"));
    assertEquals(TextAnalysis.STANDARD, name.analyzer());
    assertEquals(new FieldType.Keyword(64, true, true), m.leaf("name.raw"));
    assertEquals(new FieldType.Numeric(NumberType.INTEGER, false, true), m.leaf("n"));
    assertEquals(new FieldType.Numeric(NumberType.LONG, true, true), m.leaf("meta.deep.er"));
    FieldType.DenseVector v = m.vector("v");
    assertEquals(3, v.dims());
    assertEquals(VectorSimilarity.L2_NORM, v.similarity());
    assertEquals(new FieldType.IndexOptions("hnsw", 8, 50), v.indexOptions());
    assertEquals(m, MappingJson.parse(MappingJson.render(m), IndexSettings.DEFAULT));
  }

  @Test
  void aTextFieldWithoutAnalyzerTakesTheIndexDefault() throws Exception {
    Mapping m =
        MappingJson.parse(json("{'properties':{'t':{'type':'text'}}}"), IndexSettings.DEFAULT);
    assertEquals(TextAnalysis.NAME, ((FieldType.Text) m.leaf("t")).analyzer());
    IndexSettings standard =
        IndexSettings.parse(json("{'analysis':{'analyzer':{'default':{'type':'standard'}}}}"));
    Mapping s = MappingJson.parse(json("{'properties':{'t':{'type':'text'}}}"), standard);
    assertEquals(TextAnalysis.STANDARD, ((FieldType.Text) s.leaf("t")).analyzer());
  }

  @Test
  void customBm25SimilaritiesAndTheBenchmarksAnalyzerAreRead() throws Exception {
    IndexSettings settings =
        IndexSettings.parse(
            json(
                "{'index':{'number_of_shards':1,'similarity':{'custom_bm25':{'type':'BM25','k1':2.0,'b':0.5}},"
                    + "'analysis':{'analyzer':{'my':{'tokenizer':'standard','filter':['lowercase','asciifolding','p2']}},"
                    + "'filter':{'p2':{'type':'stemmer','language':'porter2'}}}}}"));
    Mapping m =
        MappingJson.parse(
            json("{'properties':{'t':{'type':'text','analyzer':'my','similarity':'custom_bm25'}}}"),
            settings);
    FieldType.Text t = (FieldType.Text) m.leaf("t");
    assertEquals(TextAnalysis.NAME, t.analyzer());
    assertEquals(2.0f, t.similarity().k1());
    assertEquals(0.5f, t.similarity().b());
  }

  /**
   * Elasticsearch's four HNSW types are read and written back; its flat, IVF and other types stay a
   * mapper_parsing_exception naming the value and the allowed list.
   */
  @Test
  void quantizedHnswTypesAreReadAndOtherTypesRefused() throws Exception {
    for (String type : java.util.List.of("hnsw", "int8_hnsw", "int4_hnsw", "bbq_hnsw")) {
      Mapping m =
          MappingJson.parse(
              json(
                  "{'properties':{'v':{'type':'dense_vector','dims':64,'index_options':{'type':'"
                      + type
                      + "','m':12,'ef_construction':90}}}}"),
              IndexSettings.DEFAULT);
      assertEquals(new FieldType.IndexOptions(type, 12, 90), m.vector("v").indexOptions());
      assertEquals(m, MappingJson.parse(MappingJson.render(m), IndexSettings.DEFAULT));
    }
    for (String type :
        java.util.List.of("flat", "int8_flat", "int4_flat", "bbq_flat", "bbq_disk", "int2_hnsw")) {
      MappingException e =
          assertThrows(
              MappingException.class,
              () ->
                  MappingJson.parse(
                      json(
                          "{'properties':{'v':{'type':'dense_vector','index_options':{'type':'"
                              + type
                              + "'}}}}"),
                      IndexSettings.DEFAULT));
      assertEquals(MappingException.PARSING, e.type());
      assertTrue(
          e.getMessage().contains("[v.index_options.type] is [" + type + "]")
              && e.getMessage().contains("[hnsw, int8_hnsw, int4_hnsw, bbq_hnsw]"),
          e.getMessage());
    }
  }

  /**
   * Elasticsearch refuses {@code bbq_hnsw} below 64 dimensions, in the mapping and when the first
   * document sets the dimension; other types and unindexed vectors take any dimension.
   */
  @Test
  void bbqNeedsSixtyFourDimensionsAsInElasticsearch() throws Exception {
    MappingException e =
        assertThrows(
            MappingException.class,
            () ->
                MappingJson.parse(
                    json(
                        "{'properties':{'v':{'type':'dense_vector','dims':63,"
                            + "'index_options':{'type':'bbq_hnsw'}}}}"),
                    IndexSettings.DEFAULT));
    assertEquals(MappingException.PARSING, e.type());
    assertEquals("bbq_hnsw does not support dimensions fewer than 64; provided=63", e.getMessage());
    Mapping unset =
        MappingJson.parse(
            json(
                "{'properties':{'v':{'type':'dense_vector','index_options':{'type':'bbq_hnsw'}}}}"),
            IndexSettings.DEFAULT);
    FieldType.DenseVector v = unset.vector("v");
    assertEquals(64, v.withDims(64).dims());
    MappingException late = assertThrows(MappingException.class, () -> v.withDims(12));
    assertTrue(late.getMessage().endsWith("provided=12"), late.getMessage());
    for (String type : java.util.List.of("hnsw", "int8_hnsw", "int4_hnsw")) {
      assertEquals(
          12,
          MappingJson.parse(
                  json(
                      "{'properties':{'v':{'type':'dense_vector','dims':12,'index_options':"
                          + "{'type':'"
                          + type
                          + "'}}}}"),
                  IndexSettings.DEFAULT)
              .vector("v")
              .dims());
    }
    assertEquals(
        12,
        new FieldType.DenseVector(
                12, VectorSimilarity.COSINE, false, new FieldType.IndexOptions("bbq_hnsw", 0, 0))
            .dims());
  }

  @Test
  void badMappingsAreRefusedNamingTheParameter() {
    var e =
        assertThrows(
            MappingException.class,
            () ->
                MappingJson.parse(
                    json("{'properties':{'t':{'type':'text','bogus':1}}}"), IndexSettings.DEFAULT));
    assertEquals(MappingException.PARSING, e.type());
    assertTrue(e.getMessage().contains("[bogus]"), e.getMessage());
    assertThrows(
        MappingException.class,
        () ->
            MappingJson.parse(
                json("{'properties':{'t':{'type':'geo_point'}}}"), IndexSettings.DEFAULT));
    assertThrows(
        MappingException.class,
        () ->
            MappingJson.parse(
                json("{'properties':{'v':{'type':'dense_vector','dims':5000}}}"),
                IndexSettings.DEFAULT));
    assertThrows(MappingException.class, () -> IndexSettings.parse(json("{'number_of_shards':2}")));
    assertThrows(
        MappingException.class,
        () -> IndexSettings.parse(json("{'analysis':{'analyzer':{'x':{'type':'english'}}}}")));
  }

  @Test
  void mergeAddsFieldsAndRefusesChanges() {
    Mapping a =
        Mapping.of(
            Map.of(
                "n", new FieldType.Numeric(NumberType.LONG, true, true),
                "v",
                    new FieldType.DenseVector(
                        3, VectorSimilarity.COSINE, true, FieldType.IndexOptions.DEFAULT)));
    Mapping added = a.merge(Mapping.of(Map.of("k", FieldType.Keyword.PLAIN)));
    assertEquals(3, added.leaves().size());
    var typeChange =
        assertThrows(
            MappingException.class,
            () -> a.merge(Mapping.of(Map.of("n", FieldType.Keyword.PLAIN))));
    assertEquals("illegal_argument_exception", typeChange.type());
    assertThrows(
        MappingException.class,
        () ->
            a.merge(
                Mapping.of(
                    Map.of(
                        "v",
                        new FieldType.DenseVector(
                            4, VectorSimilarity.COSINE, true, FieldType.IndexOptions.DEFAULT)))));
  }
}
