package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Operation;
import org.searchlab.core.Schema;
import org.searchlab.core.VectorQuantization;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.MappingJson;
import org.searchlab.testing.BaseVectorMemoryTestCase;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * Bytes per vector of the segmented store, read from its segments' vector files ({@code .vec},
 * {@code .veq}; Lucene does not report the graph's {@code .vex} here).
 */
class VectorMemoryTest extends BaseVectorMemoryTestCase {
  @TempDir Path tmp;

  /**
   * Lucene's {@code KnnVectorsReader#getOffHeapByteSize} reports the flat vector files always and
   * the graph's {@code .vex} only for some segments (not for these two of 300 vectors; the
   * experiment's tests see it for others).
   */
  @Override
  protected boolean reportsGraph() {
    return false;
  }

  /**
   * Elasticsearch's {@code int4_hnsw} through Lucene's 4-bit codes: two components a byte plus
   * Lucene's per-vector corrections, at most 15% of the floats, which the store still keeps and
   * reports on their own.
   */
  @Test
  void int4CodesAreAtMostFifteenPercentOfTheFloats() throws IOException {
    assertCodesAtMost(VectorQuantization.INT4, 0.15, DIM / 2);
  }

  /**
   * Elasticsearch's {@code bbq_hnsw} through Lucene's 1-bit codes: eight components a byte plus the
   * corrections, at most 5% of the floats.
   */
  @Test
  void bbqCodesAreAtMostFivePercentOfTheFloats() throws IOException {
    assertCodesAtMost(VectorQuantization.BBQ, 0.05, DIM / 8);
  }

  /**
   * A mapping's per-field {@code index_options.type} picks the field's codes whatever the store's
   * default (floats here): {@code hnsw} keeps none, {@code int4_hnsw} and {@code bbq_hnsw} codes of
   * their width (an int8 code, 384 bytes, would fail both bounds).
   */
  @Test
  void aFieldsIndexOptionsTypePicksItsCodes() throws IOException {
    Map<String, Long> hnsw = mappedPerVector("hnsw");
    assertFalse(hnsw.containsKey("int8"), hnsw.toString());
    Map<String, Long> int4 = mappedPerVector("int4_hnsw");
    assertTrue(int4.get("int8") >= DIM / 2 && int4.get("int8") < DIM / 2 + 64, int4.toString());
    Map<String, Long> bbq = mappedPerVector("bbq_hnsw");
    assertTrue(bbq.get("int8") >= DIM / 8 && bbq.get("int8") < DIM / 8 + 64, bbq.toString());
  }

  private Map<String, Long> mappedPerVector(String type) throws IOException {
    Mapping mapping =
        MappingJson.parse(
            new ObjectMapper()
                .readTree(
                    ("{'properties':{'embedding':{'type':'dense_vector','dims':"
                            + DIM
                            + ",'similarity':'dot_product','index_options':{'type':'"
                            + type
                            + "'}}}}")
                        .replace('\'', '"')),
            IndexSettings.DEFAULT);
    SyntheticCorpus corpus = corpus(VectorQuantization.NONE);
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(
            tmp.resolve("mapped-" + type),
            IndexSettings.DEFAULT,
            mapping,
            SegmentCountTest.ONE_PER_BATCH)) {
      List<Operation> ops = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        ops.add(
            Operation.put(
                new Document("d" + i, Map.of("embedding", corpus.document(i).embedding()))));
      }
      for (BulkItemResult r : index.bulk(ops)) {
        assertFalse(r.failed(), () -> String.valueOf(r.error()));
      }
      index.refresh();
      Map<String, Long> m = index.stats().vectorBytesPerVector();
      System.out.println("[bytes per vector] mapped " + type + ": " + m);
      return m;
    }
  }

  /**
   * The codes ({@code int8}, the key of every width) are at least {@code packed} bytes (the raw
   * code, so an int8-sized code fails) and at most {@code share} of the floats, which are reported
   * separately at four bytes a component.
   */
  private void assertCodesAtMost(VectorQuantization q, double share, int packed)
      throws IOException {
    Map<String, Long> m = perVector(q);
    Long floats = m.get("float");
    Long codes = m.get("int8");
    System.out.printf(
        "[bytes per vector] %s %s: %s (codes %.1f%% of the floats)%n",
        getClass().getSimpleName(), q.flag(), m, codes == null ? 0 : 100.0 * codes / floats);
    assertTrue(floats != null && floats >= 4L * DIM && floats < 4L * DIM + 64, m.toString());
    assertTrue(codes != null && codes >= packed, m.toString());
    assertTrue(codes <= share * floats, m.toString());
  }

  @Override
  protected Map<String, Long> perVector(VectorQuantization q) throws IOException {
    SyntheticCorpus corpus = corpus(q);
    SegmentedConfig config = SegmentCountTest.ONE_PER_BATCH.toBuilder().quantization(q).build();
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(tmp.resolve(q.flag()), new Schema(DIM), config)) {
      SegmentCountTest.feedBatches(index, corpus, 2, 300);
      index.refresh();
      return index.stats().vectorBytesPerVector();
    }
  }
}
