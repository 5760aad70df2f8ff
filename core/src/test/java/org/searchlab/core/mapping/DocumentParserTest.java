package org.searchlab.core.mapping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.searchlab.core.Document;
import org.searchlab.core.analysis.TextAnalysis;

class DocumentParserTest {
  private static ParsedDocument parse(Mapping m, Map<String, Object> source) {
    return DocumentParser.parse(m, TextAnalysis.NAME, new Document("d1", source));
  }

  private static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }

  @Test
  void dynamicMappingFollowsElasticsearch() {
    double[] vector = new double[200];
    for (int i = 0; i < vector.length; i++) {
      vector[i] = 0.5 + i;
    }
    ParsedDocument p =
        parse(
            Mapping.EMPTY,
            map(
                "text",
                "Hello World",
                "n",
                3L,
                "x",
                1.5,
                "ok",
                true,
                "when",
                "2024-05-01T10:00:00Z",
                "metadata",
                map("source", "web", "page", 4L),
                "vec",
                vector,
                "nothing",
                null));
    Mapping m = p.mapping();
    assertTrue(p.mappingChanged());
    FieldType.Text t = assertInstanceOf(FieldType.Text.class, m.leaf("text"));
    assertEquals(FieldType.Keyword.DYNAMIC_SUBFIELD, t.fields().get("keyword"));
    assertEquals(new FieldType.Numeric(NumberType.LONG, true, true), m.leaf("n"));
    assertEquals(new FieldType.Numeric(NumberType.FLOAT, true, true), m.leaf("x"));
    assertInstanceOf(FieldType.Bool.class, m.leaf("ok"));
    assertInstanceOf(FieldType.Date.class, m.leaf("when"));
    assertInstanceOf(FieldType.Text.class, m.leaf("metadata.source"));
    FieldType.DenseVector v = assertInstanceOf(FieldType.DenseVector.class, m.leaf("vec"));
    assertEquals(200, v.dims());
    assertEquals(VectorSimilarity.COSINE, v.similarity());
    assertNull(m.field("nothing"));
    assertArrayEquals(new String[] {"web"}, p.strings("metadata.source.keyword"));
    assertArrayEquals(new long[] {1714557600000L}, p.longs("when"));
    assertArrayEquals(new long[] {1}, p.longs("ok"));
    assertInstanceOf(float[].class, p.document().source().get("vec"));
  }

  @Test
  void dottedKeysAreObjectPaths() {
    ParsedDocument p = parse(Mapping.EMPTY, map("metadata.source", "x", "metadata.page", 2L));
    assertInstanceOf(FieldType.ObjectField.class, p.mapping().field("metadata"));
    assertArrayEquals(new long[] {2}, p.longs("metadata.page"));
  }

  @Test
  void strictAndFalseDynamic() {
    Mapping strict = Mapping.of(Map.of("a", FieldType.Keyword.PLAIN)).withDynamic(Dynamic.STRICT);
    MappingException e =
        assertThrows(MappingException.class, () -> parse(strict, map("a", "x", "b", "y")));
    assertEquals(MappingException.STRICT, e.type());
    Mapping off = strict.withDynamic(Dynamic.FALSE);
    ParsedDocument p = parse(off, map("a", "x", "b", "y"));
    assertFalse(p.mappingChanged());
    assertEquals("y", p.document().source().get("b"));
    assertNull(p.values().get("b"));
  }

  @Test
  void valuesThatDoNotFitTheirFieldAreRefused() {
    Mapping m =
        Mapping.of(
            Map.of(
                "n", new FieldType.Numeric(NumberType.INTEGER, true, true),
                "d", new FieldType.Date(Dates.DEFAULT_FORMAT, true, true),
                "v",
                    new FieldType.DenseVector(
                        2, VectorSimilarity.DOT_PRODUCT, true, FieldType.IndexOptions.DEFAULT)));
    assertEquals(
        MappingException.PARSING,
        assertThrows(MappingException.class, () -> parse(m, map("n", "abc"))).type());
    assertThrows(MappingException.class, () -> parse(m, map("n", 3_000_000_000L)));
    assertThrows(MappingException.class, () -> parse(m, map("d", "yesterday")));
    assertThrows(MappingException.class, () -> parse(m, map("v", new double[] {1, 1})));
    assertThrows(MappingException.class, () -> parse(m, map("v", new double[] {1, 0, 0})));
    assertThrows(MappingException.class, () -> parse(m, map("_id", "x")));
    // Coercion as Elasticsearch's default: a numeric string, a fraction truncated.
    assertArrayEquals(new long[] {12, 7}, parse(m, map("n", List.of("12", 7.9))).longs("n"));
    // A conflicting dynamic value is refused and leaves the given mapping as it was.
    Mapping dyn = parse(Mapping.EMPTY, map("k", 1L)).mapping();
    assertThrows(MappingException.class, () -> parse(dyn, map("k", "not a number")));
    assertEquals(1, dyn.leaves().size());
  }

  @Test
  void ignoreAboveKeepsLongKeywordsOutOfTheIndex() {
    ParsedDocument p = parse(Mapping.EMPTY, map("t", "x".repeat(300)));
    assertEquals(1, p.strings("t").length);
    assertNull(p.strings("t.keyword"));
  }
}
