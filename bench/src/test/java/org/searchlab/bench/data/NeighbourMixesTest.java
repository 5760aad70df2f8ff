package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.lucene.util.VectorUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.testing.TestSeeds;

/**
 * {@link NeighbourMixes}: deterministic per seed and nested by size, unit vectors that are the
 * weighted mean of parents drawn from the primary's nearest neighbours, text made only of the
 * parents' text with every parent's first sentence inside the model's window.
 */
class NeighbourMixesTest {
  static final int DIM = 16;

  /** Base documents in a few clusters, with numbered words so each word names its document. */
  static List<Document> base(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[][] centres = new float[8][DIM];
    for (float[] c : centres) {
      for (int j = 0; j < DIM; j++) {
        c[j] = (float) r.nextGaussian();
      }
    }
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      float[] v = centres[r.nextInt(centres.length)].clone();
      for (int j = 0; j < DIM; j++) {
        v[j] += (float) (0.6 * r.nextGaussian());
      }
      VectorUtil.l2normalize(v);
      StringBuilder title = new StringBuilder();
      int titleWords = 1 + r.nextInt(9);
      for (int w = 0; w < titleWords; w++) {
        title.append(w == 0 ? "" : " ").append("t").append(i).append('w').append(w);
      }
      StringBuilder description = new StringBuilder();
      int count = r.nextInt(6);
      for (int s = 0; s < count; s++) {
        // One sentence in four is longer than the window, as Debian's long first sentences are.
        int words = r.nextInt(4) == 0 ? 45 + r.nextInt(40) : 3 + r.nextInt(15);
        for (int w = 0; w < words; w++) {
          description.append(w == 0 ? "" : " ").append("d").append(i).append('s').append(s);
          description.append('w').append(w);
        }
        description.append(". ");
      }
      docs.add(
          new Document(
              "pkg-" + i,
              title.toString(),
              description.toString().strip(),
              "c" + (i % 5),
              100 + i,
              3f,
              v));
    }
    return docs;
  }

  static float[][] vectors(List<Document> docs) {
    return docs.stream().map(Document::embedding).toArray(float[][]::new);
  }

  @Test
  void mixesAreDeterministicNestedNormalisedAndMadeOfTheirParents() {
    long seed = TestSeeds.seed("NeighbourMixesTest.mixes");
    List<Document> base = base(300, seed);
    NeighbourMixes.Params params = new NeighbourMixes.Params(3, 10, 1.0);
    int[][] neighbours = BaseNeighbours.compute(vectors(base), 10, 2);
    int n = 300 * 5 + 123;
    NeighbourMixes mixes = new NeighbourMixes(base, neighbours, params, n, seed);
    List<Document> docs = new ArrayList<>();
    mixes.forEachRemaining(docs::add);
    assertEquals(n, docs.size());
    assertEquals(n, new HashSet<>(docs.stream().map(Document::id).toList()).size(), "unique ids");
    for (int i = 0; i < 300; i++) {
      assertSame(base.get(i), docs.get(i), "the base comes first, unchanged");
    }
    NeighbourMixes larger = new NeighbourMixes(base, neighbours, params, 4 * n, seed);
    NeighbourMixes other = new NeighbourMixes(base, neighbours, params, n, seed + 1);
    int differ = 0;
    for (int i = 300; i < n; i += 7) {
      assertEquals(docs.get(i), larger.document(i), "document " + i + " does not depend on size");
      differ += docs.get(i).equals(other.document(i)) ? 0 : 1;
    }
    assertTrue(differ > 0, "another seed gives other documents");

    Set<Integer>[] seenPrimaries = newSets(4);
    for (int i = 300; i < n; i++) {
      Document d = docs.get(i);
      int[] p = mixes.parents(i);
      double[] w = mixes.weights(i);
      assertEquals(3, p.length);
      assertEquals(3, new HashSet<>(Arrays.stream(p).boxed().toList()).size(), "distinct parents");
      Document a = base.get(p[0]);
      int child = (i - 300) / 300 + 1;
      assertEquals(a.id() + "~m" + child, d.id());
      if (child <= 4) {
        assertTrue(seenPrimaries[child - 1].add(p[0]), "each base document once per round");
      }
      List<Integer> near = Arrays.stream(neighbours[p[0]]).boxed().toList();
      assertTrue(near.contains(p[1]) && near.contains(p[2]), "others are the primary's neighbours");
      assertEquals(1, Arrays.stream(w).sum(), 1e-9);
      assertTrue(w[0] >= 1.0 / 3 - 1e-12, "the primary's weight " + w[0]);
      // The vector is normalize(Σ w_j·v_j).
      float[] expected = new float[DIM];
      for (int j = 0; j < 3; j++) {
        for (int x = 0; x < DIM; x++) {
          expected[x] += (float) (w[j] * base.get(p[j]).embedding()[x]);
        }
      }
      VectorUtil.l2normalize(expected);
      assertArrayEquals(expected, d.embedding(), 1e-6f);
      new Schema(DIM).validateVector("mix " + i, d.embedding());
      assertEquals(a.category(), d.category());
      assertTrue(d.price() >= a.price() / 2 && d.price() <= 2 * a.price(), "price " + d.price());
      checkText(d, p, base);
    }
    for (int k = 0; k < 4; k++) {
      assertEquals(300, seenPrimaries[k].size());
    }
  }

  @SuppressWarnings("unchecked")
  private static Set<Integer>[] newSets(int n) {
    Set<Integer>[] s = new Set[n];
    for (int i = 0; i < n; i++) {
      s[i] = new HashSet<>();
    }
    return s;
  }

  /** Titles and descriptions hold only the parents' words, and every parent is in the window. */
  static void checkText(Document d, int[] p, List<Document> base) {
    Set<String> titleWords = new HashSet<>();
    Set<String> descriptionWords = new HashSet<>();
    for (int q : p) {
      titleWords.addAll(Arrays.asList(base.get(q).title().split("\\s+")));
      descriptionWords.addAll(Arrays.asList(base.get(q).description().split("\\s+")));
    }
    String[] title = d.title().split("\\s+");
    assertEquals(base.get(p[0]).title().split("\\s+").length, title.length, d.title());
    assertTrue(titleWords.containsAll(Arrays.asList(title)), d.title());
    assertTrue(title[0].startsWith("t" + p[0] + "w"), "the title starts with the primary's");
    if (d.description().isEmpty()) {
      return;
    }
    assertTrue(
        descriptionWords.containsAll(Arrays.asList(d.description().split("\\s+"))),
        d.description());
    // Word by word, which parents' words lie inside the window (the prefix's estimated pieces).
    String prefix = "Item: Title: " + d.title() + " Description:";
    Set<Integer> inWindow = new HashSet<>();
    for (String word : d.description().split("\\s+")) {
      prefix += " " + word;
      if (NeighbourMixes.pieces(prefix) > NeighbourMixes.WINDOW - 2) {
        break;
      }
      inWindow.add(Integer.parseInt(word.substring(1, word.indexOf('s'))));
    }
    for (int q : p) {
      if (!base.get(q).description().isEmpty()) {
        assertTrue(inWindow.contains(q), "parent " + q + " in the window of " + d.description());
      }
    }
    if (!base.get(p[0]).description().isEmpty()) {
      assertTrue(d.description().startsWith("d" + p[0] + "s0w0"), "the primary's first sentence");
    }
  }

  @Test
  void successiveChildrenUseDisjointNeighboursWhileTheListLasts() {
    long seed = TestSeeds.seed("NeighbourMixesTest.disjoint");
    List<Document> base = base(100, seed);
    int[][] neighbours = BaseNeighbours.compute(vectors(base), 12, 1);
    NeighbourMixes mixes =
        new NeighbourMixes(base, neighbours, new NeighbourMixes.Params(3, 12, 0.5), 700, seed);
    // Child r of a document sits in round r; find each base document's six children.
    List<Set<Integer>> used = new ArrayList<>();
    for (int a = 0; a < 100; a++) {
      used.add(new HashSet<>());
    }
    for (int i = 100; i < 700; i++) {
      int[] p = mixes.parents(i);
      assertTrue(used.get(p[0]).add(p[1]), "neighbour " + p[1] + " of " + p[0] + " reused");
      assertTrue(used.get(p[0]).add(p[2]), "neighbour " + p[2] + " of " + p[0] + " reused");
    }
    used.forEach(s -> assertEquals(12, s.size(), "six children of two use all twelve"));
  }

  @Test
  void theWindowEstimateErrsLongAndCutsAtWords() {
    assertEquals(4, NeighbourMixes.pieces("Item: Title:"));
    // "x86_64" is x ##86 _ 64 for BERT; the estimate gives at least as many.
    assertTrue(NeighbourMixes.pieces("x86_64") >= 3);
    assertEquals(1, NeighbourMixes.pieces("games"));
    String s = "one two three four five six seven";
    assertEquals("one two three", NeighbourMixes.cut(s, 3));
    assertEquals(s, NeighbourMixes.cut(s, 100));
    assertEquals("one", NeighbourMixes.cut(s, 0), "at least a word");
    assertEquals("a b c x y", NeighbourMixes.title("a b c d e", "v w x y", 0.5));
    assertEquals("a", NeighbourMixes.title("a", "v w", 0.4));
    assertThrows(IllegalArgumentException.class, () -> new NeighbourMixes.Params(12, 10, 1));
    assertThrows(IllegalArgumentException.class, () -> new NeighbourMixes.Params(3, 10, 0));
  }

  @Test
  void theBuildStreamsTheMixesToDiskWithQueriesFromThePool(@TempDir Path tmp) throws Exception {
    long seed = TestSeeds.seed("NeighbourMixesTest.build");
    Path input = tmp.resolve("in.ndjson");
    List<Document> base = DatasetFormatTest.writeInput(input, 200, seed);
    DatasetBuilds.ndjson(
        DatasetFormatTest.common(tmp.resolve("base"), tmp.resolve("cache"), 20, seed), input);
    NeighbourMixes.Params params = new NeighbourMixes.Params(3, 8, 2.0);
    DatasetInfo info =
        DatasetBuilds.mixes(
            DatasetFormatTest.common(tmp.resolve("big"), tmp.resolve("cache"), 60, seed),
            700,
            tmp.resolve("base"),
            params,
            300);
    assertEquals("debian-mixes", info.source());
    assertEquals(700, info.documents());
    // The base as the build read it back from its dataset (its vectors as stored), and the
    // neighbours the build used, from its cache.
    List<Document> stored;
    try (Dataset b = Dataset.open(tmp.resolve("base"));
        Stream<Document> s = b.documents()) {
      stored = s.toList();
    }
    // The neighbours the build used, from its cache: computed again here, a near-tie between two
    // neighbours can come out in the other order when the JIT rounds a dot product differently in
    // the last bit, and the generated documents depend on that order (seed 303 did).
    int[][] neighbours =
        BaseNeighbours.cached(
            vectors(stored), 8, tmp.resolve("cache"), 1, DatasetFormatTest.quiet());
    NeighbourMixes expected = new NeighbourMixes(stored, neighbours, params, 700, seed);
    try (Dataset ds = Dataset.open(tmp.resolve("big"));
        Stream<Document> s = ds.documents()) {
      List<Document> docs = s.toList();
      for (int i = 0; i < docs.size(); i++) {
        assertEquals(expected.next(), docs.get(i), "document " + i);
      }
      assertEquals(60, ds.queries().size());
      ds.queries().forEach(q -> assertTrue(q.docOrdinal() < 300, "query from the pool"));
      assertNotEquals(
          0, ds.queries().stream().filter(q -> q.docOrdinal() >= 200).count(), "mixes queried");
    }
    // A second build reads the base neighbours from the cache and writes the same corpus.
    DatasetBuilds.mixes(
        DatasetFormatTest.common(tmp.resolve("again"), tmp.resolve("cache"), 60, seed),
        700,
        tmp.resolve("base"),
        params,
        300);
    assertEquals(
        java.nio.file.Files.readString(tmp.resolve("big").resolve(Dataset.DOCS_FILE)),
        java.nio.file.Files.readString(tmp.resolve("again").resolve(Dataset.DOCS_FILE)));
  }
}
