package org.searchlab.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.embed.Embedder;
import org.searchlab.server.embed.MiniLmEmbedder;
import org.searchlab.testing.TestSeeds;

class QueryFileTest {
  private static final Corpus CORPUS =
      Corpus.synthetic(TestSeeds.seed("QueryFileTest"), 300, 4, 10);

  private static Embedder noEmbedder() {
    throw new AssertionError("no line needs an embedding");
  }

  @Test
  void readsTextVectorAndCategoryAndNormalises(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("q.ndjson");
    String category = CORPUS.docs().get(0).category();
    Files.writeString(
        f,
        "{\"text\":\"red shoes\",\"vector\":[3,0,0,4],\"category\":\""
            + category
            + "\"}\n\n"
            + "{\"text\":\"blue\",\"vector\":[0,0,2,0]}\n");
    List<BenchQuery> qs = QueryFile.read(f, CORPUS.docs(), QueryFileTest::noEmbedder);
    assertEquals(2, qs.size());
    assertEquals("red shoes", qs.get(0).text());
    assertArrayEquals(new float[] {0.6f, 0, 0, 0.8f}, qs.get(0).vector(), 1e-6f);
    assertEquals(category, qs.get(0).category());
    assertEquals("query-1", qs.get(0).sourceId());
    assertEquals("query-3", qs.get(1).sourceId());
    // no category: the nearest document's
    float best = Float.NEGATIVE_INFINITY;
    String nearest = null;
    for (var d : CORPUS.docs()) {
      if (d.category() != null && d.embedding()[2] > best) {
        best = d.embedding()[2];
        nearest = d.category();
      }
    }
    assertEquals(nearest, qs.get(1).category());
  }

  @Test
  void badLinesFailWithTheirLineNumber(@TempDir Path dir) throws Exception {
    for (String[] c :
        new String[][] {
          {"{\"vector\":[1,0,0,0]}", "line 2: needs a non-blank string \"text\""},
          {"{\"text\":\"x\",\"vector\":[1,0]}", "line 2: \"vector\" must be an array of 4"},
          {"{\"text\":\"x\",\"vector\":[0,0,0,0]}", "line 2: \"vector\" has no direction"},
          {"{\"text\":\"x\",\"vector\":[1,0,0,0],\"category\":7}", "line 2: \"category\""},
          {"not json", "line 2: not JSON"},
          {"{\"text\":\"x\"}", "line 2 has no \"vector\", and the minilm embedder makes 384-d"},
        }) {
      Path f = dir.resolve("bad.ndjson");
      Files.writeString(f, "{\"text\":\"fine\",\"vector\":[1,0,0,0]}\n" + c[0] + "\n");
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> QueryFile.read(f, CORPUS.docs(), () -> MiniLmEmbedder.create(1)));
      assertTrue(e.getMessage().contains(c[1]), e.getMessage() + " should say " + c[1]);
    }
    Path empty = dir.resolve("empty.ndjson");
    Files.writeString(empty, "\n");
    assertThrows(
        IllegalArgumentException.class,
        () -> QueryFile.read(empty, CORPUS.docs(), QueryFileTest::noEmbedder));
  }

  @Test
  void embedsTheTextOrTheEmbedFieldWithMiniLm(@TempDir Path dir) throws Exception {
    Corpus c384 = Corpus.synthetic(TestSeeds.seed("QueryFileTest.384"), 50, 384, 5);
    Path f = dir.resolve("q.ndjson");
    Files.writeString(
        f, "{\"text\":\"text editor\"}\n{\"text\":\"vim\",\"embed\":\"a modal text editor\"}\n");
    List<BenchQuery> qs = QueryFile.read(f, c384.docs(), () -> MiniLmEmbedder.create(1));
    try (MiniLmEmbedder e = MiniLmEmbedder.create(1)) {
      assertArrayEquals(e.embed("text editor"), qs.get(0).vector(), 1e-6f);
      assertArrayEquals(e.embed("a modal text editor"), qs.get(1).vector(), 1e-6f);
    }
    assertEquals("vim", qs.get(1).text());
  }
}
