package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingException;
import org.searchlab.core.mapping.MappingJson;
import org.searchlab.mutable.hnsw.VectorStore;

/**
 * The mutable store keeps floats, int8 codes and 1-bit codes ({@code hnsw}, {@code int8_hnsw},
 * {@code bbq_hnsw}) and refuses Elasticsearch's {@code int4_hnsw} (the segmented store's only, so
 * far) with a 400 naming the value, before anything is written: no directory for a refused open, no
 * field for a refused mapping update. A {@code bbq_hnsw} field needs Elasticsearch's 64 dimensions.
 */
class MutableQuantizationsTest {
  @TempDir Path tmp;

  private static Mapping withVector(String type, int dims) throws IOException {
    return MappingJson.parse(
        new ObjectMapper()
            .readTree(
                ("{'properties':{'title':{'type':'text'},'v':{'type':'dense_vector','dims':"
                        + dims
                        + ",'index_options':{'type':'"
                        + type
                        + "'}}}}")
                    .replace('\'', '"')),
        IndexSettings.DEFAULT);
  }

  private static MutableConfig config(VectorQuantization q) {
    return MutableConfig.DEFAULT.toBuilder()
        .hnsw(MutableConfig.DEFAULT.hnsw().toBuilder().quantization(q).build())
        .build();
  }

  @Test
  void aMappingNamingInt4IsRefusedAndNothingIsCreated() throws IOException {
    Path dir = tmp.resolve("int4");
    MappingException e =
        assertThrows(
            MappingException.class,
            () ->
                MutableIndex.open(
                    dir, IndexSettings.DEFAULT, withVector("int4_hnsw", 8), MutableConfig.DEFAULT));
    assertEquals(MappingException.PARSING, e.type());
    assertTrue(
        e.getMessage().contains("[v.index_options.type] is [int4_hnsw]")
            && e.getMessage().contains("not supported by the mutable store yet")
            && e.getMessage().contains("[hnsw, int8_hnsw, bbq_hnsw]"),
        e.getMessage());
    assertFalse(Files.exists(dir), "a refused index leaves no directory");
    for (String type : new String[] {"int8_hnsw", "bbq_hnsw"}) {
      try (SearchIndex index =
          MutableIndex.open(
              tmp.resolve(type),
              IndexSettings.DEFAULT,
              withVector(type, 64),
              MutableConfig.DEFAULT)) {
        assertInstanceOf(MappedIndex.class, index);
      }
    }
  }

  /**
   * A {@code bbq_hnsw} field beside a float one: each searched on its own graph, the 1-bit one's
   * hits rescored to their exact float scores from a mapped file, and both kept across a reopen.
   */
  @Test
  void aBbqFieldIsSearchedOnItsCodesAndScoredByItsFloats() throws IOException {
    Mapping m =
        MappingJson.parse(
            new ObjectMapper()
                .readTree(
                    ("{'properties':{'f':{'type':'dense_vector','dims':64,'similarity':'l2_norm',"
                            + "'index_options':{'type':'hnsw'}},"
                            + "'b':{'type':'dense_vector','dims':64,'similarity':'l2_norm',"
                            + "'index_options':{'type':'bbq_hnsw'}}}}")
                        .replace('\'', '"')),
            IndexSettings.DEFAULT);
    long seed =
        org.searchlab.testing.TestSeeds.seed(
            "MutableQuantizationsTest.aBbqFieldIsSearchedOnItsCodesAndScoredByItsFloats");
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
    float[][] vectors = new float[300][64];
    for (float[] v : vectors) {
      for (int d = 0; d < v.length; d++) {
        v[d] = (float) r.nextGaussian();
      }
    }
    Path dir = tmp.resolve("two");
    for (int round = 0; round < 2; round++) {
      try (SearchIndex index =
          MutableIndex.open(dir, IndexSettings.DEFAULT, m, MutableConfig.DEFAULT)) {
        if (round == 0) {
          for (int i = 0; i < vectors.length; i++) {
            index.put(
                new org.searchlab.core.Document(
                    "d" + i, java.util.Map.of("f", vectors[i], "b", vectors[i])));
          }
          index.refresh();
        }
        assertEquals("bbq_hnsw", index.mapping().vector("b").indexOptions().type());
        // The 1-bit field's floats are in a mapped scratch file, as the product index keeps them;
        // the float field's stay on the heap, where its graph walks them.
        var graphs = ((MappedIndex) index).documents().graphs();
        assertTrue(graphs.get("b").vectors().mappedBytes() > 0, "bbq floats mapped");
        assertEquals(0, graphs.get("f").vectors().mappedBytes(), "float field on the heap");
        for (int q = 0; q < 20; q++) {
          float[] target = vectors[r.nextInt(vectors.length)];
          for (String field : new String[] {"f", "b"}) {
            org.searchlab.core.SearchResult res =
                index.search(
                    org.searchlab.core.SearchRequest.builder()
                        .addKnn(
                            new org.searchlab.core.query.Knn(
                                field,
                                target,
                                1,
                                50,
                                org.searchlab.core.query.Query.MatchAll.INSTANCE,
                                null,
                                1f,
                                0))
                        .hits(1)
                        .build());
            // The vector itself is its own nearest neighbour, at l2_norm's 1 / (1 + 0).
            assertEquals(1, res.hits().size(), field + ", seed " + seed);
            assertEquals(1f, res.hits().get(0).score(), 1e-6f, field + ", seed " + seed);
          }
        }
      }
    }
  }

