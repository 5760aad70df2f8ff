package org.searchlab.mutable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Schema;
import org.searchlab.core.SearchIndex;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingException;
import org.searchlab.core.mapping.MappingJson;

/**
 * The mutable store keeps Elasticsearch's four vector index types ({@code hnsw}, {@code int8_hnsw},
 * {@code int4_hnsw}, {@code bbq_hnsw}), per field and store-wide, each field on its own graph with
 * its hits rescored to their exact float scores; a {@code bbq_hnsw} field needs Elasticsearch's 64
 * dimensions, and a mapping update that fails that changes nothing.
 */
class QuantizedFieldsTest {
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
  void aMappingNamingAnyTypeOpens() throws IOException {
    for (String type : new String[] {"hnsw", "int8_hnsw", "int4_hnsw", "bbq_hnsw"}) {
      try (SearchIndex index =
          MutableIndex.open(
              tmp.resolve(type),
              IndexSettings.DEFAULT,
              withVector(type, 64),
              MutableConfig.DEFAULT)) {
        assertInstanceOf(MappedIndex.class, index);
        assertEquals(type, index.mapping().vector("v").indexOptions().type());
      }
    }
  }

  /**
   * A {@code bbq_hnsw} and an {@code int4_hnsw} field beside a float one: each searched on its own
   * graph, the 1-bit and 4-bit ones' hits rescored to their exact float scores from a mapped file,
   * and all kept across a reopen.
   */
  @Test
  void lowBitFieldsAreSearchedOnTheirCodesAndScoredByTheirFloats() throws IOException {
    Mapping m =
        MappingJson.parse(
            new ObjectMapper()
                .readTree(
                    ("{'properties':{'f':{'type':'dense_vector','dims':64,'similarity':'l2_norm',"
                            + "'index_options':{'type':'hnsw'}},"
                            + "'b':{'type':'dense_vector','dims':64,'similarity':'l2_norm',"
                            + "'index_options':{'type':'bbq_hnsw'}},"
                            + "'i':{'type':'dense_vector','dims':64,'similarity':'l2_norm',"
                            + "'index_options':{'type':'int4_hnsw'}}}}")
                        .replace('\'', '"')),
            IndexSettings.DEFAULT);
    long seed =
        org.searchlab.testing.TestSeeds.seed(
            "QuantizedFieldsTest.lowBitFieldsAreSearchedOnTheirCodesAndScoredByTheirFloats");
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
                    "d" + i, java.util.Map.of("f", vectors[i], "b", vectors[i], "i", vectors[i])));
          }
          index.refresh();
        }
        assertEquals("bbq_hnsw", index.mapping().vector("b").indexOptions().type());
        assertEquals("int4_hnsw", index.mapping().vector("i").indexOptions().type());
        // The 1-bit and 4-bit fields' floats are in a mapped scratch file, as the product index
        // keeps them; the float field's stay on the heap, where its graph walks them.
        var graphs = ((MappedIndex) index).documents().graphs();
        assertTrue(graphs.get("b").vectors().mappedBytes() > 0, "bbq floats mapped");
        assertTrue(graphs.get("i").vectors().mappedBytes() > 0, "int4 floats mapped");
        assertEquals(VectorQuantization.INT4, graphs.get("i").vectors().quantization());
        assertTrue(graphs.get("i").vectors().lowBitBytes() > 0, "4-bit codes kept");
        assertEquals(0, graphs.get("f").vectors().mappedBytes(), "float field on the heap");
        for (int q = 0; q < 20; q++) {
          float[] target = vectors[r.nextInt(vectors.length)];
          for (String field : new String[] {"f", "b", "i"}) {
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
  void aStoreWideInt4OrBbqOpensAtAnyDimension() throws IOException {
    // A store-wide quantization is the flag's to force, at any dimension (the conformance suite
    // runs them at 32); only a mapping naming bbq_hnsw is held to Elasticsearch's 64.
    for (VectorQuantization q :
        new VectorQuantization[] {VectorQuantization.INT4, VectorQuantization.BBQ}) {
      try (SearchIndex index =
          MutableIndex.open(tmp.resolve("product-" + q.flag()), new Schema(8), config(q))) {
        assertEquals(8, index.mapping().vector(Schema.EMBEDDING).dims());
      }
      // A field without a type takes the store's.
      try (SearchIndex index =
          MutableIndex.open(
              tmp.resolve("mapped-" + q.flag()), IndexSettings.DEFAULT, Mapping.EMPTY, config(q))) {
        assertInstanceOf(MappedIndex.class, index);
      }
    }
  }

  @Test
  void aMappingUpdateAddsAnInt4FieldAndAShortBbqOneChangesNothing() throws IOException {
    try (SearchIndex index =
        MutableIndex.open(
            tmp.resolve("m"),
            IndexSettings.DEFAULT,
            withVector("hnsw", 8),
            MutableConfig.DEFAULT)) {
      Mapping update =
          MappingJson.parse(
              new ObjectMapper()
                  .readTree(
                      "{\"properties\":{\"w\":{\"type\":\"dense_vector\",\"dims\":8,"
                          + "\"index_options\":{\"type\":\"int4_hnsw\"}}}}"),
              IndexSettings.DEFAULT);
      index.putMapping(update);
      assertEquals("int4_hnsw", index.mapping().vector("w").indexOptions().type());
      Mapping before = index.mapping();
      MappingException shortBbq =
          assertThrows(MappingException.class, () -> withVector("bbq_hnsw", 8));
      assertTrue(shortBbq.getMessage().contains("fewer than 64"), shortBbq.getMessage());
      assertEquals(before, index.mapping());
    }
  }
}
