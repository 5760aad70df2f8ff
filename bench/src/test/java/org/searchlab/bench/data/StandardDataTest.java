package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.bench.experiment.BenchQuery;
import org.searchlab.bench.experiment.Corpus;
import org.searchlab.core.Document;
import org.searchlab.server.embed.MiniLmEmbedder;

/**
 * The standard profile's data: a Debian corpus already built under the home directory is reused as
 * it is, and a corpus smaller than the profile is extended with synthetic variants of its own
 * documents, which the source line reports. Builds a 50-package Debian corpus from the checked-in
 * sample lists with the real model.
 */
class StandardDataTest {
  @Test
  void aCachedDebianCorpusIsReusedAndExtendedToTheProfilesSize(@TempDir Path home)
      throws Exception {
    Path dir = StandardData.debianDirectory(home);
    DatasetBuilds.debian(
        new DatasetBuilds.Common(
            dir,
            home.resolve("data").resolve("cache"),
            40,
            42,
            2,
            () -> MiniLmEmbedder.create(2),
            MiniLmEmbedder.MODEL,
            MiniLmEmbedder.DIMENSION,
            DatasetFormatTest.quiet()),
        List.of(DebianCatalogueTest.resource("debian-sample_Packages.gz")),
        List.of(DebianCatalogueTest.resource("debian-sample_i18n_Translation-en.gz")),
        50);
    FileTime built = Files.getLastModifiedTime(dir.resolve(Dataset.INFO_FILE));

    StandardData.Choice choice = StandardData.debian(home, DatasetFormatTest.quiet());
    assertEquals(dir, choice.dataset());
    assertTrue(choice.reason().contains("cached"), choice.reason());
    assertEquals(built, Files.getLastModifiedTime(dir.resolve(Dataset.INFO_FILE)), "not rebuilt");

    List<Document> real;
    try (Dataset ds = Dataset.open(dir);
        Stream<Document> s = ds.documents()) {
      real = s.toList();
    }
    assertEquals(50, real.size());
    Corpus corpus = Corpus.fromDataset(dir, 150, 20, 7);
    assertEquals(150, corpus.docs().size());
    assertEquals(real, corpus.docs().subList(0, 50), "the real documents come first, unchanged");
    for (int i = 50; i < 150; i++) {
      Document variant = corpus.docs().get(i);
      assertEquals(real.get(i % 50).id() + "~" + (i / 50), variant.id());
      assertEquals(real.get(i % 50).category(), variant.category());
    }
    assertTrue(corpus.source().startsWith("debian dataset "), corpus.source());
    assertTrue(corpus.source().contains("+ 100 synthetic variants"), corpus.source());
    assertEquals(20, corpus.queries().size());
    for (BenchQuery q : corpus.queries()) {
      assertFalse(q.sourceId().contains("~"), "queries come from real documents: " + q.sourceId());
    }

    Corpus exact = Corpus.fromDataset(dir, 50, 20, 7);
    assertEquals(real, exact.docs());
    assertFalse(exact.source().contains("variants"), exact.source());
  }
}