  @Test
  void aStoreWideInt4IsRefusedWhenAnIndexOpensAndABbqOneOpens() throws IOException {
    MutableConfig c = config(VectorQuantization.INT4);
    Path product = tmp.resolve("product-int4");
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class, () -> MutableIndex.open(product, new Schema(8), c));
    assertTrue(
        e.getMessage().contains("quantization [int4]")
            && e.getMessage().contains("not supported by the mutable store yet"),
        e.getMessage());
    assertFalse(Files.exists(product));
    // A field without a type would take the store's: refused too, whatever the mapping.
    Path mapped = tmp.resolve("mapped-int4");
    assertThrows(
        InvalidRequestException.class,
        () -> MutableIndex.open(mapped, IndexSettings.DEFAULT, Mapping.EMPTY, c));
    assertFalse(Files.exists(mapped));
    // The graph's own store refuses int4 rather than keep int8 codes under its name.
    assertThrows(
        InvalidRequestException.class, () -> VectorStore.create(8, VectorQuantization.INT4));
    // A store-wide bbq is the flag's to force, at any dimension (the conformance suite runs it at
    // 32); only a mapping naming bbq_hnsw is held to Elasticsearch's 64.
    try (SearchIndex bbq =
        MutableIndex.open(
            tmp.resolve("product-bbq"), new Schema(8), config(VectorQuantization.BBQ))) {
      assertEquals(8, bbq.mapping().vector(Schema.EMBEDDING).dims());
    }
  }

  @Test
  void aMappingUpdateNamingInt4OrAShortBbqChangesNothing() throws IOException {
    try (SearchIndex index =
        MutableIndex.open(
            tmp.resolve("m"),
            IndexSettings.DEFAULT,
            withVector("hnsw", 8),
            MutableConfig.DEFAULT)) {
      Mapping before = index.mapping();
      Mapping update =
          MappingJson.parse(
              new ObjectMapper()
                  .readTree(
                      "{\"properties\":{\"w\":{\"type\":\"dense_vector\",\"dims\":8,"
                          + "\"index_options\":{\"type\":\"int4_hnsw\"}}}}"),
              IndexSettings.DEFAULT);
      MappingException e = assertThrows(MappingException.class, () -> index.putMapping(update));
      assertTrue(e.getMessage().contains("[w.index_options.type] is [int4_hnsw]"), e.getMessage());
      MappingException shortBbq =
          assertThrows(MappingException.class, () -> withVector("bbq_hnsw", 8));
      assertTrue(shortBbq.getMessage().contains("fewer than 64"), shortBbq.getMessage());
      assertNull(index.mapping().leaf("w"));
      assertEquals(before, index.mapping());
    }
  }
}
