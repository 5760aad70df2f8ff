package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.server.embed.MiniLmEmbedder;
import org.searchlab.testing.TestSeeds;

/**
 * The relevance sanity check of the real model on real text: a Debian sample of 1,000 packages
 * (checked in; every 63rd package of bookworm main by name) is built into a dataset with the
 * server's MiniLM embedder; then for 200 sampled documents the title alone, embedded as the server
 * embeds query text, must find its document among the exact top 10 for at least 90% of them. A
 * second build must come entirely from the embedding cache and give identical files.
 */
class RelevanceSanityTest {
  @Test
  void titlesFindTheirDocumentsAndARebuildComesFromTheCache(@TempDir Path tmp) throws Exception {
    Path cache = tmp.resolve("cache");
    List<Path> packages = List.of(DebianCatalogueTest.resource("debian-sample_Packages.gz"));
    List<Path> translations =
        List.of(DebianCatalogueTest.resource("debian-sample_i18n_Translation-en.gz"));
    DatasetBuilds.Common first =
        new DatasetBuilds.Common(
            tmp.resolve("a"),
            cache,
            100,
            42,
            2,
            () -> MiniLmEmbedder.create(2),
            MiniLmEmbedder.MODEL,
            MiniLmEmbedder.DIMENSION,
            System.out);
    DatasetInfo info = DatasetBuilds.debian(first, packages, translations, 0);
    assertEquals(1000, info.documents());
    assertEquals(384, info.dimension());

    List<Document> docs;
    try (Dataset ds = Dataset.open(tmp.resolve("a"));
        Stream<Document> s = ds.documents()) {
      docs = s.toList();
    }
    int[] sampled = QuerySampler.sample(docs.size(), 200, TestSeeds.seed("RelevanceSanityTest"));
    List<String> titles = new ArrayList<>();
    for (int i : sampled) {
      titles.add(docs.get(i).title());
    }
    List<float[]> queries;
    try (MiniLmEmbedder embedder = MiniLmEmbedder.create(2)) {
      queries = embedder.embedAll(titles);
    }
    int found = 0;
    for (int q = 0; q < sampled.length; q++) {
      int[] top = DatasetFormatTest.naiveTop(docs, queries.get(q), null, false);
      for (int r = 0; r < 10; r++) {
        if (top[r] == sampled[q]) {
          found++;
          break;
        }
      }
    }
    double rate = found / (double) sampled.length;
    System.out.printf("title -> own document in top 10: %d of %d (%.3f)%n", found, 200, rate);
    assertTrue(rate >= 0.9, "only " + found + " of 200 titles found their document in the top 10");

    DatasetBuilds.Common rebuild =
        new DatasetBuilds.Common(
            tmp.resolve("b"),
            cache,
            100,
            42,
            2,
            () -> {
              throw new AssertionError("a rebuild must not run the model");
            },
            MiniLmEmbedder.MODEL,
            MiniLmEmbedder.DIMENSION,
            System.out);
    DatasetBuilds.debian(rebuild, packages, translations, 0);
    for (String f :
        List.of(
            Dataset.VECTORS_FILE,
            Dataset.DOCS_FILE,
            Dataset.QUERIES_FILE,
            Dataset.GROUND_TRUTH_ALL + ".ivecs",
            Dataset.GROUND_TRUTH_CATEGORY + ".fvecs")) {
      assertArrayEquals(
          Files.readAllBytes(tmp.resolve("a").resolve(f)),
          Files.readAllBytes(tmp.resolve("b").resolve(f)),
          f);
    }

    // The ndjson source computes only the missing embeddings, through the same cache.
    Path input = tmp.resolve("mixed.ndjson");
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      lines.append(DocumentJson.toLine(docs.get(i))).append('\n');
    }
    Files.writeString(input, lines);
    DatasetBuilds.ndjson(
        new DatasetBuilds.Common(
            tmp.resolve("c"),
            cache,
            5,
            1,
            2,
            () -> {
              throw new AssertionError("these texts are cached");
            },
            MiniLmEmbedder.MODEL,
            MiniLmEmbedder.DIMENSION,
            System.out),
        input);
    try (Dataset c = Dataset.open(tmp.resolve("c"))) {
      for (int i = 0; i < 20; i++) {
        assertArrayEquals(docs.get(i).embedding(), c.vector(i));
      }
      assertEquals(MiniLmEmbedder.MODEL, c.info().model());
      assertTrue(VectorUtil.dotProduct(c.vector(0), c.vector(0)) > 0.9999f);
    }
  }
}
