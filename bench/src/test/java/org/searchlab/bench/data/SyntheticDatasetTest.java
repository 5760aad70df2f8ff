package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.testing.TestSeeds;

/** {@code --source synthetic}: variants of a base dataset, and core's generator without one. */
class SyntheticDatasetTest {
  @Test
  void variantsScaleABaseWithDocumentedNoiseAndRealText(@TempDir Path tmp) throws Exception {
    long seed = TestSeeds.seed("SyntheticDatasetTest.variants");
    Path input = tmp.resolve("in.ndjson");
    List<Document> base = DatasetFormatTest.writeInput(input, 400, seed);
    DatasetBuilds.ndjson(
        DatasetFormatTest.common(tmp.resolve("base"), tmp.resolve("cache"), 50, seed), input);

    double noise = 0.05;
    DatasetInfo info =
        DatasetBuilds.synthetic(
            DatasetFormatTest.common(tmp.resolve("big"), tmp.resolve("cache"), 100, seed),
            2_000,
            tmp.resolve("base"),
            noise,
            0);
    assertEquals(2_000, info.documents());
    assertEquals(noise, info.noise());
    assertEquals("synthetic", info.source());
    try (Dataset ds = Dataset.open(tmp.resolve("big"));
        Stream<Document> s = ds.documents()) {
      List<Document> docs = s.toList();
      assertEquals(base, docs.subList(0, 400), "round 0 is the base corpus unchanged");
      double cosines = 0;
      for (int i = 400; i < docs.size(); i++) {
        Document v = docs.get(i);
        Document b = base.get(i % 400);
        assertEquals(b.id() + "~" + (i / 400), v.id());
        assertEquals(b.title(), v.title());
        assertEquals(b.category(), v.category());
        new Schema(DatasetFormatTest.DIM).validateVector("variant", v.embedding());
        cosines += VectorUtil.dotProduct(v.embedding(), b.embedding());
      }
      // E[cos] ≈ 1 / sqrt(1 + σ²·d) = 1 / sqrt(1 + 0.0025·32) ≈ 0.962
      double mean = cosines / 1_600;
      assertTrue(Math.abs(mean - 1 / Math.sqrt(1 + noise * noise * 32)) < 0.01, "mean " + mean);
    }
    SyntheticVariants again = new SyntheticVariants(base, 2_000, seed, noise);
    assertEquals(
        again.variant(1_234), new SyntheticVariants(base, 2_000, seed, noise).variant(1_234));
    assertSame(base.get(5), again.variant(5));
  }

  @Test
  void recombinedTextJoinsTheHalvesOfTwoRealDescriptions() {
    assertEquals(
        "One. Two. Five. Six.",
        SyntheticVariants.recombine("One. Two. Three.", "Four. Five. Six."));
    assertEquals("Only.", SyntheticVariants.recombine("Only.", ""));
  }

  @Test
  void withoutABaseTheCoreGeneratorIsUsed(@TempDir Path tmp) throws Exception {
    long seed = TestSeeds.seed("SyntheticDatasetTest.generator");
    DatasetInfo info =
        DatasetBuilds.synthetic(
            DatasetFormatTest.common(tmp.resolve("gen"), tmp.resolve("cache"), 50, seed),
            1_500,
            null,
            0,
            48);
    assertEquals(48, info.dimension());
    assertEquals("synthetic-generator", info.model());
    try (Dataset ds = Dataset.open(tmp.resolve("gen"))) {
      assertEquals(1_500, ds.size());
      assertEquals(50, ds.queries().size());
      assertEquals(50, ds.groundTruth(false).queries());
      assertEquals(100, ds.groundTruth(false).neighbors(0).length);
      // The build streams the generator to disk (a million documents fit in a 1 GB heap): what it
      // wrote is what the generator gives in memory, and the queries are sampled from all
      // documents as before --query-pool existed.
      try (Stream<Document> s = ds.documents()) {
        assertEquals(
            new org.searchlab.testing.data.SyntheticCorpus(seed, 48).documents(1_500), s.toList());
      }
      int[] sampled = QuerySampler.sample(1_500, 50, seed);
      for (int q = 0; q < 50; q++) {
        assertEquals(sampled[q], ds.queries().get(q).docOrdinal());
      }
    }
  }
}
