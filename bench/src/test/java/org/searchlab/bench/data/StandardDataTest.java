package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
import org.searchlab.testing.TestSeeds;

/**
 * The standard profile's data: a Debian corpus already built under the home directory is reused as
 * it is, and a corpus smaller than the profile is extended with synthetic variants of its own
 * documents, which the source line reports, unless the profile takes its data from {@link
 * StandardData#forSize}, which grows Debian by the default generator into a dataset of its own
 * ({@link StandardData#grown}: built once, reused while it serves, rebuilt otherwise). Builds a
 * 50-package Debian corpus from the checked-in sample lists with the real model.
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

    // A profile that needs 150 documents gets Debian grown to 150 by the default generator.
    StandardData.Choice grown = StandardData.forSize(home, 150, DatasetFormatTest.quiet());
    assertEquals(home.resolve("data").resolve("debian-150"), grown.dataset(), grown.reason());
    Corpus big = Corpus.fromDataset(grown.dataset(), 150, 20, 7);
    assertEquals(real, big.docs().subList(0, 50), "the real documents come first, unchanged");
    assertTrue(big.docs().get(120).id().contains("~s"), big.docs().get(120).id());
    assertFalse(big.source().contains("variants"), big.source());
    assertEquals(dir, StandardData.forSize(home, 50, DatasetFormatTest.quiet()).dataset());
  }

  @Test
  void aGrownCorpusIsBuiltOnceAndReusedWhileItServes(@TempDir Path tmp) throws Exception {
    long seed = TestSeeds.seed("StandardDataTest.grown");
    Path input = tmp.resolve("in.ndjson");
    DatasetFormatTest.writeInput(input, 200, seed);
    Path base = tmp.resolve("base");
    DatasetBuilds.ndjson(DatasetFormatTest.common(base, tmp.resolve("cache"), 20, seed), input);
    Path dir = tmp.resolve("grown");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(log, true, StandardCharsets.UTF_8);

    StandardData.Choice built = StandardData.grown(base, dir, tmp.resolve("cache"), 900, 1, out);
    assertEquals(dir, built.dataset(), built.reason());
    assertTrue(built.reason().contains("built by this run"), built.reason());
    try (Dataset ds = Dataset.open(dir)) {
      assertEquals(900, ds.size());
      assertEquals("debian-mixes", ds.info().source());
      assertTrue(ds.info().model().endsWith("+" + TangentSteps.Params.DEFAULT), ds.info().model());
    }
    long written = Files.getLastModifiedTime(dir.resolve(Dataset.DOCS_FILE)).toMillis();
    String realism = Files.readString(dir.resolve(RealismReport.MARKDOWN));
    assertTrue(realism.contains("| real (base) | grown (grown) |"), realism);
    assertTrue(realism.contains("| documents | 200 | 900 |"), realism);

    StandardData.Choice again = StandardData.grown(base, dir, tmp.resolve("cache"), 700, 1, out);
    assertEquals(dir, again.dataset());
    assertTrue(again.reason().contains("cached"), again.reason());
    assertEquals(written, Files.getLastModifiedTime(dir.resolve(Dataset.DOCS_FILE)).toMillis());

    StandardData.Choice larger = StandardData.grown(base, dir, tmp.resolve("cache"), 1_100, 1, out);
    assertTrue(larger.reason().contains("built by this run"), larger.reason());
    assertTrue(log.toString(StandardCharsets.UTF_8).contains("rebuilding it"));
    try (Dataset ds = Dataset.open(dir)) {
      assertEquals(1_100, ds.size());
    }
    assertTrue(
        Files.readString(dir.resolve(RealismReport.MARKDOWN)).contains("| 200 | 1,100 |"),
        "the rebuilt corpus has its own realism table");

    StandardData.Choice missing =
        StandardData.grown(tmp.resolve("nothing"), tmp.resolve("g2"), tmp, 900, 1, out);
    assertNull(missing.dataset());
    assertTrue(missing.reason().startsWith("synthetic data: Debian could not be grown"));
    assertEquals("debian-1m", StandardData.grownName(1_000_000));
    assertEquals("debian-300000", StandardData.grownName(300_000));
  }
}
