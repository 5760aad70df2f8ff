package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.InvalidRequestException;
import org.searchlab.testing.SearchAssertions;
import org.searchlab.testing.TestSeeds;

/**
 * Dataset files round-trip through {@link Dataset#open}, the ground truth equals a naive exact
 * search, and building is deterministic. Uses {@code --source ndjson} with provided 32-d vectors so
 * no model runs.
 */
class DatasetFormatTest {
  static final int DIM = 32;
  static final String[] CATEGORIES = {"games", "net", "net", "net", "libs", "libs", "doc"};

  static PrintStream quiet() {
    return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
  }

  static DatasetBuilds.Common common(Path out, Path cache, int queries, long seed) {
    return new DatasetBuilds.Common(
        out,
        cache,
        queries,
        seed,
        2,
        () -> {
          throw new AssertionError("no model should run: every embedding is provided");
        },
        "none",
        DIM,
        quiet());
  }

  /** Random documents with skewed categories, written as NDJSON with embeddings. */
  static List<Document> writeInput(Path file, int n, long seed) throws Exception {
    SplittableRandom random = new SplittableRandom(seed);
    List<Document> docs = new ArrayList<>();
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < n; i++) {
      float[] v = new float[DIM];
      for (int j = 0; j < DIM; j++) {
        v[j] = (float) random.nextGaussian();
      }
      VectorUtil.l2normalize(v);
      String category = i % 50 == 0 ? null : CATEGORIES[random.nextInt(CATEGORIES.length)];
      Document d =
          new Document(
              "doc-" + i,
              "\"Quoted\" title number " + i + " with more than eight words in it",
              "description " + i,
              category,
              random.nextInt(10_000),
              1 + random.nextInt(40) / 10f,
              v);
      docs.add(d);
      String json = DocumentJson.toLine(d);
      StringBuilder vec = new StringBuilder(",\"embedding\":[");
      for (int j = 0; j < DIM; j++) {
        vec.append(j == 0 ? "" : ",").append(v[j]);
      }
      out.append(json, 0, json.length() - 1).append(vec).append("]}\n");
    }
    Files.writeString(file, out);
    return docs;
  }

  @Test
  void aBuiltDatasetReadsBackWithExactGroundTruth(@TempDir Path tmp) throws Exception {
    long seed = TestSeeds.seed("DatasetFormatTest.roundTrip");
    Path input = tmp.resolve("in.ndjson");
    List<Document> docs = writeInput(input, 3_000, seed);
    DatasetInfo info =
        DatasetBuilds.ndjson(common(tmp.resolve("ds"), tmp.resolve("cache"), 200, seed), input);
    assertEquals(3_000, info.documents());
    assertEquals(200, info.queries());
    assertEquals("provided", info.model());
    assertEquals(4, info.categories()); // games, net, libs, doc; null is no category

    try (Dataset ds = Dataset.open(tmp.resolve("ds"))) {
      assertEquals(info, ds.info());
      assertEquals(DIM, ds.dimension());
      try (Stream<Document> s = ds.documents()) {
        assertEquals(docs, s.toList());
      }
      assertArrayEquals(docs.get(1234).embedding(), ds.vector(1234));
      assertEquals("doc-77", ds.id(77));

      List<DatasetQuery> queries = ds.queries();
      assertEquals(200, queries.size());
      assertEquals(
          200, new HashSet<>(queries.stream().map(DatasetQuery::docOrdinal).toList()).size());
      for (DatasetQuery q : queries) {
        Document d = docs.get(q.docOrdinal());
        assertEquals(d.id(), q.docId());
        assertEquals(d.category(), q.category());
        assertArrayEquals(d.embedding(), q.vector());
        assertEquals(QuerySampler.queryText(d.title()), q.text());
        assertFalse(q.text().contains("\""));
        assertEquals(8, q.text().split(" ").length);

        int[] expectedAll = naiveTop(docs, q.vector(), null, false);
        assertArrayEquals(expectedAll, ds.groundTruth(false).neighbors(q.index()));
        int[] expectedCat = naiveTop(docs, q.vector(), q.category(), true);
        assertArrayEquals(expectedCat, ds.groundTruth(true).neighbors(q.index()));
        float[] scores = ds.groundTruth(false).scores(q.index());
        // The build and this check may run VectorUtil in different JIT tiers, which sum in
        // different orders (a run saw 0.99999994 and 0.9999999): equal up to rounding.
        float[] top = docs.get(expectedAll[0]).embedding();
        assertEquals(
            VectorUtil.dotProduct(q.vector(), top),
            scores[0],
            SearchAssertions.dotRoundingBound(q.vector(), top));
      }
    }
  }

  /** Exact top-100 by sorting every document: score descending, ordinal ascending. */
  static int[] naiveTop(List<Document> docs, float[] q, String category, boolean filtered) {
    float[] scores = new float[docs.size()];
    for (int i = 0; i < scores.length; i++) {
      scores[i] = VectorUtil.dotProduct(q, docs.get(i).embedding());
    }
    return IntStream.range(0, docs.size())
        .filter(i -> !filtered || (category != null && category.equals(docs.get(i).category())))
        .boxed()
        .sorted(
            Comparator.comparingDouble((Integer i) -> -scores[i])
                .thenComparingInt(Integer::intValue))
        .limit(DatasetWriter.GROUND_TRUTH_K)
        .mapToInt(Integer::intValue)
        .toArray();
  }

  @Test
  void vectorsAreLittleEndianFvecs(@TempDir Path tmp) throws Exception {
    Path input = tmp.resolve("in.ndjson");
    List<Document> docs = writeInput(input, 10, 7);
    DatasetBuilds.ndjson(common(tmp.resolve("ds"), tmp.resolve("cache"), 5, 1), input);
    ByteBuffer b =
        ByteBuffer.wrap(Files.readAllBytes(tmp.resolve("ds").resolve(Dataset.VECTORS_FILE)))
            .order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(10 * 4 * (DIM + 1), b.capacity());
    b.position(3 * 4 * (DIM + 1));
    assertEquals(DIM, b.getInt());
    assertEquals(docs.get(3).embedding()[0], b.getFloat());
  }

  @Test
  void buildingIsDeterministicAndTheSeedChoosesTheQueries(@TempDir Path tmp) throws Exception {
    long seed = TestSeeds.seed("DatasetFormatTest.determinism");
    Path input = tmp.resolve("in.ndjson");
    writeInput(input, 500, seed);
    DatasetBuilds.ndjson(common(tmp.resolve("a"), tmp.resolve("cache"), 100, seed), input);
    DatasetBuilds.ndjson(common(tmp.resolve("b"), tmp.resolve("cache"), 100, seed), input);
    DatasetBuilds.ndjson(common(tmp.resolve("c"), tmp.resolve("cache"), 100, seed + 1), input);
    for (String f :
        List.of(
            Dataset.DOCS_FILE,
            Dataset.VECTORS_FILE,
            Dataset.QUERIES_FILE,
            Dataset.GROUND_TRUTH_ALL + ".ivecs",
            Dataset.GROUND_TRUTH_CATEGORY + ".fvecs",
            Dataset.INFO_FILE)) {
      assertArrayEquals(
          Files.readAllBytes(tmp.resolve("a").resolve(f)),
          Files.readAllBytes(tmp.resolve("b").resolve(f)),
          f);
    }
    assertNotEquals(
        Files.readString(tmp.resolve("a").resolve(Dataset.QUERIES_FILE)),
        Files.readString(tmp.resolve("c").resolve(Dataset.QUERIES_FILE)));
  }

  @Test
  void samplingIsAPrefixOfOneSeededShuffle() {
    int[] a = QuerySampler.sample(10_000, 1_000, 42);
    assertArrayEquals(a, QuerySampler.sample(10_000, 1_000, 42));
    assertEquals(1_000, IntStream.of(a).distinct().count());
    assertTrue(IntStream.of(a).allMatch(i -> i >= 0 && i < 10_000));
    assertFalse(java.util.Arrays.equals(a, QuerySampler.sample(10_000, 1_000, 43)));
    int[] all = QuerySampler.sample(50, 50, 3);
    assertEquals(50, IntStream.of(all).distinct().count());
  }

  @Test
  void idsAreReadFromTheFirstFieldOrWhereverTheyAre() {
    assertEquals("a", DocumentJson.id("{\"id\":\"a\",\"title\":\"x\"}"));
    assertEquals("b", DocumentJson.id("{\"title\":\"x\",\"id\":\"b\"}"));
    assertEquals("7", DocumentJson.id("{\"id\":7}"));
    assertThrows(InvalidRequestException.class, () -> DocumentJson.id("{\"title\":\"x\"}"));
  }

  @Test
  void queryTextIsTheFirstEightWordsWithoutQuotes() {
    assertEquals(
        "GNU C compiler for the x86 architecture, with",
        QuerySampler.queryText("GNU C compiler for the \"x86\" architecture, with extras"));
    assertEquals("short title", QuerySampler.queryText("  short   “title”  "));
  }

  @Test
  void badInputIsRejectedWithTheLineNumber(@TempDir Path tmp) throws Exception {
    Path input = tmp.resolve("bad.ndjson");
    Files.writeString(input, "{\"id\":\"a\",\"title\":\"t\"}\n{\"title\":\"no id\"}\n");
    InvalidRequestException e =
        assertThrows(
            InvalidRequestException.class,
            () -> DatasetBuilds.ndjson(common(tmp.resolve("ds"), tmp.resolve("c"), 1, 1), input));
    assertTrue(e.getMessage().contains("bad.ndjson:2"), e.getMessage());
    assertFalse(Files.exists(tmp.resolve("ds").resolve(Dataset.INFO_FILE)));
  }
}
