package org.searchlab.bench.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.searchlab.core.Document;
import org.searchlab.core.Schema;
import org.searchlab.testing.TestSeeds;

/**
 * {@link TangentSteps}: deterministic per seed and nested by size; each generated vector a unit
 * vector at the drawn distance from its primary, in the span of the primary's neighbours; text made
 * only of the parents' text with every parent's first sentence inside the model's window.
 */
class TangentStepsTest {
  static final int DIM = NeighbourMixesTest.DIM;

  @Test
  void stepsAreDeterministicNestedAndMadeOfTheirParents() {
    long seed = TestSeeds.seed("TangentStepsTest.steps");
    List<Document> base = NeighbourMixesTest.base(300, seed);
    TangentSteps.Params params = new TangentSteps.Params(10, 1.5, 0.2, 0.7, 3);
    int[][] neighbours = BaseNeighbours.compute(NeighbourMixesTest.vectors(base), 10, 2);
    int n = 300 * 5 + 123;
    TangentSteps steps = params.open(base, neighbours, n, seed);
    List<Document> docs = new ArrayList<>();
    steps.forEachRemaining(docs::add);
    assertEquals(n, docs.size());
    assertEquals(n, new HashSet<>(docs.stream().map(Document::id).toList()).size(), "unique ids");
    for (int i = 0; i < 300; i++) {
      assertSame(base.get(i), docs.get(i), "the base comes first, unchanged");
    }
    TangentSteps larger = params.open(base, neighbours, 4 * n, seed);
    TangentSteps other = params.open(base, neighbours, n, seed + 1);
    int differ = 0;
    for (int i = 300; i < n; i += 7) {
      assertEquals(docs.get(i), larger.document(i), "document " + i + " does not depend on size");
      differ += docs.get(i).equals(other.document(i)) ? 0 : 1;
    }
    assertTrue(differ > 0, "another seed gives other documents");
    List<Set<Integer>> primaries = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      primaries.add(new HashSet<>());
    }
    for (int i = 300; i < n; i++) {
      Document d = docs.get(i);
      TangentSteps.Step s = steps.step(i);
      int[] p = s.parents();
      double[] w = s.weights();
      int a = steps.primary(i);
      assertEquals(a, p[0]);
      int child = (i - 300) / 300 + 1;
      assertEquals(base.get(a).id() + "~s" + child, d.id());
      if (child <= 4) {
        assertTrue(primaries.get(child - 1).add(a), "each base document once per round");
      }
      assertEquals(4, p.length);
      assertEquals(4, new HashSet<>(Arrays.stream(p).boxed().toList()).size(), "distinct parents");
      List<Integer> near = Arrays.stream(neighbours[a]).boxed().toList();
      for (int j = 1; j < p.length; j++) {
        assertTrue(near.contains(p[j]), "text parents are the primary's neighbours");
      }
      assertEquals(1, Arrays.stream(w).sum(), 1e-9);
      assertTrue(w[0] >= 1.0 / 4 - 1e-12, "the primary's weight " + w[0]);
      new Schema(DIM).validateVector("step " + i, d.embedding());
      assertEquals(base.get(a).category(), d.category());
      NeighbourMixesTest.checkText(d, p, base);
    }
    for (Set<Integer> round : primaries) {
      assertEquals(300, round.size());
    }
  }

  /**
   * Without jitter the step's length is exactly {@code c·r^γ·d₁(a)}; the step is orthogonal to the
   * primary, so the generated unit vector's cosine with it is {@code 1/√(1 + L²)}; and it lies in
   * the span of the primary and its K neighbours (here K + 1 = 4 of the 16 dimensions).
   */
  @Test
  void aStepHasItsLengthAndStaysInTheNeighboursSpan() {
    long seed = TestSeeds.seed("TangentStepsTest.geometry");
    List<Document> base = NeighbourMixesTest.base(200, seed);
    int k = 3;
    TangentSteps.Params params = new TangentSteps.Params(k, 1.3, 0.5, 0, 2);
    int[][] neighbours = BaseNeighbours.compute(NeighbourMixesTest.vectors(base), k, 1);
    TangentSteps steps = params.open(base, neighbours, 200 * 4, seed);
    for (int i = 200; i < 800; i++) {
      int a = steps.primary(i);
      float[] ea = base.get(a).embedding();
      double d1 = l2(ea, base.get(neighbours[a][0]).embedding());
      int round = (i - 200) / 200 + 1;
      TangentSteps.Step s = steps.step(i);
      assertEquals(1.3 * Math.pow(round, 0.5) * d1, s.length(), 1e-12, "the length of " + i);
      double cos = checkCosine(ea, s, i);
      // The residual of the vector after projecting it on span{e_a, e_n}, by Gram-Schmidt.
      List<double[]> basis = new ArrayList<>();
      addToBasis(basis, ea);
      for (int j = 0; j < k; j++) {
        addToBasis(basis, base.get(neighbours[a][j]).embedding());
      }
      double[] rest = new double[DIM];
      for (int x = 0; x < DIM; x++) {
        rest[x] = s.vector()[x];
      }
      for (double[] b : basis) {
        double dot = 0;
        for (int x = 0; x < DIM; x++) {
          dot += rest[x] * b[x];
        }
        for (int x = 0; x < DIM; x++) {
          rest[x] -= dot * b[x];
        }
      }
      assertEquals(0, Math.sqrt(Arrays.stream(rest).map(v -> v * v).sum()), 1e-5, "residual");
    }
  }

  /**
   * A primary with exact twins in the base (identical texts embed identically) steps at the
   * distance of its nearest neighbour that is not a twin, and one whose K cached neighbours are all
   * twins steps among its K nearest distinct documents: scaled to a twin's distance of 0, every
   * child was an exact copy, and a 1M corpus held groups of up to 1,234 identical vectors.
   */
  @Test
  void childrenOfTwinsAreNotCopies() {
    long seed = TestSeeds.seed("TangentStepsTest.twins");
    List<Document> base = new ArrayList<>(NeighbourMixesTest.base(200, seed));
    // Documents 1, 3, 5, … 39 are twins of the one before them; 40 and 41 are twins of 42 too.
    for (int i = 1; i < 40; i += 2) {
      base.set(i, twin(base.get(i), base.get(i - 1)));
    }
    base.set(40, twin(base.get(40), base.get(42)));
    base.set(41, twin(base.get(41), base.get(42)));
    // 43 … 48 are twins of 49: a group of 7, more than K, whose cached neighbours are all twins.
    for (int i = 43; i < 49; i++) {
      base.set(i, twin(base.get(i), base.get(49)));
    }
    int k = 4;
    TangentSteps.Params params = new TangentSteps.Params(k, 1.3, 0.5, 0, 2);
    int[][] neighbours = BaseNeighbours.compute(NeighbourMixesTest.vectors(base), k, 1);
    TangentSteps steps = params.open(base, neighbours, 200 * 6, seed);
    int twinChildren = 0;
    int groupChildren = 0;
    for (int i = 200; i < 1200; i++) {
      int a = steps.primary(i);
      float[] ea = base.get(a).embedding();
      int[] near = neighbours[a];
      if (l2(ea, base.get(near[k - 1]).embedding()) == 0) {
        // All K cached neighbours are twins: the nearest K distinct documents, by brute force.
        near =
            IntStream.range(0, base.size())
                .filter(j -> l2(ea, base.get(j).embedding()) > 0)
                .boxed()
                .sorted(Comparator.comparingDouble(j -> l2(ea, base.get(j).embedding())))
                .limit(k)
                .mapToInt(Integer::intValue)
                .toArray();
        groupChildren++;
      }
      double d1 = 0;
      for (int n : near) {
        double d = l2(ea, base.get(n).embedding());
        if (d > 0) {
          d1 = d;
          break;
        }
      }
      assertTrue(d1 > 0, "the base has a distinct neighbour of " + a + " among " + k);
      int round = (i - 200) / 200 + 1;
      TangentSteps.Step s = steps.step(i);
      assertEquals(1.3 * Math.pow(round, 0.5) * d1, s.length(), 1e-12, "the length of " + i);
      double cos = checkCosine(ea, s, i);
      assertTrue(cos < 0.999, "child " + i + " is no copy of " + a + ": cosine " + cos);
      twinChildren += l2(ea, base.get(neighbours[a][0]).embedding()) == 0 ? 1 : 0;
    }
    assertEquals(5 * 50, twinChildren, "five children of each of the 50 documents with a twin");
    assertEquals(5 * 7, groupChildren, "five children of each of the group of 7");
  }

  private static Document twin(Document doc, Document of) {
    return new Document(
        doc.id(),
        doc.title(),
        doc.description(),
        doc.category(),
        doc.price(),
        doc.averageRating(),
        of.embedding().clone());
  }

  /** {@code dataset build --source debian-mixes} (the default generator) writes this corpus. */
  @Test
  void theBuildWritesTheSteps(@TempDir Path tmp) throws Exception {
    long seed = TestSeeds.seed("TangentStepsTest.build");
    Path input = tmp.resolve("in.ndjson");
    List<Document> base = DatasetFormatTest.writeInput(input, 200, seed);
    DatasetBuilds.ndjson(
        DatasetFormatTest.common(tmp.resolve("base"), tmp.resolve("cache"), 20, seed), input);
    TangentSteps.Params params = new TangentSteps.Params(8, 1.5, 0.2, 0.7, 3);
    DatasetInfo info =
        DatasetBuilds.mixes(
            DatasetFormatTest.common(tmp.resolve("big"), tmp.resolve("cache"), 60, seed),
            700,
            tmp.resolve("base"),
            params,
            300);
    assertEquals(700, info.documents());
    assertTrue(info.model().endsWith("+" + params), info.model());
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
            NeighbourMixesTest.vectors(base),
            8,
            tmp.resolve("cache"),
            1,
            DatasetFormatTest.quiet());
    TangentSteps expected = params.open(stored, neighbours, 700, seed);
    try (Dataset ds = Dataset.open(tmp.resolve("big"));
        Stream<Document> s = ds.documents()) {
      List<Document> docs = s.toList();
      assertEquals(700, docs.size());
      for (int i = 0; i < docs.size(); i++) {
        assertEquals(expected.next(), docs.get(i), "document " + i);
      }
    }
  }

  @Test
  void badSettingsAreRefusedByName() {
    assertThrows(IllegalArgumentException.class, () -> new TangentSteps.Params(0, 1, 0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new TangentSteps.Params(5, 0, 0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new TangentSteps.Params(5, 1, -1, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> new TangentSteps.Params(5, 1, 0, -1, 1));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new TangentSteps.Params(5, 1, 0, 0, 6));
    assertTrue(e.getMessage().contains("text parents 6"), e.getMessage());
  }

  private static void addToBasis(List<double[]> basis, float[] v) {
    double[] u = new double[v.length];
    for (int x = 0; x < v.length; x++) {
      u[x] = v[x];
    }
    for (double[] b : basis) {
      double dot = 0;
      for (int x = 0; x < u.length; x++) {
        dot += u[x] * b[x];
      }
      for (int x = 0; x < u.length; x++) {
        u[x] -= dot * b[x];
      }
    }
    double norm = Math.sqrt(Arrays.stream(u).map(x -> x * x).sum());
    if (norm > 1e-9) {
      for (int x = 0; x < u.length; x++) {
        u[x] /= norm;
      }
      basis.add(u);
    }
  }

  /** A step orthogonal to its primary: the unit vector's cosine with it is {@code 1/√(1 + L²)}. */
  private static double checkCosine(float[] ea, TangentSteps.Step s, int i) {
    double cos = 0;
    for (int x = 0; x < DIM; x++) {
      cos += ea[x] * s.vector()[x];
    }
    assertEquals(1 / Math.sqrt(1 + s.length() * s.length()), cos, 1e-5, "cosine of " + i);
    return cos;
  }

  private static double l2(float[] a, float[] b) {
    double sq = 0;
    for (int x = 0; x < a.length; x++) {
      double d = a[x] - b[x];
      sq += d * d;
    }
    return Math.sqrt(sq);
  }
}
