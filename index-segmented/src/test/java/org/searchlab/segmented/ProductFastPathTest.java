package org.searchlab.segmented;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.BulkItemResult;
import org.searchlab.core.Document;
import org.searchlab.core.Filter;
import org.searchlab.core.Fusion;
import org.searchlab.core.Hit;
import org.searchlab.core.Operation;
import org.searchlab.core.SearchRequest;
import org.searchlab.core.SearchResult;
import org.searchlab.core.mapping.FieldType;
import org.searchlab.core.mapping.IndexSettings;
import org.searchlab.core.mapping.Mapping;
import org.searchlab.core.mapping.NumberType;
import org.searchlab.testing.TestSeeds;
import org.searchlab.testing.data.SyntheticCorpus;

/**
 * The benchmark's requests over an index of the benchmark's mapping take the query building made
 * for them (the fast path); it returns exactly what the general translation returns for the same
 * request on the same point-in-time reader: the same hits in the same order, the same scores, the
 * same totals.
 */
class ProductFastPathTest {
  private static final int DIMS = 16;

  @TempDir Path tmp;

  @Test
  void fastPathEqualsTheGeneralTranslation() throws IOException {
    long seed = TestSeeds.seed("ProductFastPathTest.fastPathEqualsTheGeneralTranslation");
    SplittableRandom random = new SplittableRandom(seed);
    SyntheticCorpus corpus = new SyntheticCorpus(seed, DIMS);
    // Three segments, so collection statistics span several of them.
    SegmentedConfig config = SegmentedConfig.builder().segmentPerBatch(true).build();
    try (LuceneSegmentedIndex index =
        LuceneSegmentedIndex.open(
            tmp.resolve("idx"), IndexSettings.DEFAULT, Mapping.product(DIMS), config)) {
      assertTrue(ProductFastPath.fits(index.mapping(), config));
      List<Document> docs = new ArrayList<>(corpus.documents(900));
      // Any mapping lets a document hold several prices; the fast path finds them too.
      for (int i = 0; i < docs.size(); i += 7) {
        Document d = docs.get(i);
        java.util.Map<String, Object> source = new java.util.LinkedHashMap<>(d.source());
        source.put("price", List.of((long) d.price(), (long) d.price() + 500));
        docs.set(i, d.withSource(source));
      }
      for (int from = 0; from < docs.size(); from += 300) {
        List<Operation> ops = new ArrayList<>();
        for (Document d : docs.subList(from, from + 300)) {
          ops.add(Operation.put(d));
        }
        for (BulkItemResult r : index.bulk(ops)) {
          assertFalse(r.failed(), () -> String.valueOf(r.error()));
        }
      }
      index.refresh();
      List<String> categories = corpus.categories();
      int withHits = 0;
      for (int q = 0; q < 60; q++) {
        SearchRequest.Builder b = SearchRequest.builder().hits(1 + random.nextInt(30));
        int profile = q % 4;
        if (profile != 1) {
          b.text(corpus.randomQueryText(random, 1 + random.nextInt(4)));
        }
        if (profile == 1 || profile == 2) {
          b.vector(corpus.randomQueryVector(random)).targetHits(5 + random.nextInt(30));
        }
        if (profile == 2 && random.nextBoolean()) {
          b.fusion(Fusion.RRF);
        }
        Filter f = Filter.ALL;
        if (random.nextBoolean()) {
          f = Filter.category(categories.get(random.nextInt(categories.size())));
        }
        if (random.nextInt(3) == 0) {
          int min = random.nextInt(500);
          f = f.withPrice(new Filter.PriceRange(min, min + random.nextInt(2000)));
        }
        if (profile == 3 && random.nextBoolean()) {
          b = SearchRequest.builder().hits(20); // unranked: the filter alone
        }
        SearchRequest req = b.filter(f).fetchDocuments(q % 5 == 0).build();
        assertTrue(req.productShape().isPresent(), req::toString);
        SearchResult[] both = index.searcher().searchBothWays(req);
        String what = "seed " + seed + ", " + req;
        assertEquals(both[1].total(), both[0].total(), what);
        assertEquals(both[1].hits().size(), both[0].hits().size(), what);
        withHits += both[0].hits().isEmpty() ? 0 : 1;
        for (int i = 0; i < both[0].hits().size(); i++) {
          Hit fast = both[0].hits().get(i);
          Hit general = both[1].hits().get(i);
          assertEquals(general.id(), fast.id(), what + " at " + i);
          assertEquals(general.score(), fast.score(), 1e-6f, what + " at " + i);
          assertEquals(general.document(), fast.document(), what);
        }
      }
      assertTrue(withHits >= 30, "only " + withHits + " of 60 requests found anything");
    }
  }

  @Test
  void anotherMappingOfTheProductFieldsTakesTheGeneralPath() {
    Mapping indexedPrice =
        Mapping.product(DIMS).with("price", new FieldType.Numeric(NumberType.INTEGER, true, true));
    assertFalse(ProductFastPath.fits(indexedPrice, SegmentedConfig.DEFAULT));
    assertTrue(ProductFastPath.fits(Mapping.product(DIMS), SegmentedConfig.DEFAULT));
  }

  /**
   * {@code serve} writes the product mapping with the graph settings it configured the store with;
   * the benchmark's requests on it must take the fast path, as they did before indexes had
   * mappings. Other graph settings are another format: the general path.
   */
  @Test
  void theProductMappingAsServeWritesItTakesTheFastPath() {
    SegmentedConfig c = SegmentedConfig.DEFAULT;
    Mapping asServe =
        Mapping.product(
            DIMS,
            new FieldType.IndexOptions(
                c.quantization().esIndexType(), c.hnswM(), c.hnswBeamWidth()));
    assertTrue(ProductFastPath.fits(asServe, c));
    Mapping otherGraph =
        Mapping.product(DIMS, new FieldType.IndexOptions("hnsw", c.hnswM() * 2, c.hnswBeamWidth()));
    assertFalse(ProductFastPath.fits(otherGraph, c));
    Mapping int8 =
        Mapping.product(
            DIMS, new FieldType.IndexOptions("int8_hnsw", c.hnswM(), c.hnswBeamWidth()));
    assertFalse(ProductFastPath.fits(int8, c)); // the default config keeps float vectors
  }
}
